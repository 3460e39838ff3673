"""`python -m evaluation.probes.late_pick`: the pick's move to a stop among the newest whose cues'
points alone reach a total (`later_cued` below; measured, not shipped), each window and total,
in sample and left one project out on the calibration sessions (boundaries.json) only.

The newest prompts keep too few words for the curve to grade a zone there, so neither the
newest-work model nor the move to a later sure ●●● zone can name one, while the trivial pick
"one before the end" is right wherever the newest piece began among the last three stops. The
move names such a stop where its cues say so. For each setting (the window of stops before the
newest and the total; window 0: the move off, keepd as shipped): the readers' three figures
with keepd's points (in sample) and with the cues' points and ●●● total refitted on the other
projects (fit_points.cross_validated's fit, the total chosen under the move), then the setting
chosen for each project left out on the other projects' sessions under that fold's points (the
most picks within one of the readers' newest; ties to the earlier setting), the sums over
projects its figure, beside the best trivial pick. Nothing held out is read. Held out, checked
once after the choice, the move did not carry, so keepd does not make it (docs/figures.md,
second round of issue 27).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from evaluation import baselines, fit_points, labels
from evaluation.cases import project_folds
from evaluation.labels import Labelled, SessionScore
from evaluation.markdown import table
from evaluation.score import Prepared
from keepd.core.cued import bare_stops
from keepd.core.grade import (
    DEFAULT_TUNING,
    Grade,
    Grading,
    Tuning,
    Zone,
    before_pick,
    fallback_pick,
)
from keepd.core.newest_pick import Chosen, newest_pick
from keepd.core.points import Points, Scored
from keepd.core.settle import closing_prompts, settled
from keepd.core.sure import later_sure, sure_cues, sure_only

Setting = tuple[int, float]  # (the window of stops before the newest, the total)
OFF: Setting = (0, 2.5)  # the move off: keepd as shipped
GRID = itertools.product((1, 2, 3, 5, 8), (2.0, 2.5, 3.0, 3.5))
SETTINGS: list[Setting] = [OFF, *GRID]
FloatArray = npt.NDArray[np.float64]


def later_cued(
    pick: Zone | None,
    zones: list[Zone],
    scored: Scored,
    heights: FloatArray,
    *,
    setting: Setting,
    cues: frozenset[str],
    height: float,
    bare: npt.NDArray[np.bool_],
) -> tuple[Zone | None, list[Zone]]:
    """The pick moved to the latest stop after it among the window's stops before the newest
    or at it whose cues' points reach the total, and the zones with one there. A ●● or ●●●
    zone there is the pick; else a zone made there is ●●● where it names one of `cues` (or the
    words stand `height` wiggles high), ●● where not. A prompt with no content of its own
    (`bare`) is no stop to move to, nor the newest prompt after one. Window 0: as they were.

    >>> from keepd.core.points import Signal
    >>> present = np.array([False, True, False, False, True, False])
    >>> scored = Scored(3.0 * present, [Signal("pause", "pause", 3.0, present)])
    >>> early = Zone(1, 1, 1, Grade.CLEAR, 2.0, reasons=("pause",))
    >>> none = np.zeros(6, dtype=bool)
    >>> kw = dict(cues=frozenset({"pause"}), height=1e9, bare=none)
    >>> pick, zones = later_cued(early, [early], scored, np.zeros(6), setting=(3, 3.0), **kw)
    >>> pick.best, pick.grade.value, pick.reasons, [z.best for z in zones]
    (4, '●●●', ('pause',), [1, 4])
    >>> later_cued(early, [early], scored, np.zeros(6), setting=(0, 3.0), **kw)[0].best
    1
    """
    recent, total = setting
    stops = len(scored.totals)
    if recent <= 0 or stops == 0:
        return pick, zones
    newest = stops - 1
    after = -1 if pick is None else pick.best
    found = [
        k
        for k in range(max(after + 1, newest - recent, 1), newest + 1)
        if scored.totals[k] >= total and not bare[k] and not (k == newest and bare[k - 1])
    ]
    if not found:
        return pick, zones
    k = found[-1]
    here = next((z for z in zones if z.best == k and z.grade is not Grade.FAINT), None)
    if here is not None:
        return here, zones
    made = Zone(k, k, k, Grade.CLEAR, round(float(heights[k]), 2), reasons=scored.reasons(k))
    made = sure_only(made, [], cues, height)[0] or made
    kept = [zone for zone in zones if zone.best != k]
    return made, sorted([*kept, made], key=lambda zone: zone.best)


def moved(p: Prepared, tuning: Tuning, setting: Setting) -> Grading:
    """keepd's grade() of a session with the move made after the move to a later sure break,
    before the pick settles (where the branch that measured it made it). No trade: the figures
    read only the zones and the pick."""
    curve, frees, events, cues = p.curve, p.frees, p.events, p.cues
    graded = before_pick(curve, frees, tuning, events, cues)
    eligible, zones, pick = graded.eligible, graded.zones, None
    bare = bare_stops(cues, len(curve))
    if tuning.newest is not None and graded.scored is not None and cues is not None:
        chosen = Chosen(graded.zones, graded.scored, graded.heights, graded.wiggle)
        pick, zones = newest_pick(chosen, curve, frees, tuning=tuning, events=events, cues=cues)
    if pick is None:
        pick, zones = fallback_pick(
            zones, curve, frees, tuning=tuning, events=events, heights=graded.heights, bare=bare
        )
    if graded.scored is not None:
        sure = sure_cues(tuning.points.sure)
        pick, zones = sure_only(pick, zones, sure, tuning.points.sure_height)
        pick = later_sure(pick, zones, len(curve), tuning.recent, sure)
        pick, zones = later_cued(
            pick,
            zones,
            graded.scored,
            graded.heights,
            setting=setting,
            cues=sure,
            height=tuning.points.sure_height,
            bare=bare,
        )
    pick, zones = settled(pick, zones, closing_prompts(graded.scored, len(curve)))
    eligible[[zone.best for zone in zones]] = True
    return Grading(graded.wiggle, eligible, zones, pick, [])


def scores(
    cases: Sequence[Labelled], points: Points, base: Tuning, setting: Setting
) -> list[SessionScore]:
    """fit_points.scores with the move."""
    tuning = dataclasses.replace(base, points=points)
    return [labels.score_grading(case, moved(case.prepared, tuning, setting)) for case in cases]


def chosen_total(cases: Sequence[Labelled], points: Points, setting: Setting) -> float:
    """fit_points.chosen_total with the move."""
    swept = [
        labels.summarise(
            scores(cases, dataclasses.replace(points, clear=t), DEFAULT_TUNING, setting)
        )
        for t in fit_points.TOTALS
    ]
    return fit_points.TOTALS[fit_points.by_rule(swept)]


def by_fold(
    sessions: Sequence[fit_points.Stops], folds: list[list[int]], setting: Setting
) -> list[list[SessionScore]]:
    """For each fold, every session graded with the points fitted and the ●●● total chosen on
    the sessions of the other projects (as fit_points.cross_validated fits them)."""
    keep = list(sessions[0].fields)
    cases = [s.case for s in sessions]
    out = []
    for fold in folds:
        rest = [s for j, s in enumerate(sessions) if j not in fold]
        fit = fit_points.fitted(rest, keep)
        points = fit_points.table_of(fit, keep, keep, DEFAULT_TUNING.points)
        total = chosen_total([s.case for s in rest], points, setting)
        out.append(scores(cases, dataclasses.replace(points, clear=total), DEFAULT_TUNING, setting))
    return out


def _near(score: SessionScore) -> int:
    return 1 if score.pick_near else 0


def report(cases: Sequence[Labelled]) -> str:
    sessions = [fit_points.stops_of(case) for case in cases]
    folds = project_folds([case.name for case in cases])
    per = {setting: by_fold(sessions, folds, setting) for setting in SETTINGS}
    rows = []
    for setting in SETTINGS:
        stops, late = setting
        name = f"{stops} stops, {late:g} points" if stops else "off (keepd as shipped)"
        left = [per[setting][f][i] for f, fold in enumerate(folds) for i in fold]
        rows.append(
            [
                name,
                "in sample",
                *fit_points.figures(scores(cases, DEFAULT_TUNING.points, DEFAULT_TUNING, setting)),
            ]
        )
        rows.append([name, "left one project out", *fit_points.figures(left)])
    chosen: list[Setting] = []
    found: list[SessionScore] = []
    for f, fold in enumerate(folds):
        rest = [j for j in range(len(cases)) if j not in fold]
        best = max(
            SETTINGS,
            key=lambda s: (sum(_near(per[s][f][j]) for j in rest), -SETTINGS.index(s)),
        )
        chosen.append(best)
        found += [per[best][f][i] for i in fold]
    rows.append(
        ["chosen for each project left out", "left one project out", *fit_points.figures(found)]
    )
    trivial = baselines.best_pick(baselines.baselines(cases, found))
    s = trivial.summary
    rows.append(
        [
            f"best trivial pick: {trivial.name}",
            "-",
            "-",
            "-",
            fit_points.share(s.picks_near, s.sessions),
        ]
    )
    counts = ", ".join(
        f"{stops} stops at {late:g} x{chosen.count((stops, late))}"
        for stops, late in sorted(set(chosen))
    )
    headers = ["the pick's move", "figures", *fit_points.HEADERS[1:]]
    return table(headers, rows) + f"\n\nchosen, one per project left out: {counts}"


def main(argv: list[str] | None = None) -> int:
    calibration = labels.calibration_for("late_pick", argv)
    if calibration is None:
        return 2
    print(report(calibration))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
