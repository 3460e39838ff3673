"""Measures what the daemon's imports cost at start: time (`python -X importtime`) and memory.

Run: `python scripts/import_cost.py [--runs 5]`. For each heavy module (numpy, watchdog,
apscheduler, desktop-notifier) and for `keepd.daemon.run` (the daemon's start path), a fresh
interpreter imports it alone, and again after the start path (0 ms: the start path imported it
already): the median over `--runs` of the cumulative import time -X importtime reports and of the
growth of the resident size. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

MODULES = (
    "numpy",
    "watchdog.observers",
    "apscheduler.schedulers.asyncio",
    "desktop_notifier",
    "keepd.daemon.run",
)
PROBE = """
import sys
def rss():
    with open('/proc/self/status') as status:
        return next(int(l.split()[1]) for l in status if l.startswith('VmRSS'))
{before}
start = rss()
import {module}
print(rss() - start)
"""


def once(module: str, before: str) -> tuple[float, float]:
    """(milliseconds the import of `module` took, kB it added), in a fresh interpreter."""
    code = PROBE.format(module=module, before=f"import {before}" if before else "")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    )
    rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")]
    names = [row[2].strip() for row in rows]
    start = names.index(before) + 1 if before in names else 0  # what the start path left
    own = [int(row[1]) for row in rows[start:] if row[2].strip() == module]
    return (own[-1] / 1000 if own else 0.0), float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"median of {args.runs} fresh interpreters, Python {sys.version.split()[0]}")
    for before in ("", "keepd.daemon.run"):
        print("alone:" if not before else f"after {before} (what it adds to the start path):")
        for module in MODULES:
            if module == before:
                continue
            found = [once(module, before) for _ in range(args.runs)]
            took = statistics.median(ms for ms, _ in found)
            grew = statistics.median(kb for _, kb in found) / 1024
            print(f"  {module:32} {took:7.1f} ms  {grew:5.1f} MB resident")


if __name__ == "__main__":
    main()
