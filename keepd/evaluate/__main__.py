"""`python -m keepd.evaluate`: builds stitched sessions from the corpus and prints the figures."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from keepd.core.grade import DEFAULT_TUNING, Grade
from keepd.evaluate.cases import (
    Case,
    find_shared,
    labelled_cases,
    single_cases,
    stitched_cases,
)
from keepd.evaluate.score import Outcome, clear_zone_count, judge, prepare, summarise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m keepd.evaluate", description=__doc__)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--count", type=int, default=150, help="cross-project joins of two")
    args = parser.parse_args(argv)
    shared = args.shared or find_shared()
    if shared is None:
        print("keepd.evaluate: no ../shared corpus found (give --shared)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="keepd-eval-") as folder:
        out = Path(folder)
        started = time.perf_counter()
        for title, seeds in (("calibration", (7, 11, 13)), ("held out", (101, 102, 103))):
            groups = _stitched(shared, out, args.count, seeds)
            if title == "calibration":
                groups["labelled (--whole)"] = labelled_cases(shared)
            print(f"{title} (seeds {', '.join(map(str, seeds))})\n")
            print(_table(groups))
            print()
        print(_singles(single_cases(shared)))
        print(f"\n{time.perf_counter() - started:.1f} s; tails 8-15 prompts per piece; seeds fixed")
    return 0


def _stitched(
    shared: Path, out: Path, count: int, seeds: tuple[int, int, int]
) -> dict[str, list[Case]]:
    two, three, same = seeds
    return {
        "cross-project, 2 pieces": stitched_cases(shared, out, count=count, seed=two),
        "cross-project, 3 pieces (last junction)": stitched_cases(
            shared, out, count=max(count // 3, 2), pieces=3, seed=three
        ),
        "same repository, 2 pieces": stitched_cases(
            shared, out, count=max(count * 2 // 5, 2), same_repository=True, seed=same
        ),
    }


def _table(groups: dict[str, list[Case]]) -> str:
    lines = [
        "| cases | n | pick at junction | within one stop | junction graded ●●● |",
        "|---|---|---|---|---|",
    ]
    for name, cases in groups.items():
        outcomes: list[Outcome] = [judge(prepare(case), DEFAULT_TUNING) for case in cases]
        s = summarise(outcomes)
        lines.append(
            f"| {name} | {s.cases} | {s.exact:.0%} | {s.within_one:.0%} | {s.clear_at_gold:.0%} |"
        )
        if name.startswith("labelled"):
            lines += [_labelled_row(outcome) for outcome in outcomes]
    return "\n".join(lines)


def _labelled_row(outcome: Outcome) -> str:
    near = outcome.distance is not None and outcome.distance <= 1
    return (
        f"|  {outcome.case.name} | gold {outcome.gold} | pick {outcome.pick} "
        f"| {'yes' if near else 'no'} | {outcome.grade or '-'} |"
    )


def _singles(cases: list[Case]) -> str:
    counts = [clear_zone_count(prepare(case), DEFAULT_TUNING) for case in cases]
    with_clear = sum(1 for n in counts if n)
    return (
        f"unstitched sessions: {len(cases)}; with a {Grade.CLEAR.value} zone: {with_clear}; "
        f"{Grade.CLEAR.value} zones in all: {sum(counts)}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
