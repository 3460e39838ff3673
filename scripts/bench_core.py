"""Benchmarks the core: cold analysis of the corpus against orjson parsing alone, per-append cost.

Run: `python scripts/bench_core.py [--shared ../shared]`. Prints figures; asserts nothing. The
measurements live in `evaluation.speed`, which `python -m evaluation.full` publishes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's evaluation/

from evaluation.cases import find_shared
from evaluation.speed import cold_corpus, cold_stages, machine, per_append


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    shared = args.shared or find_shared()
    if shared is not None:
        cold = cold_corpus(shared)
        print(f"corpus: {cold.files} files, {cold.megabytes:.1f} MB (files in page cache)")
        print("  (timed in turns, best of 7, in this process's CPU time)")
        print(f"  orjson parsing alone   {cold.parse * 1000:8.1f} ms")
        print(
            f"  keepd cold analysis    {cold.analyse * 1000:8.1f} ms  ({cold.ratio:.2f}x parsing)"
        )
        whole = f"{cold.whole * 1000:8.1f} ms  ({cold.whole_ratio:.2f}x parsing)"
        print(f"  the same, --whole      {whole}")
        print("  where it goes (each stage the best of 7):")
        for stage, seconds in cold_stages(shared).items():
            print(f"    {stage:<24} {seconds * 1000:6.1f} ms")
    print("per appended line (40-word message: parse, node, branch, index):")
    for a in per_append():
        print(
            f"  at {a.size:>7,} messages: median {a.median * 1e6:6.1f} µs,"
            f" p99 {a.p99 * 1e6:6.1f} µs; full analysis refresh {a.refresh * 1000:6.1f} ms"
        )


if __name__ == "__main__":
    main()
