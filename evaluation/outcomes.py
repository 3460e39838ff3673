"""Right picks and their standard errors: a share of cases, its error with the cases of one
cluster counted together (joins of one tail share its stops and miss together), and the paired
change from another rule's picks on the same cases."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.markdown import percent


def clustered_error(hits: Sequence[bool], clusters: Sequence[str]) -> float:
    """The standard error of the share of `hits` (or of the mean of paired differences), the
    cases of one cluster counted together (the cluster-robust estimate).

    >>> round(clustered_error([True, False, True, False], ["a", "b", "c", "d"]), 3)
    0.289
    >>> clustered_error([True, True, False, False], ["a", "a", "b", "b"])
    0.5
    """
    return _clustered([float(hit) for hit in hits], clusters)


def _clustered(values: Sequence[float], clusters: Sequence[str]) -> float:
    n = len(values)
    mean = sum(values) / max(n, 1)
    sums: dict[str, float] = {}
    for value, cluster in zip(values, clusters, strict=True):
        sums[cluster] = sums.get(cluster, 0.0) + value - mean
    g = len(sums)
    if g < 2:
        return 0.0
    return math.sqrt(g / (g - 1) * sum(v * v for v in sums.values())) / n


@dataclass(frozen=True, slots=True)
class Outcomes:
    """Whether each case's pick is right (within one of the newest, or of a join's gold), and
    the tail each case's errors go with."""

    hits: tuple[bool, ...]
    tails: tuple[str, ...]
    exact: tuple[bool, ...] = ()  # a join's pick at its gold

    def share(self) -> str:
        n = max(len(self.hits), 1)
        return f"{percent(sum(self.exact) / n)} / {percent(sum(self.hits) / n)}"

    def error(self) -> str:
        return f"±{100 * clustered_error(self.hits, self.tails):.0f}"

    def gain(self, base: Outcomes) -> str:
        """The change in the share of right picks from `base`'s, case by case, and its error."""
        diff = [float(a) - float(b) for a, b in zip(self.hits, base.hits, strict=True)]
        mean = sum(diff) / max(len(diff), 1)
        return f"{100 * mean:+.1f} ±{100 * _clustered(diff, self.tails):.1f}"
