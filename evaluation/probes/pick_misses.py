"""`python -m evaluation.probes.pick_misses`: why the pick misses, on calibration data only.

Every labelled session whose pick is not within one of both readers' newest piece, and every
calibration join whose pick is not within one of its gold (evaluation/piece_gold.py), each
pick made by the chosen newest-work model fitted without the sessions in the case (as
`python -m evaluation.fit_newest` validates it), sorted into causes: where the pick lies
against the junction and the gold, whether the readers marked the stop it chose, and whether
anything the model reads marks the gold (cue points, a zone). Joins are counted by their tail
too: joins of one tail share its stops and miss together. Nothing held out is read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation import labels
from evaluation.fit_newest import (
    CHOSEN,
    CHOSEN_FLOOR,
    Case,
    Data,
    Fitter,
    data_from_args,
    floored,
)
from evaluation.markdown import table
from keepd.core.newest import POINTS, ZONE_FEATURES, Newest, chances

RIGHT = "within one"
NO_PICK = "no pick"
EARLIER_PIECE = "in an earlier piece"
AT_JUNCTION = "at the junction, the gold a later task of the tail"
BETWEEN = "between the junction and the gold"
AFTER_MARKED = "after the gold, at a stop a reader marked (a step or one reader's task)"
AFTER_UNMARKED = "after the gold, at a stop no reader marked"
EARLIER = "before the newest"
LATER = "after the newest"


def join_cause(pick: int | None, gold: Sequence[int], junction: int, marked: bool) -> str:
    """Where a join's pick lies against its junction and gold; `marked`: a reader of the
    tail's session marked the picked stop.

    >>> join_cause(9, (9,), 5, False), join_cause(5, (12,), 5, False)
    ('within one', 'at the junction, the gold a later task of the tail')
    >>> join_cause(8, (12,), 5, False), join_cause(2, (5,), 5, False)
    ('between the junction and the gold', 'in an earlier piece')
    """
    if pick is None:
        return NO_PICK
    if min(abs(pick - k) for k in gold) <= 1:
        return RIGHT
    if pick < junction - 1:
        return EARLIER_PIECE
    if abs(pick - junction) <= 1 and min(gold) > junction + 1:
        return AT_JUNCTION
    if pick < min(gold):
        return BETWEEN
    return AFTER_MARKED if marked else AFTER_UNMARKED


@dataclass(frozen=True, slots=True)
class Seen:
    """What the model reads at a stop: its cue points, a zone there, and its chance p_k."""

    points: float
    zone: str
    chance: float

    def cell(self) -> str:
        return f"{self.points:g} pts, {self.zone}, p {self.chance:.2f}"


def seen(case: Case, model: Newest, k: int) -> Seen:
    values = {name: np.asarray(v, dtype=np.float64) for name, v in case.columns}
    zone = next((name for name in ZONE_FEATURES if values[name][k] > 0), "no zone")
    p = chances(model, case.columns, len(case.sc))
    return Seen(float(values[POINTS][k]), zone, float(p[k]))


def labelled_rows(data: Data, model: Fitter) -> list[list[str]]:
    """One row per labelled session whose pick misses the readers' newest piece."""
    out = []
    for item in data.labelled:
        case, newest = data.cases[item.name], item.newest()
        fitted = model(frozenset({item.name}))
        pick = case.pick(fitted)
        if newest is None or labels.pick_near(newest, pick) is not False:
            continue
        kinds = {reader.kinds.get(newest[i], "-") for i, reader in enumerate(item.readers)}
        side = NO_PICK if pick is None else EARLIER if pick < min(newest) else LATER
        at = seen(case, fitted, max(newest))
        out.append(
            [
                item.name,
                "/".join(map(str, sorted(set(newest)))),
                " / ".join(sorted(kinds)),
                "-" if pick is None else str(pick),
                side,
                at.cell(),
                "-" if pick is None else seen(case, fitted, pick).cell(),
            ]
        )
    return out


@dataclass(frozen=True, slots=True)
class JoinMiss:
    """One calibration join's pick, its cause, and what the model reads at its gold."""

    group: str
    tail: str
    cause: str
    moved: bool  # the gold is not the junction alone: a task inside the tail
    gold_zone: str


def join_misses(data: Data, model: Fitter, marks: Mapping[str, bool]) -> list[JoinMiss]:
    """Every calibration join's cause (right ones too); `marks`: the uuids a reader marked."""
    out = []
    for title, cases in data.joins.items():
        for case in cases:
            fitted = model(case.sessions)
            pick = case.pick(fitted)
            junction = max(i for i, u in enumerate(case.uuids) if u in case.junctions)
            marked = pick is not None and bool(marks.get(case.uuids[pick] or "", False))
            cause = join_cause(pick, case.gold, junction, marked)
            zones = [seen(case, fitted, k).zone for k in case.gold]
            zone = next((z for z in zones if z != "no zone"), "no zone")
            moved = tuple(case.gold) != (junction,)  # as `python -m evaluation` counts
            out.append(JoinMiss(title, case.tail, cause, moved, zone))
    return out


def reader_marks(data: Data) -> dict[str, bool]:
    """The prompt uuids either reader of a calibration session marked, any kind."""
    out = {}
    for item in data.labelled:
        for k in item.boundaries():
            uuid = item.prepared.uuids[k]
            if uuid is not None:
                out[uuid] = True
    return out


CAUSES = [RIGHT, AT_JUNCTION, BETWEEN, EARLIER_PIECE, AFTER_MARKED, AFTER_UNMARKED, NO_PICK]


def cause_table(misses: Sequence[JoinMiss], groups: Sequence[str]) -> str:
    """Joins by cause, per group, and those whose gold moved off the junction."""
    rows = []
    for cause in CAUSES:
        cells = []
        for group in groups:
            found = [m for m in misses if m.group == group and m.cause == cause]
            cells.append(f"{len(found)} ({sum(m.moved for m in found)})")
        rows.append([cause, *cells])
    totals = [
        f"{sum(m.group == g for m in misses)} ({sum(m.moved and m.group == g for m in misses)})"
        for g in groups
    ]
    rows.append(["all joins", *totals])
    return table(["cause", *groups], rows)


def zone_table(misses: Sequence[JoinMiss], groups: Sequence[str]) -> str:
    """The missed joins by what the model reads at their gold."""
    wrong = [m for m in misses if m.cause != RIGHT]
    zones = Counter(m.gold_zone for m in wrong)
    rows = [
        [zone, *(str(sum(m.gold_zone == zone and m.group == g for m in wrong)) for g in groups)]
        for zone, _ in zones.most_common()
    ]
    return table(["zone at the gold", *groups], rows)


def tail_table(misses: Sequence[JoinMiss]) -> str:
    """The tails whose joins miss, all groups together, most misses first."""
    by_tail: dict[str, list[JoinMiss]] = {}
    for m in misses:
        by_tail.setdefault(m.tail, []).append(m)
    rows = []
    for tail, found in sorted(
        by_tail.items(), key=lambda kv: -sum(m.cause != RIGHT for m in kv[1])
    ):
        wrong = Counter(m.cause for m in found if m.cause != RIGHT)
        if wrong:
            causes = "; ".join(f"{cause} {n}" for cause, n in wrong.most_common())
            rows.append([tail, str(len(found)), str(sum(wrong.values())), causes])
    return table(["tail (last piece)", "joins", "missed", "causes"], rows)


def report(data: Data) -> str:
    model = floored(data.model(CHOSEN), CHOSEN_FLOOR)
    misses = join_misses(data, model, reader_marks(data))
    groups = list(data.joins)
    labelled = table(
        [
            "session",
            "newest",
            "readers call it",
            "pick",
            "pick lies",
            "at the newest",
            "at the pick",
        ],
        labelled_rows(data, model),
    )
    return "\n\n".join(
        [
            "labelled sessions whose pick misses the newest piece (leave one project out):",
            labelled,
            "calibration joins by cause (in brackets: of them, gold moved off the junction):",
            cause_table(misses, groups),
            "missed joins by what the model reads at their gold:",
            zone_table(misses, groups),
            "missed joins by tail:",
            tail_table(misses),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    data = data_from_args("probes.pick_misses", __doc__, argv)
    if data is None:
        return 2
    print(report(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
