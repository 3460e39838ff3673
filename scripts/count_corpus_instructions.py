"""Counts the instructions keepd's cold analysis of a sample of the corpus costs, with callgrind.

Run: `python scripts/count_corpus_instructions.py [--shared ../shared] [--every 22]`. Takes
every `--every`-th session of the corpus (sorted by name) and prints the instructions of
analysing them all, in the default scope and the whole history, and of orjson parsing their
lines, with each analysis's ratio to the parse: the figures `scripts/bench_core.py` times,
counted instead, so that two versions of the core compare on a loaded machine. Each figure
is a run that analyses the sample once more than a run that only warms up (one pass of each
scope and of the parse: imports and first-time costs cancel), under
`valgrind --tool=callgrind` with PYTHONHASHSEED=0 and one BLAS thread. Prints figures;
asserts nothing. Needs valgrind; takes minutes (two runs at a time).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # count_instructions beside it

from count_instructions import callgrind_instructions

RUNS = ("warm-up", "default", "whole", "orjson")


def sample(shared: Path, every: int) -> list[Path]:
    return sorted((shared / "corpus" / "sessions").glob("*.jsonl"))[::every]


def run(paths: list[Path], what: str) -> None:
    """Warms up on `paths` (both scopes and the parse), then does `what` once more."""
    from evaluation.speed import parse_only
    from keepd.api import analyse_file

    blobs = [path.read_bytes() for path in paths]
    for path in paths:
        analyse_file(path)
        analyse_file(path, whole=True)
    parse_only(blobs)
    if what == "orjson":
        parse_only(blobs)
    elif what != "warm-up":
        for path in paths:
            analyse_file(path, whole=what == "whole")


def count(shared: Path, every: int, what: str) -> int:
    """Instructions of a whole process doing `run`, under callgrind."""
    arguments = ["--shared", str(shared), "--every", str(every), "--inner", what]
    return callgrind_instructions(__file__, arguments)


def main() -> None:
    from evaluation.cases import find_shared

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shared", type=Path)
    parser.add_argument("--every", type=int, default=22)
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args()
    shared = args.shared or find_shared()
    if shared is None:
        raise SystemExit("no ../shared: give --shared")
    if args.inner:
        run(sample(shared, args.every), args.inner)
        return
    names = [path.name for path in sample(shared, args.every)]
    print(f"{len(names)} sessions: {', '.join(names)}")
    with ThreadPoolExecutor(2) as pool:
        counts = pool.map(lambda what: count(shared, args.every, what), RUNS)
        counted = dict(zip(RUNS, counts, strict=True))
    parse = counted["orjson"] - counted["warm-up"]
    for what in RUNS[1:]:
        spent = counted[what] - counted["warm-up"]
        print(f"  {what:8} {spent / 1e6:9.1f}M instructions  ({spent / parse:.3f}x orjson)")


if __name__ == "__main__":
    main()
