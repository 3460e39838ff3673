"""Cuts and prunes a copy of every corpus session, checks each, undoes it, and times it all.

Run: `python scripts/bench_cut.py [--shared ../shared]`. For each session it tries the four
placements at the pick (else the middle of the trade, else the middle stop) and a prune with
the defaults, on a copy in a temporary folder; prints what was refused and why, the times, and
the context before and after. Asserts nothing; the tests do.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from keepd.errors import KeepdError
from keepd.ops.operations import Operations

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's evaluation/

from evaluation.cases import find_shared

PLACEMENTS = ("first", "last", "none", "empty")


def stop_of(operations: Operations, path: Path) -> str | None:
    analysis = operations.report(str(path)).analysis
    if analysis.target:
        return analysis.target
    return analysis.stops[len(analysis.stops) // 2].uuid if analysis.stops else None


def one(
    operations: Operations, path: Path, how: str, stop: str | None, stats: dict[str, list[float]]
) -> str:
    before = path.read_bytes()
    started = time.perf_counter()
    if how == "prune":
        plan = operations.plan_prune(str(path))
    else:
        plan = operations.plan_cut(str(path), at=stop, placement=how)
    planned = time.perf_counter()
    outcome = operations.write_cut(plan)
    written = time.perf_counter()
    if not outcome.written:
        return "nothing to drop"
    operations.undo_cut(str(path))
    if path.read_bytes() != before:
        return "UNDO DIFFERS"
    stats["plan ms"].append((planned - started) * 1000)
    stats["write+verify ms"].append((written - planned) * 1000)
    stats["share before"].append(plan.share_before)
    stats.setdefault(f"share after, {how}", []).append(plan.share_after)
    stats["mb"].append(len(before) / 1e6)
    return "ok" + (" (direct)" if outcome.rebuilt_directly else " (after next turn)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=Path, default=None)
    args = parser.parse_args()
    shared = args.shared or find_shared()
    if shared is None:
        raise SystemExit("no ../shared corpus here; pass --shared")
    corpus = shared / "corpus" / "sessions"
    results: Counter[str] = Counter()
    stats: dict[str, list[float]] = {
        k: [] for k in ("plan ms", "write+verify ms", "share before", "mb")
    }
    operations = Operations()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["KEEPD_CUTS_DIR"] = str(Path(folder) / "cuts")
        for source in sorted(corpus.glob("*.jsonl")):
            path = Path(folder) / source.name
            shutil.copyfile(source, path)
            old = time.time() - 3600
            os.utime(path, (old, old))
            try:
                stop = stop_of(operations, path)
            except KeepdError as error:
                results[f"skipped: {error.title}"] += 1
                continue
            for how in (*PLACEMENTS, "prune"):
                if stop is None and how in ("first", "last", "none"):
                    results[f"{how}: no stop"] += 1
                    continue
                try:
                    verdict = one(operations, path, how, stop, stats)
                except KeepdError as error:
                    verdict = f"refused: {error}"[:110]
                results[f"{how}: {verdict}"] += 1
    for key, count in sorted(results.items()):
        print(f"{count:4d}  {key}")
    for key, values in stats.items():
        if values:
            print(f"{key}: median {statistics.median(values):.3f}, max {max(values):.3f}")


if __name__ == "__main__":
    main()
