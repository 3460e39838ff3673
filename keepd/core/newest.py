"""Scores each stop by the chance that the newest piece of work begins there: what the pick is.

A logistic model gives p_k, the chance that a new piece of work begins at stop k, from named
per-stop features (core/newest_pick.py builds them): every cue signal of the points table
(core/points.py) by name and the table's total, a compaction before the stop, the words'
height there in wiggles (capped) and the grade of a zone there. A signal added to the points
table flows in through the total as soon as it earns points, and by name once a refit gives
it a weight; a feature the table below does not name weighs 0. The newest piece begins at k
when one begins there and none at any later usable stop: s_k = p_k * prod over later usable j
of (1 - p_j). The pick is the usable stop of the highest s_k, when it reaches `floor` (under
it, grading falls back to the rule before: core/grade.py). The coefficients are a ridge
logistic fit on calibration data (`python -m evaluation.fit_newest`; fitted values in the
comments).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Column = tuple[str, npt.ArrayLike]  # a feature's name and its value at every stop

HEIGHT = "words' height"
POINTS = "cue points"  # the points table's total (core/points.py)
COMPACTION = "compaction"
ZONE_FEATURES = ("●●● zone (words)", "●●● zone (cues)", "●● zone", "● zone")


@dataclass(frozen=True, slots=True)
class Newest:
    """The model's coefficients by feature name, the height's cap and the pick's floor.

    Fitted (`python -m evaluation.fit_newest`, ridge 10) on the usable stops of the labelled
    calibration sessions and of the calibration joins: a stop both readers call a task, or a
    join's junction, against every other stop. The cue points enter as the points table's
    total, each signal by its points; new files also by its own weight (leave-one-session-out,
    the pick within one of the readers' newest: 16 of 24 sessions without it, 17 with it);
    every signal by its own weight did no better (16). Refitted after the points table of
    core/points.py last changed: the model follows that table and is refitted with it.
    """

    intercept: float = -4.26  # fitted -4.265
    weights: tuple[tuple[str, float], ...] = (
        (POINTS, 0.8),  # 0.797 per point of the points table's total
        ("new files", 0.59),  # 0.595: most files of the next turns never touched before
        (HEIGHT, 1.27),  # 1.272 at the cap (10 wiggles)
        (ZONE_FEATURES[0], 1.45),  # 1.452: a ●●● zone of the words
        (ZONE_FEATURES[1], -0.04),  # -0.043: a ●●● zone the cues made with few points
        (ZONE_FEATURES[2], 0.65),  # 0.650: a ●● zone
        (ZONE_FEATURES[3], 0.19),  # 0.189: a ● zone
    )
    height_cap: float = 10.0  # wiggles: a junction's 40x is no surer than 10x
    floor: float = 0.1  # the newest score a pick needs (cross-validated: 0.05 / 0.1 / 0.15)

    def weight(self, name: str) -> float:
        return next((value for key, value in self.weights if key == name), 0.0)


DEFAULT_NEWEST = Newest()


def zone_columns(
    stops: int, zones: Sequence[tuple[int, int, bool]], heights: FloatArray, cap: float
) -> list[Column]:
    """The words' height (capped, over the cap) and the zone grade at each stop; `zones` are
    (best stop, grade strength 1-3, made ●●● by weak cues)."""
    # np.nan_to_num's Python layer costs more than a session's few stops: NaN reads as 0, and
    # the clip takes the infinities to the ends as it would their stand-ins.
    height = np.clip(heights, 0.0, cap)
    height[np.isnan(height)] = 0.0
    height /= cap
    marks = {name: np.zeros(stops) for name in ZONE_FEATURES}
    if zones:  # at once: a long session has a thousand zones, on every analysis
        best, strength, cued = (np.asarray(column) for column in zip(*zones, strict=True))
        feature = np.where(strength == 3, cued.astype(np.int64), 4 - strength)
        for at, name in enumerate(ZONE_FEATURES):
            marks[name][best[feature == at]] = 1.0
    return [(HEIGHT, height), *marks.items()]


def chances(model: Newest, columns: Sequence[Column], stops: int) -> FloatArray:
    """p_k at every stop: the logistic of the intercept plus each feature times its weight."""
    logit = np.full(stops, model.intercept)
    weights = dict(reversed(model.weights))  # the first of a name, as `Newest.weight` reads
    for name, values in columns:
        weight = weights.get(name, 0.0)
        if weight:
            logit += weight * np.asarray(values)  # a flag column multiplies as 0.0 / 1.0
    return np.asarray(1.0 / (1.0 + np.exp(-logit)), dtype=np.float64)


def newest_scores(p: FloatArray, usable: BoolArray) -> FloatArray:
    """s_k = p_k * prod over later usable j of (1 - p_j); 0 where a stop is not usable.

    >>> newest_scores(np.array([0.1, 0.8, 0.5]), np.array([False, True, True])).round(2)
    array([0. , 0.4, 0.5])
    """
    q = np.where(usable, p, 0.0)
    after = np.concatenate([np.cumprod((1.0 - q)[::-1])[::-1][1:], [1.0]])
    return np.asarray(q * after, dtype=np.float64)


def newest_stop(scores: FloatArray, floor: float) -> int | None:
    """The stop of the highest newest score (the later on a tie), or None under `floor`."""
    if not len(scores):
        return None
    k = len(scores) - 1 - int(np.argmax(scores[::-1]))
    return k if scores[k] >= floor and scores[k] > 0 else None
