"""Makes the pick where the newest piece of work most likely begins (core/newest.py's model)
from a grading's zones and the cues' points, and names why."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from keepd.core.cued import bare_stops, past_bare, usable_stops
from keepd.core.cues import StopCues
from keepd.core.curve import Curve, FloatArray
from keepd.core.events import EVENTS, Event, EventCodes
from keepd.core.newest import (
    COMPACTION,
    HEIGHT,
    POINTS,
    ZONE_FEATURES,
    Column,
    Newest,
    chances,
    newest_scores,
    newest_stop,
    zone_columns,
)
from keepd.core.points import Scored
from keepd.core.zone import STRENGTH, Grade, Tuning, Zone

# Features that are not cues: the words' height, the points' total and zone grades do not
# name a model's pick (the cues behind the total do).
_NOT_REASONS = frozenset({HEIGHT, POINTS, COMPACTION, *ZONE_FEATURES})
NEWEST_REASON = "newest work"


@dataclass(frozen=True, slots=True)
class Chosen:
    """What grading found before the pick: its zones, the cues' points, the heights (in
    wiggles) and the wiggle."""

    zones: list[Zone]
    scored: Scored
    heights: FloatArray
    wiggle: float


def columns(
    scored: Scored,
    zones: list[Zone],
    heights: FloatArray,
    events: EventCodes | None,
    cap: float,
) -> list[Column]:
    """Every stop's named features: each cue signal, the points' total, a compaction before
    it, the words' height and the zone grade there."""
    stops = len(heights)
    signals: list[Column] = [(signal.name, signal.present) for signal in scored.signals]
    codes = events if events is not None and len(events) == stops else np.zeros(stops, np.int8)
    compaction = codes == EVENTS.index(Event.COMPACTION)
    graded = [(zone.best, STRENGTH[zone.grade], zone.cued) for zone in zones]
    return [
        *signals,
        (POINTS, scored.totals),
        (COMPACTION, compaction),
        *zone_columns(stops, graded, heights, cap),
    ]


def newest_pick(
    chosen: Chosen,
    curve: Curve,
    frees: FloatArray,
    *,
    tuning: Tuning,
    events: EventCodes | None,
    cues: StopCues,
) -> tuple[Zone | None, list[Zone]]:
    """The pick and the zones: the stop of the highest newest score, moved past a content-free
    prompt on a tie; the zone there if it is ●● or ●●●, else a ●● zone the model alone makes,
    named by the cues it read there. None under the model's floor."""
    model = tuning.newest
    if model is None:
        return None, chosen.zones
    usable = usable_stops(curve, frees, tuning)
    found = columns(chosen.scored, chosen.zones, chosen.heights, events, model.height_cap)
    bare = bare_stops(cues, len(curve))
    k = newest_at(model, found, usable, sc=curve.sc, bare=bare, wiggle=chosen.wiggle)
    zones = chosen.zones
    if k is None:
        return None, zones
    # From the newest back: the model's stop is nearly always among the last (one zone a stop).
    here = next((z for z in reversed(zones) if z.best == k and z.grade is not Grade.FAINT), None)
    if here is not None:
        return here, zones
    made = Zone(
        k,
        k,
        k,
        Grade.SUBTOPIC,
        round(float(chosen.heights[k]), 2),
        reasons=_reasons(model, found, chosen.scored, k),
    )
    kept = [zone for zone in zones if zone.best != k]
    return made, sorted([*kept, made], key=lambda zone: zone.best)


def _reasons(model: Newest, found: list[Column], scored: Scored, k: int) -> tuple[str, ...]:
    """The cues that earned stop `k` points, the signals the model weighs on their own, then
    the model itself."""
    named = list(scored.reasons(k))
    for name, values in found:
        weighed = model.weight(name) > 0 and name not in _NOT_REASONS
        if weighed and name not in named and bool(np.asarray(values)[k]):
            named.append(name)
    return (*named, NEWEST_REASON)


def newest_at(
    model: Newest,
    found: list[Column],
    usable: npt.NDArray[np.bool_],
    *,
    sc: FloatArray,
    bare: npt.NDArray[np.bool_],
    wiggle: float,
) -> int | None:
    """The stop of the highest newest score over the floor, past a content-free prompt on a
    tie (the tie rule, core/cued.py)."""
    k = newest_stop(newest_scores(chances(model, found, len(sc)), usable), model.floor)
    return None if k is None else past_bare(sc, usable, bare, k, wiggle)
