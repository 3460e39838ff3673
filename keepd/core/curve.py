"""Self-containment at every stop: the share of the kept part's word uses it introduced itself.

>>> from keepd.core.index import Index
>>> index = Index()
>>> index.extend([["parser", "tests"], ["parser", "fix"], ["docs", "fix"]])
>>> c = curve(index, [0, 1, 2])
>>> c.sc.round(3).tolist(), c.kept.tolist(), c.borrowed.tolist()
([1.0, 0.75, 0.5], [6, 4, 2], [0, 1, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from keepd.core.index import Index, IntArray

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Curve:
    """SC, kept uses and borrowed uses at each stop (message indices, oldest first)."""

    stops: IntArray
    sc: FloatArray
    kept: IntArray
    borrowed: IntArray

    def __len__(self) -> int:
        return len(self.stops)


def curve(index: Index, stops: Sequence[int] | IntArray) -> Curve:
    """The curve at `stops`: two reversed cumulative sums, O(messages)."""
    at = np.asarray(stops, dtype=np.int64)
    kept = _suffix_sums_at(index.uses_by_message, at)
    own = _suffix_sums_at(index.uses_by_first, at)
    with np.errstate(invalid="ignore", divide="ignore"):
        sc = np.where(kept > 0, own / np.maximum(kept, 1), np.nan)
    return Curve(stops=at, sc=sc.astype(np.float64), kept=kept, borrowed=kept - own)


def _suffix_sums_at(values: IntArray, at: IntArray) -> IntArray:
    """For each s in `at`, the sum of values[s:] (one pass, no reversed copies)."""
    if not len(values):
        return np.zeros(len(at), dtype=np.int64)
    running = np.cumsum(values)  # element s: the sum of values[: s + 1]
    # values[s:] sums to the total less what comes before s; read at the stops alone
    return np.asarray(int(running[-1]) - running[at] + values[at], dtype=np.int64)
