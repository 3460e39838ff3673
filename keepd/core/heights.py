"""Measures every stop's height above its neighbours in wiggles, the curve's median step over
the stops that can be measured: what zones are found and graded on (measure.md)."""

from __future__ import annotations

import numpy as np

from keepd.core.curve import Curve, FloatArray
from keepd.core.zone import DEFAULT_TUNING, Tuning

_LARGEST = np.finfo(np.float64).max


def multiples(curve: Curve, frees: FloatArray, tuning: Tuning = DEFAULT_TUNING) -> FloatArray:
    """Every stop's height in wiggles, NaN where it is not eligible: what zones are graded on."""
    eligible = eligible_stops(curve, frees, tuning)
    wiggle = wiggle_of(curve.sc[eligible])
    if not np.isfinite(wiggle):
        return np.full(len(curve), np.nan)
    out = peak_heights(curve, tuning)[0] / wiggle
    out[~eligible] = np.nan
    return out


def rises(curve: Curve, frees: FloatArray, tuning: Tuning = DEFAULT_TUNING) -> FloatArray:
    """Every stop's rise into it in wiggles (zeros without a wiggle): what `clear_rise` reads."""
    wiggle = wiggle_of(curve.sc[eligible_stops(curve, frees, tuning)])
    if not np.isfinite(wiggle):
        return np.zeros(len(curve))
    return peak_heights(curve, tuning)[1] / wiggle


def heights(curve: Curve, frees: FloatArray, tuning: Tuning = DEFAULT_TUNING) -> FloatArray:
    """Every stop's height in wiggles as `grade` reads it for the cues' points (zeros without a
    wiggle): evaluation/fit_points.py builds the points' features from it."""
    wiggle = wiggle_of(curve.sc[eligible_stops(curve, frees, tuning)])
    if not np.isfinite(wiggle):
        return np.zeros(len(curve))
    return peak_heights(curve, tuning)[0] / wiggle


def eligible_stops(curve: Curve, frees: FloatArray, tuning: Tuning) -> np.ndarray:
    """Stops that free something and keep enough words to be measured (the floor)."""
    total = int(curve.kept[0]) if len(curve) else 0
    floor = max(tuning.min_kept_uses, tuning.min_kept_share * total)
    ok = (curve.kept >= floor) & ~np.isnan(curve.sc) & (frees >= tuning.min_frees)
    if len(ok):
        ok[-1] = False  # nothing after the last stop to fall to
    return np.asarray(ok)


def wiggle_of(values: FloatArray) -> float:
    """The wiggle of a curve's values: the median step between neighbours, at least 1e-4 (NaN
    with fewer than three values)."""
    if len(values) < 3:
        return float("nan")
    return max(_median(np.abs(values[1:] - values[:-1])), 1e-4)


def _median(values: FloatArray) -> float:
    """`np.median` of two non-negative values or more (the steps' sizes), without its Python
    layers: the middle value, or the mean of the two middle ones, (a + b) / 2 as numpy's
    mean adds and divides them (with no negative values no sum of zeros can differ)."""
    if np.isnan(values).any():  # a NaN makes the median NaN, as in numpy
        return float("nan")
    middle = len(values) // 2
    # The order statistics alone (a partial sort, O(n)): the same values a full sort puts there.
    ordered = np.partition(values, [middle - 1, middle] if len(values) % 2 == 0 else middle)
    if len(values) % 2:
        return float(ordered[middle])
    return (float(ordered[middle - 1]) + float(ordered[middle])) / 2


def peak_heights(curve: Curve, tuning: Tuning) -> tuple[FloatArray, FloatArray]:
    """How far each stop stands above the stops after it and, weighted, the stops before it;
    and the part of it that is the rise.

    A change of work is a peak: the curve falls after it (the new work's own first words
    become borrowed) and rises into it (old messages that borrow heavily leave the kept
    part). Both are means over a few stops, so one short reply does not make or hide a
    zone; stops without a value are left out of the means, not counted as zero. The sum is
    weighted by a root of the kept part's share (`kept_power`) because steps grow as it
    shrinks.
    """
    sc = curve.sc
    if not len(sc):
        return np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.float64)
    after, before = _neighbour_means(sc, tuning.ahead, tuning.behind)
    fall = sc - after
    rise = sc - before
    # Without stops before it a stop cannot be a peak: the curve's own fall would pass for one.
    rise[: min(2, len(rise))] = np.nan
    fall[: min(2, len(fall))] = np.nan
    weight = (curve.kept / max(int(curve.kept[0]), 1)) ** tuning.kept_power
    rise = _nan_to_num(rise) * weight
    heights = _nan_to_num(fall) * weight + tuning.rise_weight * rise
    return _nan_to_num(heights), rise


def _nan_to_num(values: FloatArray) -> FloatArray:
    """`np.nan_to_num(values)` (NaN 0, infinities the largest floats) without its Python
    layers, which cost more than the work on a session's few stops."""
    out = np.where(np.isnan(values), 0.0, values)
    return np.minimum(np.maximum(out, -_LARGEST), _LARGEST, out=out)


def _neighbour_means(sc: FloatArray, ahead: int, behind: int) -> tuple[FloatArray, FloatArray]:
    """Mean of the `ahead` values after each point and of the `behind` values before it, NaNs
    left out.

    Each sum adds its values one shifted row at a time from zero, nearest first after the
    point and farthest first before it: the order the sum over a stack of those rows adds
    them in, so the floats (-0.0 included) are what that sum gives. The counts are integers,
    taken from one running count.
    """
    n, width = len(sc), max(ahead, behind)
    pad = np.full(width, np.nan)
    padded = np.concatenate([pad, sc, pad])
    present = ~np.isnan(padded)
    values = np.where(present, padded, 0.0)
    running = np.concatenate([[0], np.cumsum(present, dtype=np.int64)])

    def means(starts: range) -> FloatArray:
        if not starts:
            return np.full(n, np.nan)
        sums = np.zeros(n)
        for start in starts:
            sums += values[start : start + n]
        low, high = min(starts), max(starts) + 1
        counts = running[high : high + n] - running[low : low + n]
        out: FloatArray = np.divide(sums, counts, out=np.full(n, np.nan), where=counts > 0)
        return out

    after = means(range(width + 1, width + ahead + 1))
    before = means(range(width - 1, width - behind - 1, -1))
    return after, before
