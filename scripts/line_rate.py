"""Measures how fast Claude Code writes lines to a session file, from the lines' own timestamps.

Run: `python scripts/line_rate.py [--shared ../shared] [--versions 200-399] [FILE ...]`. For each
session of those client versions (the corpus's by default): lines per second while it is active
(the time between consecutive lines, each gap counted up to `--idle` seconds, so a person away
does not dilute it) and in its busiest minute. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import Counter
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's evaluation/

from evaluation.cases import find_shared

_VERSION = re.compile(rb'"version":"2\.1\.(\d+)"')


def stamps(path: Path) -> list[float]:
    """The timestamps (seconds) of the file's lines that carry one, in file order."""
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            entry = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        stamp = entry.get("timestamp") if isinstance(entry, dict) else None
        if isinstance(stamp, str):
            try:
                out.append(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
            except ValueError:
                continue
    return out


def rates(times: list[float], idle: float) -> tuple[float, int, float]:
    """(lines per active second, lines in the busiest minute, active seconds)."""
    gaps = [min(max(b - a, 0.0), idle) for a, b in pairwise(times)]
    active = sum(gaps)
    minutes = Counter(int(t // 60) for t in times)
    return (len(times) - 1) / active if active else 0.0, max(minutes.values()), active


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--shared", type=Path)
    parser.add_argument("--versions", default="200-399", help="client versions 2.1.LOW-HIGH")
    parser.add_argument("--idle", type=float, default=300.0, help="longest gap counted (s)")
    args = parser.parse_args()
    low, high = (int(v) for v in args.versions.split("-"))
    paths = list(args.files)
    shared = args.shared or find_shared()
    if not paths and shared is not None:
        for path in sorted((shared / "corpus" / "sessions").glob("*.jsonl")):
            found = {int(v) for v in _VERSION.findall(path.read_bytes())}
            if found and all(low <= v <= high for v in found):
                paths.append(path)
    found_rates = []
    for path in paths:
        times = stamps(path)
        if len(times) < 2:
            continue
        rate, busiest, active = rates(times, args.idle)
        found_rates.append(rate)
        print(
            f"{rate:6.3f} lines/s active ({len(times):5,} lines, {active / 60:6.1f} min), "
            f"busiest minute {busiest:4} lines  {path.name}"
        )
    if found_rates:
        print(
            f"{len(found_rates)} sessions: median {statistics.median(found_rates):.3f} lines/s, "
            f"highest {max(found_rates):.3f} (gaps counted up to {args.idle:.0f} s)"
        )


if __name__ == "__main__":
    main()
