"""Benchmarks what a well-behaved client sees while hostile ones work on the daemon: the wall time
of a `keepd.ops.client` ping on a fresh connection (as `keepd status` makes), every 10 ms from a
process of its own, under each condition of tests/integration/test_daemon_hostile.py, and how
fast the daemon turns connections over at its budget.

Run from the checkout: `python scripts/bench_hostile.py [--rounds 3]`. It starts real daemons
under a temporary HOME (never the user's), prints figures, and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's tests package

from tests.integration.daemon_kit import Daemon, example_lines, make_tree, running
from tests.integration.hostile_kit import (
    Probe,
    close_all,
    descriptor_limit,
    ensure_descriptors,
    flood,
    opened,
    probing,
    silent,
)

LINES = example_lines()
HALF_REQUEST = b'{"v": 1, "method": "pi'


def private_home(base: Path) -> None:
    """HOME and the XDG folders in `base`, as the tests' fixture sets them."""
    home = base / "home"
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        (home / sub).mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(home / sub)
    os.environ["HOME"] = str(home)


@contextmanager
def daemon(base: Path, preexec: Callable[[], None] | None = None) -> Iterator[Daemon]:
    folder = Path(tempfile.mkdtemp(dir=base))
    tree = make_tree(folder, notify={"enabled": False})
    tree.session().write_bytes(b"".join(LINES[:100]))
    with running(tree, preexec) as live:
        yield live


def quiet(live: Daemon, seconds: float) -> Probe:
    with probing(live.socket) as probe:
        time.sleep(seconds)
    return probe


def fifo(live: Daemon, base: Path, seconds: float) -> Probe:
    path = base / f"fifo-{time.monotonic_ns()}.jsonl"
    os.mkfifo(path)
    with probing(live.socket) as probe:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name in (str(path), "/dev/zero"):
                with suppress(Exception):  # refused, as it should be
                    live.call("session", {"name": name})
    return probe


def idle(live: Daemon, seconds: float) -> Probe:
    with probing(live.socket) as probe:
        held = silent(live.socket, 300) + silent(live.socket, 64, HALF_REQUEST)
        time.sleep(seconds)
        close_all(held)
    return probe


def connections(live: Daemon, seconds: float) -> tuple[Probe, float]:
    with probing(live.socket) as probe, flood(live.socket, 1100) as hostile:
        started = time.perf_counter()
        assert opened(hostile) == 1100
        took = time.perf_counter() - started
        time.sleep(seconds)
    return probe, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="per condition and round")
    args = parser.parse_args()
    python = platform.python_version()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {python}")
    print("ping: keepd.ops.client on a fresh connection every 10 ms; wall time per ping")
    if not ensure_descriptors(1500):
        raise SystemExit("this process cannot hold 1,100 connections")
    with tempfile.TemporaryDirectory(prefix="kdbench", dir="/tmp") as temporary:
        base = Path(temporary)
        private_home(base)
        for number in range(1, args.rounds + 1):
            print(f"round {number}")
            with daemon(base) as live:
                print(f"  nothing else         {quiet(live, args.seconds).summary()}")
                print(f"  FIFO and /dev/zero   {fifo(live, base, args.seconds).summary()}")
                print(f"  364 idle connections {idle(live, args.seconds).summary()}")
            with daemon(base, descriptor_limit(256, 512)) as live:
                probe, took = connections(live, args.seconds)
                print(f"  1,100 connections    {probe.summary()}")
                print(
                    f"    (512 descriptors: all 1,100 connected in {took * 1000:.0f} ms, "
                    f"{1100 / took:,.0f} a second, the oldest closed for the newest)"
                )


if __name__ == "__main__":
    main()
