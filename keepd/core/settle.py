"""Keeps the zones and the pick off prompts a person would not summarize up to: a prompt that
only closes the work before ("great, that works. commit it") when the prompt after it starts
the new one, and, for the pick, the newest prompt (issue 24).

A zone at a closing prompt moves to the prompt after it, where the new work begins. The pick
never names the newest prompt: its turn is the one just answered, and a break there is not yet
one a reader could confirm. A pick there moves to the stop before it, within one stop, named
"new work at the newest prompt" before the reasons it had; when that stop is the closing prompt
the new work began after, there is no pick yet.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from keepd.core.cued import strongest_each
from keepd.core.points import Scored
from keepd.core.zone import Zone

CLOSED = "after_closing"  # the `Points` field of "the prompt before closed the work"
AT_NEWEST = "new work at the newest prompt"  # the reason a pick moved off the newest prompt


def closing_prompts(scored: Scored | None, stops: int) -> npt.NDArray[np.bool_]:
    """The stops whose prompt closes the work: the stop after each carries the cue.

    >>> from keepd.core.points import Signal
    >>> after = np.array([False, False, True, False])
    >>> closing_prompts(Scored(np.zeros(4), [Signal(CLOSED, "", 1.0, after)]), 4).tolist()
    [False, True, False, False]
    """
    found = np.zeros(stops, dtype=bool)
    signal = next((s for s in scored.signals if s.field == CLOSED), None) if scored else None
    if signal is not None and len(signal.present) == stops:
        found[:-1] = signal.present[1:]
    return found


def settled(
    pick: Zone | None, zones: list[Zone], closing: npt.NDArray[np.bool_]
) -> tuple[Zone | None, list[Zone]]:
    """The pick and the zones moved off closing prompts, and the pick off the newest prompt.

    >>> from keepd.core.zone import Grade
    >>> zone = Zone(3, 3, 3, Grade.CLEAR, 2.0)
    >>> closing = np.array([False, False, False, True, False, False])
    >>> pick, zones = settled(zone, [zone], closing)
    >>> pick.best, [z.best for z in zones]  # 3 closes the work: 4 begins the new one
    (4, [4])
    >>> last = Zone(5, 5, 5, Grade.CLEAR, 2.0)
    >>> settled(last, [last], np.zeros(6, bool))[0].best  # never the newest prompt
    4
    >>> settled(last, [last], np.array([0, 0, 0, 0, 1, 0], bool))[0] is None
    True
    """
    stops = len(closing)
    kept = strongest_each(_moved_past_closing(zones, closing))  # two may now meet
    if pick is None:
        return None, kept
    at = _past_closing(pick, closing)
    if at.best < stops - 1:
        return at, kept
    before = stops - 2
    if before < 0 or closing[before]:
        return None, kept
    reasons = (AT_NEWEST, *(r for r in at.reasons if r != AT_NEWEST))
    short = at._replace(first=min(at.first, before), best=before, event=None, reasons=reasons)
    rest = [zone for zone in kept if zone.best not in (at.best, before)]
    return short, sorted([*rest, short], key=lambda zone: zone.best)


def _moved_past_closing(zones: list[Zone], closing: npt.NDArray[np.bool_]) -> list[Zone]:
    """`zones` with each one at a closing prompt moved to the prompt after it, the stops
    looked up at once (a long session has a thousand zones, on every analysis)."""
    bests = np.array([zone.best for zone in zones], dtype=np.int64)
    moving = closing[bests] & (bests + 1 < len(closing))
    out = list(zones)
    for at in np.flatnonzero(moving).tolist():
        out[at] = _past_closing(zones[at], closing)
    return out


def _past_closing(zone: Zone, closing: npt.NDArray[np.bool_]) -> Zone:
    k = zone.best
    if k + 1 >= len(closing) or not bool(closing[k]):
        return zone
    return zone._replace(best=k + 1, last=max(zone.last, k + 1))
