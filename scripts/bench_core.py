"""Benchmarks the core: cold analysis of the corpus against orjson parsing alone, per-append cost.

Run: `python scripts/bench_core.py [--shared ../shared]`. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import orjson

from keepd.api import analyse_file
from keepd.core.index import Index
from keepd.evaluate.cases import find_shared


def parse_only(blobs: list[bytes]) -> int:
    count = 0
    for blob in blobs:
        for line in blob.split(b"\n"):
            if line:
                try:
                    orjson.loads(line)
                    count += 1
                except orjson.JSONDecodeError:
                    pass
    return count


def best_of(runs: int, work: object) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return min(times)


def cold_corpus(shared: Path) -> None:
    paths = sorted((shared / "corpus" / "sessions").glob("*.jsonl"))
    blobs = [path.read_bytes() for path in paths]
    size = sum(map(len, blobs)) / 1e6
    parse = best_of(5, lambda: parse_only(blobs))
    analyse = best_of(5, lambda: [analyse_file(path) for path in paths])
    print(f"corpus: {len(paths)} files, {size:.1f} MB (files in page cache)")
    print(f"  orjson parsing alone   {parse * 1000:8.1f} ms")
    print(f"  keepd cold analysis    {analyse * 1000:8.1f} ms  ({analyse / parse:.2f}x parsing)")


def per_append(sizes: tuple[int, ...] = (1_000, 10_000, 100_000)) -> None:
    rng = np.random.default_rng(3)
    vocabulary = [f"word{i}" for i in range(60_000)]
    print("per appended message (40 words, index append + curve at 50 stops refreshed):")
    for size in sizes:
        index = Index(detail=False)
        batch = [[vocabulary[j] for j in rng.integers(0, 60_000, 40)] for _ in range(size)]
        index.extend(batch)
        extra = [[vocabulary[j] for j in rng.integers(0, 60_000, 40)] for _ in range(200)]
        timings = []
        for message in extra:
            started = time.perf_counter()
            index.extend([message])
            timings.append(time.perf_counter() - started)
        print(f"  at {size:>7,} messages: median {statistics.median(timings) * 1e6:7.1f} µs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path)
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, Python {platform.python_version()}")
    shared = args.shared or find_shared()
    if shared is not None:
        cold_corpus(shared)
    per_append()


if __name__ == "__main__":
    main()
