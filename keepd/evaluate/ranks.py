"""Does a score order the stops by tail size? Spearman's ρ per session, for the seed and keepd.

Over the stops keepd could pick (its floors), each score is rank-correlated with the tail
size (the stops kept after it). The seed found its similarity split score "exactly the
tail-size order, smallest tail first": a ρ near -1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from keepd.core.curve import FloatArray
from keepd.core.grade import DEFAULT_TUNING, multiples
from keepd.evaluate.markdown import number, percent, table
from keepd.evaluate.methods import split_scores
from keepd.evaluate.metrics import spearman
from keepd.evaluate.picks import eligible, units
from keepd.evaluate.score import Prepared

SEED = "similarity split (the seed's score)"
SEPARATION = "similarity split, separation only"
SC = "keepd: SC (the curve itself)"
HEIGHT = "keepd: height in wiggles (what zones are graded on)"
NAMES = (SEED, SEPARATION, SC, HEIGHT)


def scores(prepared: Prepared) -> dict[str, FloatArray]:
    seed, separation = split_scores(units(prepared))
    height = multiples(prepared.curve, prepared.frees, DEFAULT_TUNING)
    return {SEED: seed, SEPARATION: separation, SC: prepared.curve.sc, HEIGHT: height}


@dataclass(frozen=True, slots=True)
class RankStudy:
    sessions: int
    rho: dict[str, list[float]]
    smallest_tail: dict[str, float]  # share of sessions whose top stop keeps the fewest stops
    picks_at_gold: dict[str, float]  # top stop within one of the gold stop, where there is one


def study(cases: Sequence[Prepared]) -> RankStudy:
    rho: dict[str, list[float]] = {name: [] for name in NAMES}
    smallest: dict[str, int] = dict.fromkeys(NAMES, 0)
    near: dict[str, int] = dict.fromkeys(NAMES, 0)
    counted = with_gold = 0
    for case in cases:
        allowed = np.asarray(eligible(case), dtype=np.int64)
        if len(allowed) < 4:
            continue
        counted += 1
        with_gold += bool(case.at_gold())
        tail = (len(case.turns) - allowed).astype(np.float64)
        for name, values in scores(case).items():
            chosen = values[allowed]
            rho[name].append(spearman(chosen, tail))
            top = int(allowed[int(np.nanargmax(chosen))])
            smallest[name] += top == allowed[-1]
            near[name] += any(abs(top - k) <= 1 for k in case.at_gold())
    return RankStudy(
        counted,
        rho,
        {name: smallest[name] / max(counted, 1) for name in NAMES},
        {name: near[name] / max(with_gold, 1) for name in NAMES},
    )


def rank_table(result: RankStudy) -> str:
    rows = []
    for name in NAMES:
        values = [r for r in result.rho[name] if np.isfinite(r)]
        rows.append(
            [
                name,
                number(float(np.median(values)) if values else float("nan"), 2),
                percent(sum(1 for r in values if r <= -0.5) / max(len(values), 1)),
                percent(sum(1 for r in values if r >= 0.5) / max(len(values), 1)),
                percent(result.smallest_tail[name]),
                percent(result.picks_at_gold[name]),
            ]
        )
    headers = [
        "score",
        "median ρ with tail size",
        "ρ ≤ −0.5",
        "ρ ≥ 0.5",
        "top stop keeps the fewest stops",
        "top stop within one of gold",
    ]
    return table(headers, rows)


@dataclass(frozen=True, slots=True)
class Example:
    """One session's scores over its eligible stops, for the figure."""

    name: str
    stops: list[int]
    gold: int | None
    series: dict[str, list[float]]


def example(case: Prepared) -> Example:
    allowed = eligible(case)
    series = {name: [float(v) for v in values[allowed]] for name, values in scores(case).items()}
    return Example(case.case.name, allowed, case.gold, series)
