"""Grades the words' zones with the cues' points (core/points.py), adds the zones the cues
alone make ●●●, and makes the event pick when no zone reaches ●●.

The words' zones stay the measure of how self-contained a stop is; the cues say whether
people would call it a new task. A ●● zone of the words with a stop of ●●● points at or
next to it becomes ●●● there; elsewhere such a stop is a ●●● zone of its own. Zones the
cues made ●●● with fewer than `Points.ranked` points are `cued`: the words' own ●●● zones
outrank them for the pick (joins of unrelated sessions show their junction in the words, and
pieces of real sessions carry real cues); stronger cues rank with the words.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter

import numpy as np
import numpy.typing as npt

from keepd.core.cues import BARE, StopCues
from keepd.core.curve import Curve, FloatArray
from keepd.core.events import EVENTS, Event, EventCodes
from keepd.core.points import Scored, clear_stops
from keepd.core.rounding import rounded
from keepd.core.zone import Grade, Tuning, Zone

_best_of = attrgetter("best")
CUE_NAMES = {Event.BRANCH: "git branch", Event.COMPACTION: "compaction", Event.PAUSE: "pause"}


def with_points(
    zones: list[Zone],
    curve: Curve,
    frees: FloatArray,
    *,
    tuning: Tuning,
    scored: Scored,
    cues: StopCues,
    heights: FloatArray,
    wiggle: float,
) -> list[Zone]:
    """`zones` graded with the cues' points (`scored`), and the zones they alone make ●●●."""
    usable = usable_stops(curve, frees, tuning)
    cued = clear_stops(scored.totals, usable, tuning.points.clear)
    bare = bare_stops(cues, len(curve))
    out: list[Zone] = []
    taken: set[int] = set()
    clear = set(cued)
    for zone in zones:
        near = [k for k in (zone.best - 1, zone.best, zone.best + 1) if k in clear]
        if zone.grade is Grade.FAINT or not near:
            out.append(zone)
            continue
        taken.update(near)
        out.append(
            _raised(zone, near, scored, sc=curve.sc, usable=usable, bare=bare, wiggle=wiggle)
        )
    alone = np.asarray([k for k in cued if k not in taken] if taken else cued, dtype=np.int64)
    bests = past_bare_all(curve.sc, usable, bare, alone, wiggle)
    weak = (scored.totals[alone] < tuning.points.ranked).tolist()
    at = bests.tolist()
    talls = rounded(heights[bests])
    columns = (alone.tolist(), at, at, repeat(Grade.CLEAR), talls, repeat(False), repeat(None))
    # strict=False for the endless repeats; the other columns are one entry a stop of `alone`.
    rows = zip(*columns, scored.reasons_at(alone), weak, strict=False)
    # Each row made a Zone as `Zone._make` makes it, without its Python call a row: a long
    # session has a thousand of these on every analysis.
    out.extend(map(tuple.__new__, repeat(Zone), rows))
    return strongest_each(out)


def strongest_each(zones: list[Zone]) -> list[Zone]:
    """One zone a stop, the strongest (the first of equals; a raised zone may have moved onto
    another zone's stop), oldest first."""
    bests = [zone.best for zone in zones]
    if all(map(int.__lt__, bests, bests[1:])):  # one a stop already, oldest first
        return zones
    if len(set(bests)) == len(bests):  # one a stop already: the order alone
        return sorted(zones, key=_best_of)
    strongest: dict[int, Zone] = {}
    for zone in zones:
        held = strongest.get(zone.best)
        if held is None or zone.rank > held.rank:
            strongest[zone.best] = zone
    return [strongest[k] for k in sorted(strongest)]


def _raised(
    zone: Zone,
    near: list[int],
    scored: Scored,
    *,
    sc: FloatArray,
    usable: npt.NDArray[np.bool_],
    bare: npt.NDArray[np.bool_],
    wiggle: float,
) -> Zone:
    """A words' zone with ●●● points at or next to its stop: a ●●● zone of the words keeps
    its stop and names the cues; a ●● zone becomes ●●● at the stop with the most points."""
    k = max(near, key=lambda j: (scored.totals[j], j))
    cues = tuple(name for name in scored.reasons(k) if name != "words")
    if zone.grade is Grade.CLEAR:
        return zone._replace(reasons=("words", *cues))
    best = past_bare(sc, usable, bare, k, wiggle)
    return zone._replace(
        first=min(zone.first, best),
        last=max(zone.last, best),
        best=best,
        grade=Grade.CLEAR,
        reasons=("words", *cues),
        cued=True,
    )


def past_bare(
    sc: FloatArray, allowed: np.ndarray, bare: npt.NDArray[np.bool_], best: int, wiggle: float
) -> int:
    """The tie rule: a stop at a prompt with no content of its own (shell-mode input, a
    built-in command, "commit") gives way to the prompt after it when their SC ties within
    the wiggle: that prompt is where the work begins."""
    after = best + 1
    if not bare[best] or after >= len(sc) or not allowed[after] or bare[after]:
        return best
    return after if bool(sc[after] >= sc[best] - wiggle) else best


def past_bare_all(
    sc: FloatArray,
    allowed: np.ndarray,
    bare: npt.NDArray[np.bool_],
    stops: npt.NDArray[np.int64],
    wiggle: float,
) -> npt.NDArray[np.int64]:
    """`past_bare` at each of `stops` at once.

    >>> sc = np.array([0.5, 0.4, 0.45, 0.9])
    >>> bare = np.array([False, True, False, True])
    >>> past_bare_all(sc, np.ones(4, bool), bare, np.array([0, 1, 3]), 0.1).tolist()
    [0, 2, 3]
    """
    if not len(stops):
        return stops
    after = stops + 1
    inside = after < len(sc)
    at = np.minimum(after, len(sc) - 1)
    moves = bare[stops] & inside & allowed[at] & ~bare[at] & (sc[at] >= sc[stops] - wiggle)
    return np.where(moves, after, stops)


def bare_stops(cues: StopCues | None, stops: int) -> npt.NDArray[np.bool_]:
    if cues is None or len(cues) != stops:
        return np.zeros(stops, dtype=bool)
    return np.asarray((cues.marks & BARE) > 0)


def usable_stops(curve: Curve, frees: FloatArray, tuning: Tuning) -> npt.NDArray[np.bool_]:
    """Stops a cue or an event may pick: they keep enough words to measure and free some.

    The share floor and the last stop's exclusion are not applied: the newest piece of work
    often begins at one of the last prompts, before anything follows it.
    """
    ok = (curve.kept >= tuning.min_kept_uses) & ~np.isnan(curve.sc) & (frees >= tuning.min_frees)
    ok[: min(2, len(ok))] = False
    return np.asarray(ok)


def event_pick(
    curve: Curve,
    frees: FloatArray,
    tuning: Tuning,
    events: EventCodes,
    heights: FloatArray,
    *,
    bare: npt.NDArray[np.bool_] | None = None,
) -> Zone | None:
    """The latest stop an event precedes, graded ●●, when it keeps enough words to measure and
    is not a prompt without content of its own (`bare`: the /compact before a compaction)."""
    at = np.flatnonzero(events)
    ok = usable_stops(curve, frees, tuning)
    if bare is not None:
        ok &= ~bare
    candidates = at[ok[at]]
    if not len(candidates):
        return None
    k = int(candidates[-1])
    event = EVENTS[events[k]]
    reasons = (CUE_NAMES[event],) if event is not None else ()
    multiple = round(float(heights[k]), 2)
    return Zone(k, k, k, Grade.SUBTOPIC, multiple, event=event, reasons=reasons)
