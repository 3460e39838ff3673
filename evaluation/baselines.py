"""Trivial picks and trivial grades, scored against the readers' labels beside keepd's own: the
figures keepd must beat (issue 27).

A trivial pick names a stop by its position alone (the last stop, two before the end, the
middle...); a trivial grade puts ●●● where a rule with no model would (every stop, every fifth
stop, every long pause, as many random stops as keepd gives). Each is scored by the same counts
as keepd (`labels.score_stops`): task switches with ●●● within one stop, ●●● zones at a reader
boundary, the pick within one stop of the readers' newest piece. None has a constant chosen on
any data but the fifth stop and the half hour, which are round numbers nobody tuned.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from evaluation import fit_newest, fit_points, labels
from evaluation.labels import Labelled, LabelSummary, SessionScore
from evaluation.markdown import table
from evaluation.score import Prepared

Picker = Callable[[int], int | None]  # a session's stop count -> the stop picked


PICKS: dict[str, Picker] = {
    "the last stop": lambda n: n - 1,
    "one before the end": lambda n: max(n - 2, 0),
    "two before the end": lambda n: max(n - 3, 0),
    "three before the end": lambda n: max(n - 4, 0),
    "five before the end": lambda n: max(n - 6, 0),
    "the middle stop": lambda n: n // 2,
    "no pick (the whole session one piece)": lambda n: None,
}
EVERY = 5  # stops between ●●● zones of "every fifth stop"
LONG_PAUSE = 30 * 60  # seconds: "every pause of half an hour or more"


def _every_stop(case: Labelled, keepd: int) -> list[int]:
    return list(range(1, _stops(case)))


def _every_fifth(case: Labelled, keepd: int) -> list[int]:
    return list(range(EVERY, _stops(case), EVERY))


def _long_pauses(case: Labelled, keepd: int) -> list[int]:
    cues = case.prepared.cues
    if cues is None or cues.pause is None:
        return []
    pause = np.nan_to_num(cues.pause)
    return [int(k) for k in np.flatnonzero(pause >= LONG_PAUSE) if k > 0]


def _random_stops(case: Labelled, keepd: int) -> list[int]:
    stops = list(range(1, _stops(case)))
    rng = random.Random(f"{case.name}:{keepd}")  # fixed: the same draw every run
    return sorted(rng.sample(stops, min(keepd, len(stops))))


def _stops(case: Labelled) -> int:
    return len(case.prepared.curve)


Grader = Callable[[Labelled, int], list[int]]  # a session, keepd's ●●● count -> ●●● stops
GRADES: dict[str, Grader] = {
    "●●● at every stop": _every_stop,
    f"●●● at every {EVERY}th stop": _every_fifth,
    "●●● after every pause of 30+ minutes": _long_pauses,
    "●●● at random stops, as many as keepd's": _random_stops,
}


@dataclass(frozen=True, slots=True)
class Row:
    """One rule's summary over a side's labelled sessions; which of its columns it fills."""

    name: str
    summary: LabelSummary
    grades: bool
    picks: bool
    hits: tuple[bool, ...] = ()  # per session whose readers' newest agree: the pick within one


def baselines(cases: Sequence[Labelled], keepd: Sequence[SessionScore]) -> list[Row]:
    """Every trivial pick and grade over `cases` (`keepd`: keepd's scores of the same cases,
    whose ●●● count the random grade matches)."""
    count = {s.name: len(s.clear) for s in keepd}
    rows = [
        _pick_row(name, [labels.score_stops(c, [], pick(_stops(c))) for c in cases])
        for name, pick in PICKS.items()
    ]
    rows += [
        Row(
            name,
            labels.summarise([labels.score_stops(c, rule(c, count[c.name]), None) for c in cases]),
            True,
            False,
        )
        for name, rule in GRADES.items()
    ]
    return rows


def _pick_row(name: str, scores: Sequence[SessionScore], grades: bool = False) -> Row:
    return Row(name, labels.summarise(scores), grades, True, _hits(scores))


def _hits(scores: Sequence[SessionScore]) -> tuple[bool, ...]:
    return tuple(s.pick_near for s in scores if s.pick_near is not None)


def best_pick(rows: Sequence[Row]) -> Row:
    """The trivial pick within one of the newest most often."""
    return max((r for r in rows if r.picks), key=lambda r: r.summary.picks_near)


def rows_table(rows: Sequence[Row]) -> str:
    """keepd's rows and the baselines': task switches found, ●●● at a boundary, the pick."""
    found = []
    for row in rows:
        s = row.summary
        cells = ["-", "-", "-"]
        if row.grades:
            cells[0] = f"{s.found}/{s.switches} ({s.found_share:.0%})"
            cells[1] = f"{s.clear - s.false_clear}/{s.clear} ({s.clear_at_boundary:.0%})"
        if row.picks:
            cells[2] = f"{s.picks_near}/{s.sessions} ({s.pick_share:.0%})"
        found.append([row.name, *cells])
    return table(HEADERS, found)


HEADERS = [
    "rule",
    "task switches with ●●● within one",
    "●●● zones at a reader boundary",
    "pick within one of the newest",
]


def verdict(keepd: Row, rows: Sequence[Row]) -> str:
    """Whether keepd's pick beats every trivial pick, in one line, with the sessions only one of
    keepd and the best trivial pick gets right: on a few dozen sessions a lead of a pick or two
    is what chance gives (the sign test's two-sided p on those sessions says how often)."""
    best = best_pick(rows)
    k, b = keepd.summary, best.summary
    beats = "beats" if k.picks_near > b.picks_near else "does not beat"
    line = (
        f"{keepd.name}: the pick within one of the newest in {k.picks_near}/{k.sessions}; "
        f"it {beats} the best trivial pick ({best.name}, {b.picks_near}/{b.sessions})"
    )
    if len(keepd.hits) != len(best.hits) or not keepd.hits:
        return line
    only_keepd = sum(a and not t for a, t in zip(keepd.hits, best.hits, strict=True))
    only_best = sum(t and not a for a, t in zip(keepd.hits, best.hits, strict=True))
    return (
        f"{line}; right where the other is not: keepd {only_keepd}, {best.name} {only_best} "
        f"(sign test p = {sign_test(only_keepd, only_best):.2f})"
    )


def sign_test(wins: int, losses: int) -> float:
    """The two-sided exact sign test's p for `wins` against `losses` (ties left out): how often
    two rules equally often right would split their disagreements at least this unevenly.

    >>> sign_test(9, 9)
    1.0
    >>> round(sign_test(14, 5), 3)
    0.064
    >>> sign_test(0, 0)
    1.0
    """
    n = wins + losses
    if n == 0:
        return 1.0
    low = min(wins, losses)
    tail: float = sum(math.comb(n, k) for k in range(low + 1)) / 2**n
    return min(1.0, 2 * tail)


def points_left_out(cases: Sequence[Labelled]) -> list[SessionScore]:
    """keepd's grades with the cues' points fitted and the ●●● total chosen left one project
    out (fit_points), the newest-work model as shipped."""
    sessions = [fit_points.stops_of(case) for case in cases]
    return fit_points.cross_validated(sessions, fit_points.kept(sessions))


def newest_left_out(
    cases: Sequence[Labelled], joins: dict[str, list[Prepared]]
) -> tuple[LabelSummary, tuple[bool, ...]]:
    """keepd's pick with the newest-work model fitted left one project out (fit_newest's chosen
    setting on the labelled sessions and the calibration joins `joins`), the points as
    shipped: only the pick's columns are filled; beside it, each judged session's hit."""
    found = {c.name: fit_newest.case_of(c.prepared, {c.name}) for c in cases}
    stitched = {
        title: [fit_newest.case_of(p, p.case.pieces) for p in group]
        for title, group in joins.items()
    }
    data = fit_newest.Data(list(cases), found, stitched)
    model = fit_newest.floored(data.model(fit_newest.CHOSEN), fit_newest.CHOSEN_FLOOR)
    hits = fit_newest.figures(data.labelled, data.cases, data.joins, model).labelled.hits
    return LabelSummary(0, 0, 0, 0, len(hits), sum(hits)), hits


def against(
    found: Sequence[Labelled],
    scores: Sequence[SessionScore],
    joins: dict[str, list[Prepared]] | None,
) -> list[str]:
    """keepd's rows (on calibration: as shipped, in sample, then each fit left one project out)
    and every baseline's, then whether keepd's pick beats them."""
    shipped = "keepd as shipped" + (" (chosen on these sessions)" if joins is not None else "")
    rows = [_pick_row(shipped, scores, grades=True)]
    if joins is not None:
        points = points_left_out(found)
        rows.append(_pick_row("keepd, points and ●●● total left one project out", points, True))
        newest, hits = newest_left_out(found, joins)
        rows.append(Row("keepd, newest-work model left one project out", newest, False, True, hits))
    trivial = baselines(found, scores)
    return [
        rows_table([*rows, *trivial]),
        "",
        *(verdict(row, trivial) for row in rows if row.picks),
    ]
