"""`python -m evaluation.fit_points`: fits the cues' points (core/points.py) on the calibration
labels and measures the table, in sample and leaving one project out at a time.

The features are every signal `points.score` names, present or not at each usable stop of the
calibration sessions (corpus/labels/boundaries.json); a stop is a task where both readers call
it one (either reader's stop of an agreed pair), a counter-example where no reader marked a
boundary within one stop (the stops between are left out: a ●●● zone there is not wrong). A
logistic model with a ridge penalty (the intercept unpenalised) gives each signal's points,
rounded to halves; the ●●● total is the one that finds the most task switches while ●●● zones
stay at a reader boundary in `FLOOR` or more one standard error down. Cross-validation fits the
points and chooses the total on the sessions of all other projects, then grades the project's
sessions left out: the figures a session of a new project can expect; its last row does the
same with each project's stops weighing as much in the fit as any other project's (one project
gives 8 of the 46 sessions). Held-out labels are never read.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from evaluation import labels, replay
from evaluation.cases import project, project_folds, shared_or_none
from evaluation.labels import Labelled, LabelSummary, SessionScore
from evaluation.logistic import ridge_logistic
from evaluation.markdown import table
from keepd.core.cued import usable_stops
from keepd.core.grade import DEFAULT_TUNING, Tuning, grade, heights
from keepd.core.points import DEFAULT_POINTS, SIGNAL_NAMES, Points, score

FloatArray = npt.NDArray[np.float64]
FLOOR = 0.85  # ●●● zones at a reader boundary, one standard error down (docs/EVALUATION.md)
RIDGE = 1.0
LEFT_OUT: tuple[str, ...] = ()  # signals left out of the fit unless asked for
TOTALS = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)  # the ●●● totals tried


@dataclass(frozen=True, slots=True)
class Stops:
    """One labelled session's usable stops: each signal's presence, and which are tasks."""

    case: Labelled
    fields: tuple[str, ...]  # the `Points` field of each column
    features: FloatArray  # usable stops x signals, 0 or 1
    task: npt.NDArray[np.bool_]


def stops_of(case: Labelled, tuning: Tuning = DEFAULT_TUNING) -> Stops:
    """A session's usable stops and their signals, as `cued.with_points` reads them."""
    p = case.prepared
    assert p.cues is not None
    high = heights(p.curve, p.frees, tuning) >= tuning.subtopic
    signals = score(p.cues, p.events, high, tuning.points, tuning.pause_minutes * 60).signals
    fitted, task = fitted_stops(case, tuning)
    features = np.column_stack([s.present for s in signals]).astype(np.float64)
    return Stops(case, tuple(s.field for s in signals), features[fitted], task[fitted])


def fitted_stops(
    case: Labelled, tuning: Tuning = DEFAULT_TUNING
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Which of a session's stops the fit reads, and which stops are tasks (every stop)."""
    p = case.prepared
    usable = usable_stops(p.curve, p.frees, tuning)
    tasks = {k for pair in case.task_switches() for k in pair}
    task = np.array([k in tasks for k in range(len(p.curve))], dtype=bool)
    marked = case.boundaries()
    near = np.array([any(abs(k - j) <= 1 for j in marked) for k in range(len(p.curve))])
    # A ●●● zone within one stop of any reader's boundary is not wrong: those stops teach the
    # model nothing either way, so only stops no reader marked near them are counter-examples.
    return usable & (task | ~near), task


def fit(
    features: FloatArray,
    task: npt.NDArray[np.bool_],
    ridge: float = RIDGE,
    weights: FloatArray | None = None,
) -> FloatArray:
    """The ridge logistic fit (evaluation/logistic.py), rows weighted by `weights` if given:
    the intercept, then one coefficient per column."""
    return ridge_logistic(features, task, ridge, weights)


def fitted(
    sessions: Sequence[Stops], keep: Sequence[str], ridge: float = RIDGE, by_project: bool = False
) -> FloatArray:
    """The coefficients of the `keep` signals (intercept first), fitted on `sessions`; with
    `by_project`, each project's stops weigh as much in all as any other project's."""
    columns = [sessions[0].fields.index(field) for field in keep]
    features = np.concatenate([s.features[:, columns] for s in sessions])
    task = np.concatenate([s.task for s in sessions])
    return fit(features, task, ridge, project_weights(sessions) if by_project else None)


def project_weights(sessions: Sequence[Stops], projects: Sequence[str] | None = None) -> FloatArray:
    """One weight per usable stop, the same total for every project, averaging 1.

    >>> a = Stops(None, (), np.zeros((3, 0)), np.zeros(3, bool))  # type: ignore[arg-type]
    >>> b = Stops(None, (), np.zeros((1, 0)), np.zeros(1, bool))  # type: ignore[arg-type]
    >>> project_weights([a, b], ["p", "q"]).tolist()
    [0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 2.0]
    """
    names = projects if projects is not None else [project(s.case.name) for s in sessions]
    stops: Counter[str] = Counter()
    for s, name in zip(sessions, names, strict=True):
        stops[name] += len(s.task)
    weights = np.concatenate(
        [np.full(len(s.task), 1.0 / max(stops[n], 1)) for s, n in zip(sessions, names, strict=True)]
    )
    return np.asarray(weights * (len(weights) / weights.sum()), dtype=np.float64)


def table_of(
    coefficients: FloatArray,
    keep: Sequence[str],
    fields: Sequence[str],
    base: Points = DEFAULT_POINTS,
) -> Points:
    """The points table: each kept signal's coefficient rounded to halves, the others 0 (the
    rest of the table, ●●● totals and what makes ●●● sure, from `base`)."""
    points: dict[str, object] = dict.fromkeys(fields, 0.0)
    points.update({f: round(float(c) * 2) / 2 for f, c in zip(keep, coefficients[1:], strict=True)})
    return dataclasses.replace(base, **points)  # type: ignore[arg-type]


def scores(
    cases: Sequence[Labelled], points: Points, base: Tuning = DEFAULT_TUNING
) -> list[SessionScore]:
    tuning = dataclasses.replace(base, points=points)
    out = []
    for case in cases:
        p = case.prepared
        out.append(labels.score_grading(case, grade(p.curve, p.frees, tuning, p.events, p.cues)))
    return out


def lower(hits: int, total: int) -> float:
    """A share one standard error down."""
    share = hits / max(total, 1)
    return share - math.sqrt(share * (1 - share) / max(total, 1))


def at_boundary(s: LabelSummary) -> tuple[int, int]:
    return s.clear - s.false_clear, s.clear


def chosen_total(cases: Sequence[Labelled], points: Points, base: Tuning = DEFAULT_TUNING) -> float:
    """The ●●● total that finds the most task switches while ●●● stays at a reader boundary
    in `FLOOR` or more one standard error down (of equals, the higher total; none passing:
    the highest tried)."""
    swept = [
        labels.summarise(scores(cases, dataclasses.replace(points, clear=t), base)) for t in TOTALS
    ]
    return TOTALS[by_rule(swept)]


def by_rule(swept: Sequence[LabelSummary]) -> int:
    """Of summaries at rising thresholds, the index of the one finding the most task switches
    while ●●● stays at a reader boundary in `FLOOR` or more one standard error down (of equals,
    the higher threshold; none passing: the highest).

    >>> at = lambda found, clear, false: LabelSummary(37, found, clear, false, 24, 0)
    >>> by_rule([at(32, 78, 12), at(30, 70, 5), at(30, 66, 4), at(25, 50, 1)])
    2
    """
    best: tuple[int, int] | None = None
    for i, s in enumerate(swept):
        if lower(*at_boundary(s)) >= FLOOR and (best is None or s.found >= best[0]):
            best = (s.found, i)
    return best[1] if best is not None else len(swept) - 1


def cross_validated(
    sessions: Sequence[Stops],
    keep: Sequence[str],
    base: Tuning = DEFAULT_TUNING,
    by_project: bool = False,
) -> list[SessionScore]:
    """Each session graded with the points fitted and the total chosen on the sessions of
    every other project (left one project out), in the order of `sessions`; `base`: the rest
    of the grading's constants; `by_project`: each project weighing alike in the fit."""
    tunings = fold_tunings(sessions, keep, base, by_project)
    return [labels.score_session(s.case, t) for s, t in zip(sessions, tunings, strict=True)]


def fold_tunings(
    sessions: Sequence[Stops],
    keep: Sequence[str],
    base: Tuning = DEFAULT_TUNING,
    by_project: bool = False,
) -> list[Tuning]:
    """For each session, in the order of `sessions`, the grading's constants with the points
    fitted and the ●●● total chosen on the sessions of every other project."""
    out: dict[int, Tuning] = {}
    for fold in project_folds([s.case.name for s in sessions]):
        rest = [s for j, s in enumerate(sessions) if j not in fold]
        coefficients = fitted(rest, keep, by_project=by_project)
        points = table_of(coefficients, keep, sessions[0].fields, base.points)
        cases = [s.case for s in rest]
        points = dataclasses.replace(points, clear=chosen_total(cases, points, base))
        out.update(dict.fromkeys(fold, dataclasses.replace(base, points=points)))
    return [out[i] for i in range(len(sessions))]


def kept(sessions: Sequence[Stops]) -> list[str]:
    """The signals fitted unless asked otherwise: every one but `LEFT_OUT`."""
    return [f for f in sessions[0].fields if f not in LEFT_OUT] if sessions else []


def tunings_left_out(cases: Sequence[Labelled]) -> dict[str, Tuning]:
    """Each of `cases` by name, with the grading's constants whose points are fitted and whose
    ●●● total is chosen on the other projects' sessions of `cases` (none with one project)."""
    if len({project(case.name) for case in cases}) < 2:
        return {}
    sessions = [stops_of(case) for case in cases]
    tunings = fold_tunings(sessions, kept(sessions))
    return {case.name: tuning for case, tuning in zip(cases, tunings, strict=True)}


def replayed_left_out(
    cases: Sequence[Labelled], only: Collection[str] | None = None
) -> list[replay.Replayed]:
    """Each of `cases` (those named in `only`, if given) replayed turn by turn
    (evaluation/replay.py) with `tunings_left_out`: the notices a new project gets."""
    tunings = tunings_left_out(cases)
    return [
        replay.replay(case.prepared.case.path, tuning=tunings[case.name])
        for case in cases
        if case.name in tunings and (only is None or case.name in only)
    ]


def figures(found: Sequence[SessionScore]) -> list[str]:
    """Task switches found, ●●● at a reader boundary, picks within one: each with its share
    and one standard error."""
    s = labels.summarise(found)
    return [share(s.found, s.switches), share(*at_boundary(s)), share(s.picks_near, s.sessions)]


def share(hits: int, total: int) -> str:
    share = hits / max(total, 1)
    error = math.sqrt(share * (1 - share) / max(total, 1))
    return f"{hits}/{total} ({share:.0%} ± {error:.0%})"


HEADERS = ["points", "task switches with ●●● within one", "●●● at a reader boundary", "pick"]


def report(sessions: Sequence[Stops], keep: Sequence[str], ablate: bool) -> str:
    """The fit on every session, its rounded table and figures, and the cross-validated ones."""
    fields = sessions[0].fields
    cases = [s.case for s in sessions]
    coefficients = fitted(sessions, keep)
    points = table_of(coefficients, keep, fields)
    points = dataclasses.replace(points, clear=chosen_total(cases, points))
    rows = [
        [f, SIGNAL_NAMES[f], f"{c:.2f}", getattr(points, f), getattr(DEFAULT_POINTS, f)]
        for f, c in zip(keep, coefficients[1:], strict=True)
    ]
    rows.append(["clear", "the ●●● total", "-", points.clear, DEFAULT_POINTS.clear])
    lines = [
        f"{len(sessions)} calibration sessions, {sum(len(s.task) for s in sessions)} usable "
        f"stops, {sum(int(s.task.sum()) for s in sessions)} at a task; intercept "
        f"{coefficients[0]:.2f}, ridge {RIDGE}\n",
        table(["field", "signal", "fit", "rounded", "keepd now"], rows),
        "",
        table(
            HEADERS,
            [
                ["keepd now, in sample", *figures(scores(cases, DEFAULT_POINTS))],
                ["this fit, in sample", *figures(scores(cases, points))],
                ["this fit, one project out", *figures(cross_validated(sessions, keep))],
                [
                    "each project weighing alike in the fit, one project out",
                    *figures(cross_validated(sessions, keep, by_project=True)),
                ],
            ],
        ),
    ]
    if ablate:
        rows = [
            [f"without {SIGNAL_NAMES[f]}", *figures(cross_validated(sessions, _but(keep, f)))]
            for f in keep
        ]
        lines += ["", "one project out, each signal left out of the fit:\n", table(HEADERS, rows)]
    return "\n".join(lines)


def _but(keep: Sequence[str], field: str) -> list[str]:
    return [f for f in keep if f != field]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.fit_points", description=__doc__)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument(
        "--without",
        default=",".join(LEFT_OUT),
        help="signals (Points fields) left out, a,b (default: %(default)s; '' fits all)",
    )
    parser.add_argument("--ablate", action="store_true", help="cross-validate each left out")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "fit_points")
    if shared is None:
        return 2
    sessions = [stops_of(case) for case in labels.load(shared)]
    left_out = {f for f in args.without.split(",") if f}
    unknown = left_out - set(sessions[0].fields)
    if unknown:
        print(f"fit_points: no such signal: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    keep = [f for f in sessions[0].fields if f not in left_out]
    print(report(sessions, keep, args.ablate))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
