"""Benchmarks the core: cold analysis of the corpus against orjson parsing alone, per-append cost.

Run: `python scripts/bench_core.py [--shared ../shared]`. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import orjson

from keepd.api import analyse_file
from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
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


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
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


def _line(i: int, rng: np.random.Generator, vocabulary: list[str]) -> bytes:
    """One conversation line of a synthetic session: prompts and replies of 40 words."""
    words = " ".join(vocabulary[j] for j in rng.integers(0, len(vocabulary), 40))
    entry = {
        "type": "user" if i % 2 == 0 else "assistant",
        "uuid": f"u{i}",
        "parentUuid": f"u{i - 1}" if i else None,
        "sessionId": "bench",
        "message": {"role": "user" if i % 2 == 0 else "assistant", "content": words},
    }
    return orjson.dumps(entry) + b"\n"


def per_append(sizes: tuple[int, ...] = (1_000, 10_000, 100_000), probes: int = 300) -> None:
    """Feeds one line at a time to a session already holding `size` messages."""
    rng = np.random.default_rng(3)
    vocabulary = [f"word{i}" for i in range(60_000)]
    print("per appended line (40-word message: parse, node, branch, index):")
    for size in sizes:
        state = SessionState(detail=False)
        state.feed(b"".join(_line(i, rng, vocabulary) for i in range(size)))
        state.branch()
        lines = [_line(size + i, rng, vocabulary) for i in range(probes)]
        timings = []
        for line in lines:
            started = time.perf_counter()
            state.feed(line)
            state.branch()
            timings.append(time.perf_counter() - started)
        refresh = best_of(5, partial(analyse_state, state))
        print(
            f"  at {size:>7,} messages: median {statistics.median(timings) * 1e6:6.1f} µs,"
            f" p99 {sorted(timings)[int(probes * 0.99)] * 1e6:6.1f} µs;"
            f" full analysis refresh {refresh * 1000:6.1f} ms"
        )


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
