"""Benchmarks keepd on today's transcript format: `keepd report`'s analysis against orjson alone.

Run: `python scripts/bench_format.py [--session FILE] [--shared ../shared | --no-corpus]`.
Without `--session` it makes a 30-turn Claude Code 2.1.332 session with a `/compact` midway
(scripts/make_real_session.py: the real client against the test kit's fake API; needs npm or the
pinned client in ~/.cache/keepd-tests). With the corpus at hand it also times the corpus's files
written by Claude Code 2.1.100-2.1.299 and each batch (`scripts/bench_core.py` gives each
batch's medians and stages). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's evaluation/

from evaluation.cases import find_shared
from evaluation.speed import Cold, cold_files, corpus_batches, machine

_VERSION = re.compile(rb'"version":"2\.1\.(\d+)"')


def written_by_2_1_1xx_2xx(path: Path) -> bool:
    """Whether every 2.1.x version the file names is 2.1.100-2.1.299."""
    found = {int(v) for v in _VERSION.findall(path.read_bytes())}
    return bool(found) and all(100 <= v < 300 for v in found)


def show(label: str, paths: Sequence[Path], runs: int) -> Cold:
    cold = cold_files(paths, runs)
    print(f"{label}: {cold.files} files, {cold.megabytes:.2f} MB")
    print(f"  orjson parsing alone   {cold.parse * 1000:8.2f} ms")
    print(f"  keepd report analysis  {cold.analyse * 1000:8.2f} ms  ({cold.ratio:.2f}x parsing)")
    whole = f"{cold.whole * 1000:8.2f} ms  ({cold.whole_ratio:.2f}x parsing)"
    print(f"  the same, --whole      {whole}")
    return cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--session", type=Path, help="a 2.1.332 session (default: make one)")
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--shared", type=Path)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-corpus", action="store_true", help="time the session alone")
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print("(timed in turns, best of each, in this process's CPU time; files in page cache)")
    with tempfile.TemporaryDirectory(prefix="keepd-bench-") as scratch:
        session = args.session
        if session is None:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from make_real_session import make

            session = make(Path(scratch) / "session.jsonl", args.turns, args.turns // 2)
            print(f"made {session.stat().st_size:,} bytes: {args.turns} turns, /compact midway")
        show(f"2.1.332 session {session.name}", [session], args.runs)
    shared = args.shared or find_shared()
    if shared is None or args.no_corpus:
        return
    batches = corpus_batches(shared)
    recent = [path for path in batches["all"] if written_by_2_1_1xx_2xx(path)]
    show("the corpus's files of 2.1.100-2.1.299", recent, args.runs)
    for name in ("first", "second", "third"):
        if batches[name]:
            show(f"{name} batch", batches[name], args.runs)


if __name__ == "__main__":
    main()
