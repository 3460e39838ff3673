"""keepd's own tables on sessions: picks at the junction, grades there, and unstitched sessions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from keepd.core.grade import DEFAULT_TUNING, Grade
from keepd.evaluate.markdown import percent, share, table
from keepd.evaluate.score import (
    Outcome,
    Prepared,
    clear_zone_count,
    grading_of,
    judge,
    judge_outranking,
    summarise,
)

GRADES = (Grade.CLEAR.value, Grade.SUBTOPIC.value, Grade.FAINT.value)


@dataclass(frozen=True, slots=True)
class GroupCases:
    """Prepared cases under one title; `held_out` when no constant was chosen on them."""

    title: str
    held_out: bool
    cases: list[Prepared]
    independent: bool = False  # each piece its own tail

    @property
    def label(self) -> str:
        return f"{'held out' if self.held_out else 'calibration'}: {self.title}"


def outcomes(group: GroupCases) -> list[Outcome]:
    return [judge(case, DEFAULT_TUNING) for case in group.cases]


JOIN_HEADERS = [
    "cases",
    "n",
    "pick at the gold",
    "within one stop",
    "gold moved off the junction",
    "junction alone: at / within one",
    "junction graded ●●●",
]


def join_row(label: str, cases: Sequence[Prepared]) -> list[object]:
    """A group of joins scored against their gold, with the junction alone beside it."""
    s = summarise([judge(case, DEFAULT_TUNING) for case in cases])
    return [
        label,
        s.cases,
        percent(s.exact),
        percent(s.within_one),
        s.moved,
        f"{percent(s.junction_exact)} / {percent(s.junction_within_one)}",
        percent(s.clear_at_gold),
    ]


def pick_table(groups: Sequence[GroupCases]) -> str:
    """Picks against each join's gold (from the labels of its own side of the split) and
    against the junction alone."""
    return table(JOIN_HEADERS, [join_row(group.label, group.cases) for group in groups])


def grade_table(groups: Sequence[GroupCases]) -> str:
    """How the zone at (or next to) the junction is graded, and the grade of the pick."""
    rows = []
    for group in groups:
        found = outcomes(group)
        at_gold = Counter(o.gold_grade for o in found)
        picked = Counter(o.grade for o in found)
        n = len(found) or 1
        rows.append(
            [group.label, len(found)]
            + [percent(at_gold[g] / n) for g in (*GRADES, None)]
            + [percent(picked[g] / n) for g in (Grade.CLEAR.value, Grade.SUBTOPIC.value, None)]
        )
    headers = ["cases", "n", "junction ●●●", "●●", "●", "no zone", "pick ●●●", "pick ●●", "no pick"]
    return table(headers, rows)


def labelled_table(cases: Sequence[Prepared]) -> str:
    rows = []
    for case in cases:
        o = judge(case, DEFAULT_TUNING)
        near = o.distance is not None and o.distance <= 1
        pick = grading_of(case).pick
        rows.append(
            [
                case.case.name,
                len(case.turns),
                o.gold,
                "-" if o.pick is None else o.pick,
                o.grade or "-",
                pick.event.value if pick is not None and pick.event is not None else "-",
                "yes" if near else "no",
                o.gold_grade or "-",
            ]
        )
    headers = [
        "session",
        "stops",
        "labelled stop",
        "pick",
        "pick grade",
        "made by an event",
        "within one",
        "grade there",
    ]
    return table(headers, rows)


def singles_line(cases: Sequence[Prepared]) -> str:
    counts = [clear_zone_count(case, DEFAULT_TUNING) for case in cases]
    picks = [grading_of(case).pick for case in cases]
    picked = sum(1 for pick in picks if pick is not None)
    by_event = sum(1 for pick in picks if pick is not None and pick.event is not None)
    clear = Grade.CLEAR.value
    return (
        f"Of the {len(cases)} unstitched sessions (whole history), "
        f"{share(sum(1 for n in counts if n), len(cases))} get a {clear} zone "
        f"({sum(counts)} {clear} zones in all) and {share(picked, len(cases))} get a pick: "
        f"{picked - by_event} a ●● or {clear} zone, {by_event} an event."
    )


def outranking_table(groups: Sequence[GroupCases], labelled: Sequence[Prepared]) -> str:
    """keepd's rule (events pick only when no zone reaches ●●) beside events outranking ●●
    zones, on the labelled sessions and the joins of tails 8-15."""
    rows = [_outranking_row("labelled (--whole)", labelled)]
    rows += [_outranking_row(group.label, group.cases) for group in groups if not group.independent]
    headers = ["cases", "n", "at the gold stop", "within one", "outranking: at it", "within one"]
    return table(headers, rows)


def _outranking_row(label: str, cases: Sequence[Prepared]) -> list[object]:
    rule = summarise([judge(case, DEFAULT_TUNING) for case in cases])
    variant = summarise([judge_outranking(case, DEFAULT_TUNING) for case in cases])
    return [
        label,
        rule.cases,
        percent(rule.exact),
        percent(rule.within_one),
        percent(variant.exact),
        percent(variant.within_one),
    ]
