"""Measures rules for when the reader's answer is taken (keepd/core/reader.py `takes`), on the
recorded answers, each rule in sample and the rule chosen left one project out.

Today's rule takes the reader's task start unless the curve measures the kept part leaning
on the past (keepd/core/reader.py `takes`), its step only where the curve says the stop is
safe; the rule applies to the pick and to the ●●● zones the reader's task starts become. Each
rule here is scored on the three figures of evaluation/reader.py; left one project
out, the rule with the most picks within one on the other projects (ties: the earlier in
`RULES`, today's first) is applied to the project left out. Choose on calibration only;
`--held-out` prints held out once, for checking. `python -m evaluation.probes.reader_merge`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation.cases import project
from evaluation.reader import ANSWERS, Tally, tally
from keepd.core.analysis import Analysis, Stop
from keepd.core.grade import DEFAULT_TUNING
from keepd.core.reader import TASK, Rule, merged, parse_answer, request_sha256, safe, takes
from keepd.ops.reader import load_record, read_for_reader


def _floors(stop: Stop, analysis: Analysis) -> bool:
    """Grading's floors only: no check that the kept part leans harder on the past."""
    if stop.sc is None or stop.kept < DEFAULT_TUNING.min_kept_uses:
        return False
    return stop.eligible or stop.below == 0


def _no_floor(stop: Stop, analysis: Analysis) -> bool:
    """Today's check of the fall into the stop, without grading's floors."""
    return safe(stop, analysis) or (stop.sc is not None and _not_falling(stop, analysis))


def _not_falling(stop: Stop, analysis: Analysis) -> bool:
    at = next((k for k, s in enumerate(analysis.stops) if s is stop), 0)
    before = analysis.stops[at - 1] if at else None
    if before is None or before.sc is None or stop.sc is None:
        return True
    return stop.sc >= before.sc - (analysis.wiggle or 0.0)


def _any(stop: Stop, analysis: Analysis) -> bool:
    return True


def _not_first(stop: Stop, analysis: Analysis) -> bool:
    return bool(analysis.stops) and stop is not analysis.stops[0]


def _not_newest(stop: Stop, analysis: Analysis) -> bool:
    return stop.below != 0


def _newest_task(stop: Stop, analysis: Analysis, kind: str) -> bool:
    """Today's, and a task start at the newest prompt too (the curve cannot measure the part
    kept after it: only the reader says a new task begins there)."""
    return takes(stop, analysis, kind) or (kind == TASK and stop.below == 0)


def _kindless(rule: Callable[[Stop, Analysis], bool]) -> Rule:
    """A rule that takes a task start and a step alike."""
    return lambda stop, analysis, kind: rule(stop, analysis)


RULES: dict[str, Rule] = {
    "today's (a task unless the curve measures a lean, a step where safe)": takes,
    "safe, task or step (before)": _kindless(safe),
    "floors only": _kindless(_floors),
    "no fall only (floors dropped)": _kindless(_no_floor),
    "any stop the reader names": _kindless(_any),
    "any but the first stop": _kindless(_not_first),
    "any but the newest prompt": _kindless(_not_newest),
    "today's, and a task start at the newest prompt": _newest_task,
}


@dataclass(frozen=True, slots=True)
class Scored:
    """One session's three figures under each rule."""

    name: str
    by_rule: dict[str, Tally]


def scored(sessions: Path, labels: Mapping[str, Any], answers: Path = ANSWERS) -> list[Scored]:
    """Every labelled session with a recorded whole-history answer, under every rule."""
    out = []
    for name, label in sorted(labels.items()):
        if not (sessions / name).is_file():
            continue
        read = read_for_reader(sessions / name, whole=True)
        sha = request_sha256(read.request)
        if not (answers / f"{sha}.json").is_file():
            continue
        answer = parse_answer(str(load_record(answers / f"{sha}.json", sha)["answer"]), read.rows)
        if answer is None:
            continue
        by_rule = {
            title: tally(merged(read.analysis, read.rows, answer, "probe", sha, rule=rule), label)
            for title, rule in RULES.items()
        }
        out.append(Scored(name, by_rule))
    return out


def total(found: list[Scored], title: str) -> Tally:
    out = Tally()
    for one in found:
        out.add(one.by_rule[title])
    return out


def left_out(found: list[Scored]) -> tuple[Tally, dict[str, int]]:
    """The rule chosen on the other projects applied to each project, and how often each
    rule was chosen (by project)."""
    out, chosen = Tally(), dict.fromkeys(RULES, 0)
    for name in sorted({project(one.name) for one in found}):
        rest = [one for one in found if project(one.name) != name]
        order = list(RULES)
        best = max(order, key=lambda title: (total(rest, title).pick_near, -order.index(title)))
        chosen[best] += 1
        for one in found:
            if project(one.name) == name:
                out.add(one.by_rule[best])
    return out, chosen


def differing(found: list[Scored], a: str, b: str) -> list[str]:
    """The sessions whose pick is within one under one rule and not the other."""
    return [
        f"  {one.name}: {a[:20]}… {bool(one.by_rule[a].pick_near)}, {b[:20]}… "
        f"{bool(one.by_rule[b].pick_near)}"
        for one in found
        if one.by_rule[a].pick_near != one.by_rule[b].pick_near
    ]


def report(found: list[Scored], role: str, lopo: bool) -> str:
    lines = [f"{role}: {len(found)} sessions with a recorded answer"]
    lines += [f"  {title}: {total(found, title).line()}" for title in RULES]
    if lopo:
        chosen, counts = left_out(found)
        by = ", ".join(f"{title} {n}" for title, n in counts.items() if n)
        lines.append(f"  the rule chosen left one project out: {chosen.line()} (chosen: {by})")
    today, every = next(iter(RULES)), "any stop the reader names"
    lines += [f"where {today} and {every} differ on the pick:", *differing(found, today, every)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from evaluation.cases import shared_or_none, side_labels

    parser = argparse.ArgumentParser(prog="python -m evaluation.probes.reader_merge")
    parser.add_argument("--shared", type=Path, help="the shared folder (default: found)")
    parser.add_argument("--held-out", action="store_true", help="also held out, once")
    parser.add_argument(
        "--answers", type=Path, default=ANSWERS, metavar="DIR", help="the answers to score"
    )
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, parser.prog)
    if shared is None:
        return 1
    sessions = shared / "corpus" / "sessions"
    print(report(scored(sessions, side_labels(shared, False), args.answers), "calibration", True))
    if args.held_out:
        held_out = scored(sessions, side_labels(shared, True), args.answers)
        print(report(held_out, "held out", False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
