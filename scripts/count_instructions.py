"""Counts the instructions one `keepd report` of a session costs, stage by stage, with callgrind.

Run: `python scripts/count_instructions.py --session FILE [--reps 4] [--stages] [--whole]`.
Instruction counts do not move with another program's load, so a shared machine can compare
two versions of the core where timings blur. Each figure is the difference of two runs under
`valgrind --tool=callgrind` (PYTHONHASHSEED=0, one BLAS thread) that repeat the work 2 and
2 + `reps` times, divided by `reps`: start-up, imports and first-time costs cancel. With
`--stages` it prints the cost of each prefix of the report's steps and of each step (the
difference of consecutive prefixes), and orjson parsing the file's lines alone. With
`--whole` the report is `keepd report --whole`'s (every line read: no compaction found, no
skim). Prints figures; asserts nothing. Needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STEPS = ("find", "skim", "feed", "branch", "analysis")
_COLLECTED = re.compile(r"Collected : (\d+)")


def run_prefix(path: Path, upto: str, times: int, *, whole: bool = False) -> None:
    """Runs the report's steps up to `upto` (or orjson alone, or the whole report) `times` times,
    for the current context or the `whole` history."""
    from evaluation.speed import parse_only
    from keepd.api import analyse_file
    from keepd.core.analysis import analyse_state
    from keepd.core.session import SessionState
    from keepd.core.skim import ContextStart, context_start
    from keepd.core.tree import Scope

    data = path.read_bytes()
    for _ in range(times):
        if upto == "orjson":
            parse_only([data])
            continue
        if upto == "report":
            analyse_file(path, whole=whole)
            continue
        start = ContextStart() if whole else context_start(data)
        if upto == "find":
            continue
        state = SessionState(Scope.WHOLE if whole else Scope.CURRENT)
        if start.offset:
            state.skim(data, start)
        if upto == "skim":
            continue
        state.feed(data, start.offset)
        state.finish()
        if upto == "feed":
            continue
        state.branch()
        if upto == "branch":
            continue
        analyse_state(state, path=str(path))


def callgrind_instructions(script: str, arguments: list[str]) -> int:
    """Instructions of a whole process running `script` with `arguments`, under callgrind
    (PYTHONHASHSEED=0 and one BLAS thread, so that two runs of the same code agree)."""
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += [sys.executable, script, *arguments]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in callgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def count(path: Path, upto: str, times: int, *, whole: bool = False) -> int:
    """Instructions of a whole process running `run_prefix`, under callgrind."""
    arguments = ["--inner", upto, "--times", str(times), "--session", str(path)]
    return callgrind_instructions(__file__, arguments + (["--whole"] if whole else []))


def per_run(path: Path, upto: str, reps: int, *, whole: bool = False) -> float:
    return (count(path, upto, 2 + reps, whole=whole) - count(path, upto, 2, whole=whole)) / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--session", type=Path, required=True)
    parser.add_argument("--reps", type=int, default=4)
    parser.add_argument("--stages", action="store_true", help="each step's cost too")
    parser.add_argument("--whole", action="store_true", help="the whole history's report")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--times", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        run_prefix(args.session, args.inner, args.times, whole=args.whole)
        return
    report = per_run(args.session, "report", args.reps, whole=args.whole)
    parsing = per_run(args.session, "orjson", args.reps)
    print(f"report   {report / 1e6:8.2f}M instructions")
    print(f"orjson   {parsing / 1e6:8.2f}M instructions  (report {report / parsing:.3f}x)")
    if args.stages:
        before = 0.0
        for step in STEPS:
            prefix = per_run(args.session, step, args.reps, whole=args.whole)
            print(f"  {step:9} {(prefix - before) / 1e6:8.2f}M  (up to here {prefix / 1e6:.2f}M)")
            before = prefix


if __name__ == "__main__":
    main()
