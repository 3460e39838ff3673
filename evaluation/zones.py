"""The zone multiples the grade thresholds are chosen from: junctions, sub-topics and noise.

Every local maximum of the height at least one wiggle high is a zone here. A junction zone is
the highest zone within one stop of a stitched junction; every other zone of the same
sessions, and every zone of the unstitched sessions, is a sub-topic (real work changing
pace). Noise is two kinds of curve without a change of work: simulated flat or falling curves
with uniform noise, and the unstitched sessions with their turns shuffled (real words, no order).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evaluation.markdown import percent, quantiles, table
from evaluation.score import Prepared
from keepd.core.curve import Curve, curve
from keepd.core.grade import DEFAULT_TUNING, Grade, Tuning, Zone, grade
from keepd.core.index import Index

EVERY_ZONE = dataclasses.replace(DEFAULT_TUNING, faint=1.0)
JUNCTIONS = "junctions (stitched)"
SUBTOPICS = "sub-topics (other zones of the same sessions and the unstitched ones)"
SIMULATED = "noise: simulated curves, highest zone of each"
SHUFFLED = "noise: unstitched sessions, turns shuffled, highest zone of each"


@dataclass(frozen=True, slots=True)
class Multiples:
    """Zone multiples by kind, in `ORDER`, and whether each zone (or, for noise, any zone of
    the curve) is graded ●●●, which takes a rise into the stop as well as the multiple."""

    kinds: dict[str, list[float]]
    clear: dict[str, list[bool]]


ORDER = (JUNCTIONS, SUBTOPICS, SIMULATED, SHUFFLED)


def collect(
    stitched: Sequence[Prepared],
    singles: Sequence[Prepared],
    simulated: int,
    shuffles: int,
    seed: int = 5,
) -> Multiples:
    """`simulated` noisy curves, and `shuffles` shuffled orders of each unstitched session."""
    kinds: dict[str, list[float]] = {name: [] for name in ORDER}
    clear: dict[str, list[bool]] = {name: [] for name in ORDER}
    for case in [*stitched, *singles]:
        junction, others = _split(case)
        if junction is not None:
            kinds[JUNCTIONS].append(junction.multiple)
            clear[JUNCTIONS].append(junction.grade is Grade.CLEAR)
        kinds[SUBTOPICS] += [z.multiple for z in others]
        clear[SUBTOPICS] += [z.grade is Grade.CLEAR for z in others]
    rng = np.random.default_rng(seed)
    noise = {
        SIMULATED: [_highest(*_simulated(rng)) for _ in range(simulated)],
        SHUFFLED: [_highest(*_shuffled(case, rng)) for case in singles for _ in range(shuffles)],
    }
    for name, found in noise.items():
        kinds[name] = [multiple for multiple, _ in found]
        clear[name] = [any_clear for _, any_clear in found]
    return Multiples(kinds, clear)


def _split(case: Prepared) -> tuple[Zone | None, list[Zone]]:
    zones = grade(case.curve, case.frees, EVERY_ZONE).zones
    gold = case.gold
    near = [z for z in zones if gold is not None and abs(z.best - gold) <= 1]
    best = max(near, key=lambda z: z.multiple) if near else None
    return best, [z for z in zones if z is not best]


def _highest(points: Curve, frees: np.ndarray, tuning: Tuning = EVERY_ZONE) -> tuple[float, bool]:
    """The highest zone's multiple, and whether any zone is ●●●."""
    zones = grade(points, frees, tuning).zones
    top = max((z.multiple for z in zones), default=0.0)
    return top, any(z.grade is Grade.CLEAR for z in zones)


def _simulated(rng: np.random.Generator) -> tuple[Curve, np.ndarray]:
    """A flat or steadily falling curve with uniform noise, sized like a real session."""
    n = int(rng.integers(20, 61))
    x = np.linspace(0.0, 1.0, n)
    sc = 0.7 - rng.uniform(0.0, 0.3) * x + rng.uniform(-1, 1, n) * rng.uniform(0.005, 0.03)
    kept = np.linspace(rng.uniform(5_000, 40_000), 0, n, endpoint=False).astype(np.int64)
    own = np.round(sc * kept).astype(np.int64)
    points = Curve(np.arange(n, dtype=np.int64), sc, kept, kept - own)
    return points, np.linspace(0.0, 1.0, n, endpoint=False)


def _shuffled(case: Prepared, rng: np.random.Generator) -> tuple[Curve, np.ndarray]:
    """The case's turns in a random order, each turn one message and one stop."""
    order = rng.permutation(len(case.turns))
    index = Index(detail=False)
    index.extend([case.turns[i] for i in order])
    sizes = index.uses_by_message.astype(np.float64)
    before = np.concatenate([[0.0], np.cumsum(sizes)])[:-1]
    return curve(index, np.arange(len(order))), before / max(float(sizes.sum()), 1.0)


def zones_table(found: Multiples) -> str:
    rows = []
    for name in ORDER:
        values = found.kinds[name]
        n = max(len(values), 1)
        above = [percent(sum(1 for v in values if v >= t) / n) for t in _thresholds()[:2]]
        above.append(percent(sum(found.clear[name]) / n))
        rows.append([name, len(values), *quantiles(values, (10, 50, 90, 95)), *above])
    t = _thresholds()
    headers = ["zones", "n", "p10", "median", "p90", "p95"]
    headers += [f"≥ {t[0]:g} (●)", f"≥ {t[1]:g} (●●)", f"●●● (≥ {t[2]:g} and rising)"]
    return table(headers, rows)


def _thresholds() -> tuple[float, float, float]:
    return DEFAULT_TUNING.faint, DEFAULT_TUNING.subtopic, DEFAULT_TUNING.clear
