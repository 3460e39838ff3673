"""`python -m evaluation.probes.late_pick`: the pick's move to a stop among the newest whose cues'
points alone reach a total (core/sure.py `later_cued`), each window and total, in sample and
left one project out on the calibration sessions (boundaries.json) only.

The newest prompts keep too few words for the curve to grade a zone there, so neither the
newest-work model nor the move to a later sure ●●● zone can name one, while the trivial pick
"one before the end" is right wherever the newest piece began among the last three stops. The
move names such a stop where its cues say so. For each setting (`Tuning.late_stops`, the window
of stops before the newest; `Points.late`, the total; window 0: the move off, keepd before it):
the readers' three figures with keepd's points (in sample) and with the cues' points and ●●●
total refitted on the other projects (fit_points.cross_validated's fit), then the setting
chosen for each project left out on the other projects' sessions under that fold's points (the
most picks within one of the readers' newest; ties to the earlier setting), the sums over
projects its figure, beside the best trivial pick. Nothing held out is read.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from collections.abc import Sequence
from pathlib import Path

from evaluation import baselines, fit_points, labels
from evaluation.cases import project_folds, shared_or_none
from evaluation.labels import Labelled, SessionScore
from evaluation.markdown import table
from keepd.core.grade import DEFAULT_TUNING, Tuning

Setting = tuple[int, float]  # (late_stops, late)
GRID = itertools.product((1, 2, 3, 5, 8), (2.0, 2.5, 3.0, 3.5))
SETTINGS: list[Setting] = [(0, DEFAULT_TUNING.points.late), *GRID]


def tuned(setting: Setting) -> Tuning:
    stops, late = setting
    points = dataclasses.replace(DEFAULT_TUNING.points, late=late)
    return dataclasses.replace(DEFAULT_TUNING, late_stops=stops, points=points)


def by_fold(
    sessions: Sequence[fit_points.Stops], folds: list[list[int]], base: Tuning
) -> list[list[SessionScore]]:
    """For each fold, every session graded with the points fitted and the ●●● total chosen on
    the sessions of the other projects (as fit_points.cross_validated fits them)."""
    keep = list(sessions[0].fields)
    cases = [s.case for s in sessions]
    out = []
    for fold in folds:
        rest = [s for j, s in enumerate(sessions) if j not in fold]
        points = fit_points.table_of(fit_points.fitted(rest, keep), keep, keep, base.points)
        total = fit_points.chosen_total([s.case for s in rest], points, base)
        out.append(fit_points.scores(cases, dataclasses.replace(points, clear=total), base))
    return out


def _near(score: SessionScore) -> int:
    return 1 if score.pick_near else 0


def report(cases: Sequence[Labelled]) -> str:
    sessions = [fit_points.stops_of(case) for case in cases]
    folds = project_folds([case.name for case in cases])
    per = {setting: by_fold(sessions, folds, tuned(setting)) for setting in SETTINGS}
    rows = []
    for setting in SETTINGS:
        base = tuned(setting)
        stops, late = setting
        name = f"{stops} stops, {late:g} points" if stops else "off (keepd before)"
        left = [per[setting][f][i] for f, fold in enumerate(folds) for i in fold]
        rows.append(
            [name, "in sample", *fit_points.figures(fit_points.scores(cases, base.points, base))]
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
    parser = argparse.ArgumentParser(prog="python -m evaluation.probes.late_pick")
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "late_pick")
    if shared is None:
        return 2
    source = next(s for s in labels.sources(shared) if not s.held_out)
    print(report(labels.load(shared, source.path)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
