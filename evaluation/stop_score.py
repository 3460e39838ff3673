"""Scores every stop of a labelled session with a fitted model and grades it as keepd does:
●●● where the score passes a threshold, given exactly as `cued.with_points` gives it for the
points' total (the words' own zones, then the cued stops no neighbour beats), the pick as `grade`
makes it, counted by `labels.score_grading`; each model cross-validated (`cross_validated`), the
threshold chosen on the sessions fitted by fit_points' rule. The stops' continuous values (the
pause, the prompt's length, the new words' and new files' shares, the words' height) and two
plain word-count distances (texts.py) stand beside the cues' 0/1 signals."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from evaluation import labels
from evaluation.cases import project_folds
from evaluation.fit_points import RIDGE, at_boundary, by_rule, fitted_stops, share
from evaluation.labels import Labelled, SessionScore
from evaluation.logistic import ridge_logistic
from evaluation.markdown import table
from evaluation.texts import stop_texts, word_distances
from keepd.core.cued import with_points
from keepd.core.cues import StopCues
from keepd.core.grade import DEFAULT_TUNING, Grading, Tuning, fallback_pick, grade, heights
from keepd.core.newest import DEFAULT_NEWEST, Newest
from keepd.core.newest_pick import Chosen, newest_pick
from keepd.core.points import DEFAULT_POINTS, Scored, Signal, score
from keepd.core.settle import closing_prompts, settled
from keepd.core.sure import later_sure, sure_cues, sure_only
from keepd.core.zone import Zone

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
CONTINUOUS = ("log pause", "log prompt words", "new words share", "new files share", "height")
DISTANCES = ("words: reply", "words: prompt-reply")
GRID = tuple(round(float(t), 2) for t in np.arange(-4.0, 4.01, 0.1))  # thresholds of a fitted logit
HALVES = GRID[::5]  # coarser thresholds: fewer to fit to the noise


@dataclass(frozen=True, slots=True)
class Session:
    """One labelled session: every stop's features, and what grading reads besides the score."""

    case: Labelled
    signals: list[Signal]  # the cues, as `points.score` names them (for with_points' reasons)
    binary: FloatArray  # stops x cue signals, 0 or 1
    extra: FloatArray  # stops x (CONTINUOUS + DISTANCES)
    fitted: BoolArray  # the stops the fit reads (fit_points.fitted_stops)
    task: BoolArray
    zones: list[Zone]  # the words' zones before the cues
    heights: FloatArray
    wiggle: float


def session_of(case: Labelled, extra: FloatArray | None = None) -> Session:
    """A labelled session's stops: its cues as keepd scores them, the continuous values and
    distances beside them (or `extra`, stops x a probe's columns), and its words' zones
    (before the cues, without the event pick)."""
    p = case.prepared
    assert p.cues is not None
    tuning = DEFAULT_TUNING
    high = heights(p.curve, p.frees, tuning)
    pause = tuning.pause_minutes * 60
    signals = score(p.cues, p.events, high >= tuning.subtopic, tuning.points, pause).signals
    binary = np.column_stack([s.present for s in signals]).astype(np.float64)
    words_only = grade(p.curve, p.frees, tuning, p.events)
    zones = [zone for zone in words_only.zones if zone.event is None]  # not the event pick
    fitted, task = fitted_stops(case, tuning)
    if extra is None:
        extra = np.column_stack([continuous(case, high), *distances(case)])
    return Session(case, signals, binary, extra, fitted, task, zones, high, words_only.wiggle)


def continuous(case: Labelled, high: FloatArray) -> FloatArray:
    """The values the cues threshold, on the scales a fit can weigh (`CONTINUOUS`)."""
    cues = case.prepared.cues
    assert cues is not None
    stops = len(cues)
    pause = cues.pause if cues.pause is not None else np.zeros(stops)
    words = cues.words if cues.words is not None else np.zeros(stops)
    return np.column_stack(
        [
            np.log1p(np.maximum(np.nan_to_num(pause), 0.0) / 60),
            np.log1p(words.astype(np.float64)),
            cues.aside().novelty,
            cues.fresh_share(DEFAULT_POINTS.turns_ahead),
            np.clip(high, -2.0, 6.0),
        ]
    )


def distances(case: Labelled) -> list[FloatArray]:
    """The two word-count distances of every stop (0 at the first), as texts.py's."""
    return [np.asarray([0.0, *column]) for column in word_distances(*stop_texts(case.prepared))]


@dataclass(frozen=True, slots=True)
class Variant:
    """A stop score: which extra columns it reads, whether its weights are rounded to halves,
    and the thresholds its rule may choose from."""

    name: str
    extra: tuple[str, ...] = ()
    rounded: bool = False
    grid: tuple[float, ...] = GRID
    ridge: float = RIDGE
    cues: tuple[str, ...] | None = None  # the cue signals read (`Points` fields); None: all


NAMES = (*CONTINUOUS, *DISTANCES)

Model = Callable[[Session], FloatArray]  # every stop's score
Curve = list[list[SessionScore]]  # threshold x session


def design(session: Session, variant: Variant, names: Sequence[str] = NAMES) -> FloatArray:
    """The cues' 0/1 columns and the variant's extra columns (`names` names `session.extra`'s)."""
    picked = [names.index(name) for name in variant.extra]
    fields = [signal.field for signal in session.signals]
    kept = range(len(fields)) if variant.cues is None else [fields.index(f) for f in variant.cues]
    return np.column_stack([session.binary[:, list(kept)], session.extra[:, picked]])


def fit(
    sessions: Sequence[Session], variant: Variant, names: Sequence[str] = NAMES
) -> tuple[float, Model]:
    """The fitted intercept and the score: the rounded points' total, else the logit."""
    x = np.vstack([design(s, variant, names)[s.fitted] for s in sessions])
    y = np.concatenate([s.task[s.fitted] for s in sessions])
    intercept, weights = raw_weights(x, y, variant.ridge, rounded=variant.rounded)
    shift = 0.0 if variant.rounded else intercept
    return intercept - shift, lambda session: shift + design(session, variant, names) @ weights


def raw_weights(
    x: FloatArray, y: BoolArray, ridge: float, *, rounded: bool
) -> tuple[float, FloatArray]:
    """A ridge logistic fit on standardised columns (0/1 columns keep their scale, as the
    points' cues do), given back in each column's own units: the intercept and the weights,
    rounded to halves if asked (as the points table rounds them)."""
    centre, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    binary = np.all((x == 0) | (x == 1), axis=0)
    centre[binary], scale[binary] = 0.0, 1.0
    beta = ridge_logistic((x - centre) / scale, y, ridge)
    weights = beta[1:] / scale
    if rounded:
        weights = np.round(weights * 2) / 2
    return float(beta[0] - np.sum(beta[1:] * centre / scale)), weights


def graded(
    session: Session, totals: FloatArray, clear: float, newest: Newest | None = DEFAULT_NEWEST
) -> SessionScore:
    """The session's ●●● zones with `totals` as the cues' points and `clear` the threshold, and
    its pick as `grade` makes it (the newest-work model, `newest`, reads `totals` as the points'
    total; ●●● kept where a sure cue is named, as `grade` keeps it)."""
    p = session.case.prepared
    tuning = _tuning(clear, newest)
    zones = cued_zones(session, totals, clear)
    pick = None
    if newest is not None:
        chosen = Chosen(zones, Scored(totals, session.signals), session.heights, session.wiggle)
        pick, zones = newest_pick(
            chosen, p.curve, p.frees, tuning=tuning, events=p.events, cues=cued(session)
        )
    if pick is None:
        pick, zones = fallback_pick(
            zones, p.curve, p.frees, tuning=tuning, events=p.events, heights=session.heights
        )
    sure = sure_cues(tuning.points.sure)  # as `grade` settles the grades (core/sure.py)
    pick, zones = sure_only(pick, zones, sure, tuning.points.sure_height)
    pick = later_sure(pick, zones, len(p.curve), tuning.recent, sure)
    closing = closing_prompts(Scored(totals, session.signals), len(p.curve))
    pick, zones = settled(pick, zones, closing)
    grading = Grading(session.wiggle, np.zeros(len(p.curve), bool), zones, pick, [])
    return labels.score_grading(session.case, grading)


def cued_zones(session: Session, totals: FloatArray, clear: float) -> list[Zone]:
    """The session's zones with `totals` as the cues' points and `clear` the ●●● threshold."""
    p = session.case.prepared
    return with_points(
        list(session.zones),
        p.curve,
        p.frees,
        tuning=_tuning(clear, DEFAULT_NEWEST),
        scored=Scored(totals, session.signals),
        cues=cued(session),
        heights=session.heights,
        wiggle=session.wiggle,
    )


def cued(session: Session) -> StopCues:
    cues = session.case.prepared.cues
    assert cues is not None
    return cues


def _tuning(clear: float, newest: Newest | None) -> Tuning:
    points = dataclasses.replace(DEFAULT_POINTS, clear=clear)
    return dataclasses.replace(DEFAULT_TUNING, points=points, newest=newest)


def sweep(sessions: Sequence[Session], model: Model, grid: Sequence[float]) -> Curve:
    """Each threshold's scores of `sessions`."""
    totals = [model(s) for s in sessions]
    return [[graded(s, t, clear) for s, t in zip(sessions, totals, strict=True)] for clear in grid]


def chosen(swept: Curve) -> int:
    """fit_points' rule (`by_rule`) over each threshold's scores: the threshold's index."""
    return by_rule([labels.summarise(scores) for scores in swept])


@dataclass(frozen=True, slots=True)
class Outcome:
    """One variant left one project out: each session's score at its fold's chosen threshold,
    every threshold's held-out scores (for the curve), the thresholds and the log loss."""

    variant: Variant
    held: list[SessionScore]
    curve: Curve  # the held-out sessions' scores
    thresholds: list[float]
    losses: FloatArray  # each session's summed log loss over its fitted stops


def cross_validated(
    sessions: Sequence[Session], variant: Variant, names: Sequence[str] = NAMES
) -> Outcome:
    """The variant left one project out: each project's sessions scored with the weights fitted
    and the threshold chosen on the sessions of every other project (in the order of
    `sessions`)."""
    held: dict[int, tuple[SessionScore, list[SessionScore], float, float]] = {}
    for fold in project_folds([s.case.name for s in sessions]):
        rest = [s for j, s in enumerate(sessions) if j not in fold]
        intercept, model = fit(rest, variant, names)
        k = chosen(sweep(rest, model, variant.grid))
        for i in fold:
            out = sessions[i]
            scores = [row[0] for row in sweep([out], model, variant.grid)]
            logit = intercept + model(out)[out.fitted]
            chance = 1 / (1 + np.exp(-logit))
            task = out.task[out.fitted]
            loss = -float(np.sum(np.where(task, np.log(chance), np.log1p(-chance))))
            held[i] = (scores[k], scores, variant.grid[k], loss)
    ordered = [held[i] for i in range(len(sessions))]
    curve = [[found[1][t] for found in ordered] for t in range(len(variant.grid))]
    return Outcome(
        variant,
        [found[0] for found in ordered],
        curve,
        [found[2] for found in ordered],
        np.asarray([found[3] for found in ordered]),
    )


def paired(found: Outcome, base: Outcome) -> str:
    """Task switches found and false ●●● zones, this variant minus the base, summed over
    sessions with a standard error from the sessions' differences."""
    parts = []
    for count in (_found, _false):
        diff = np.array([count(a) - count(b) for a, b in zip(found.held, base.held, strict=True)])
        error = float(np.std(diff, ddof=1)) * math.sqrt(len(diff))
        parts.append(f"{int(diff.sum()):+d} ± {error:.1f}")
    return " / ".join(parts)


def _found(s: SessionScore) -> int:
    return sum(s.found)


def _false(s: SessionScore) -> int:
    return len(s.false_clear)


def loss_change(found: Outcome, base: Outcome, stops: int) -> str:
    if found is base:
        return "-"
    diff = found.losses - base.losses
    error = float(np.std(diff, ddof=1)) * math.sqrt(len(diff)) / stops
    return f"{diff.sum() / stops:+.3f} ± {error:.3f}"


def summary(outcomes: Sequence[Outcome], stops: int) -> str:
    base = outcomes[0]
    rows = []
    for o in outcomes:
        s = labels.summarise(o.held)
        rows.append(
            [
                o.variant.name,
                share(s.found, s.switches),
                share(*at_boundary(s)),
                paired(o, base) if o is not base else "-",
                f"{o.losses.sum() / stops:.3f}",
                loss_change(o, base, stops),
                f"{min(o.thresholds):g}-{max(o.thresholds):g}",
            ]
        )
    headers = [
        "score",
        "task switches with ●●● within one",
        "●●● at a reader boundary",
        "against (a): switches / false ●●●",
        "log loss",
        "against (a)",
        "thresholds chosen",
    ]
    return table(headers, rows)
