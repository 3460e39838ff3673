"""Segmentation scores as SuperDialseg computes them (Pk, WindowDiff, boundary F1), and ranks.

Boundaries are given as the indices of the units that start a new segment (1..n-1).

>>> labels([2, 4], 6)
'010100'
>>> window(labels([2, 4], 6))
2
>>> s = score([2, 4], [2], 6)
>>> (s.hits, s.predicted, s.gold)
(1, 1, 2)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from nltk.metrics.segmentation import pk, windowdiff

from keepd.core.curve import FloatArray


def labels(boundaries: Iterable[int], n: int) -> str:
    """One label per unit: 1 on the last unit of each segment, the final unit always 0."""
    out = ["0"] * n
    for b in boundaries:
        if 0 < b < n:
            out[b - 1] = "1"
    if n:
        out[-1] = "0"
    return "".join(out)


def window(reference: str) -> int:
    """k = max(2, round(N / (B + 1) / 2)): half the mean reference segment, at least 2."""
    return min(max(2, round(len(reference) / (reference.count("1") + 1) / 2)), len(reference))


@dataclass(frozen=True, slots=True)
class Scores:
    """One segmentation against its reference."""

    pk: float
    wd: float
    hits: int  # predicted boundaries that are reference boundaries
    predicted: int
    gold: int


def score(gold: Sequence[int], predicted: Sequence[int], n: int) -> Scores:
    reference, hypothesis = labels(gold, n), labels(predicted, n)
    k = window(reference)
    hits = sum(1 for a, b in zip(reference, hypothesis, strict=True) if a == b == "1")
    return Scores(
        pk=float(pk(reference, hypothesis, k=k)),
        wd=float(windowdiff(reference, hypothesis, k)),
        hits=hits,
        predicted=hypothesis.count("1"),
        gold=reference.count("1"),
    )


@dataclass(frozen=True, slots=True)
class Totals:
    """Scores over a data set: mean Pk and WindowDiff, pooled F1, boundaries per dialogue."""

    pk: float
    wd: float
    f1: float
    per_dialogue: float
    count: int

    @property
    def loss(self) -> float:
        """What calibration minimises: the mean of Pk and WindowDiff."""
        return (self.pk + self.wd) / 2


def totals(scores: Sequence[Scores]) -> Totals:
    n = len(scores) or 1
    hits = sum(s.hits for s in scores)
    predicted = sum(s.predicted for s in scores)
    gold = sum(s.gold for s in scores)
    precision = hits / predicted if predicted else 0.0
    recall = hits / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return Totals(
        pk=sum(s.pk for s in scores) / n,
        wd=sum(s.wd for s in scores) / n,
        f1=f1,
        per_dialogue=predicted / n,
        count=len(scores),
    )


def spearman(a: Sequence[float] | FloatArray, b: Sequence[float] | FloatArray) -> float:
    """Spearman's rank correlation of two series (NaN pairs left out; NaN if undefined).

    >>> spearman([1, 2, 3, 4], [10, 9, 7, 1])
    -1.0
    """
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 3:
        return float("nan")
    rx, ry = _ranks(x), _ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return round(float(np.corrcoef(rx, ry)[0, 1]), 6)


def _ranks(values: FloatArray) -> FloatArray:
    """Ranks with ties given their mean rank."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values), dtype=np.float64)
    ranks[order] = np.arange(len(values), dtype=np.float64)
    for value in np.unique(values[np.r_[np.diff(np.sort(values)) == 0, False]]):
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    return ranks
