"""Benchmarks the core: cold analysis of the corpus against orjson parsing alone, per-append cost.

Run: `python scripts/bench_core.py [--shared ../shared] [--runs 5] [--no-append]`. Prints, for
each batch of the corpus and for all of it, keepd's cold analysis against an orjson parse of
the same bytes (same process, in turns, the median of `--runs`) and where the analysis spends
its time stage by stage; then the cost of one appended line. Prints figures; asserts nothing.
The measurements live in `evaluation.speed`, which `python -m evaluation.full` publishes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's evaluation/

from evaluation.cases import find_shared
from evaluation.speed import cold_files, cold_stages, corpus_batches, machine, per_append


def show_corpus(shared: Path, runs: int) -> None:
    """Each batch's cold analysis against parsing, and its stages, the median of `runs`."""
    print(f"(timed in turns, the median of {runs}, in this process's CPU time; page cache)")
    for name, paths in corpus_batches(shared).items():
        if not paths:
            continue
        cold = cold_files(paths, runs, statistics.median)
        print(f"{name} batch: {cold.files} files, {cold.megabytes:.1f} MB")
        print(f"  orjson parsing alone   {cold.parse * 1000:8.1f} ms")
        print(f"  keepd cold analysis    {cold.analyse * 1000:8.1f} ms  ({cold.ratio:.2f}x)")
        print(f"  the same, --whole      {cold.whole * 1000:8.1f} ms  ({cold.whole_ratio:.2f}x)")
        if name == "all":
            continue
        print("  where it goes (the current context, stage by stage):")
        for stage, seconds in cold_stages(paths, runs, statistics.median).items():
            print(f"    {stage:<24} {seconds * 1000:6.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-append", action="store_true", help="the corpus's figures alone")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    shared = args.shared or find_shared()
    if shared is not None:
        show_corpus(shared, args.runs)
    if args.no_append:
        return
    print("per appended line (40-word message: parse, node, branch, index):")
    for a in per_append():
        print(
            f"  at {a.size:>7,} messages: median {a.median * 1e6:6.1f} µs,"
            f" p99 {a.p99 * 1e6:6.1f} µs; full analysis refresh {a.refresh * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    main()
