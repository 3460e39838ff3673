"""Keeps ●●● for the stops where a cue says the work before is over, and grades the rest ●●.

A ●●● zone says a new task begins there, and a break notice goes out only at one. Left one
project out on the calibration labels (issue 27), the words, new words, new files and a long
prompt find a change of work but do not tell a new task from a step of the same one; what says
the work before is over carries across projects: work finished in the turn before (a commit,
push, merge or PR), a git branch switch, a pause, a prompt that says it turns to the next
thing, a prompt after one that closed the work. A ●●● zone that names none of these is shown
●●: it is still a place to stop, not one a person would surely call a new task. The grades
are settled after the pick is made, so the pick is the same stop either way; only its grade
may drop.
"""

from __future__ import annotations

import dataclasses

from keepd.core.points import SIGNAL_NAMES, SURE_FIELDS
from keepd.core.zone import Grade, Zone


def sure_cues(fields: tuple[str, ...]) -> frozenset[str]:
    """The names in `Zone.reasons` of the cues whose `Points` fields are `fields`.

    >>> sorted(sure_cues(("branch", "pause")))
    ['git branch', 'pause']
    """
    return frozenset(SIGNAL_NAMES[field] for field in fields)


SURE = sure_cues(SURE_FIELDS)  # the cues that say the work before is over, as reasons name them


def is_sure(zone: Zone, cues: frozenset[str] = SURE) -> bool:
    """Whether a zone names a cue that says the work before is over.

    >>> is_sure(Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("words", "work finished")))
    True
    >>> is_sure(Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("words", "new words")))
    False
    """
    return any(reason in cues for reason in zone.reasons)


def sure_only(
    pick: Zone | None, zones: list[Zone], cues: frozenset[str] = SURE
) -> tuple[Zone | None, list[Zone]]:
    """The zones (and the pick among them) with every ●●● zone that names none of `cues`
    graded ●●; with no `cues`, as they were.

    >>> sure = Zone(2, 2, 2, Grade.CLEAR, 2.0, reasons=("pause",))
    >>> unsure = Zone(5, 5, 5, Grade.CLEAR, 2.0, reasons=("words", "new files"))
    >>> pick, zones = sure_only(unsure, [sure, unsure])
    >>> [z.grade.value for z in zones], pick.grade.value, pick.best
    (['●●●', '●●'], '●●', 5)
    """
    if not cues:
        return pick, zones
    out = [_settled(zone, cues) for zone in zones]
    if pick is None:
        return None, out
    settled = next((new for old, new in zip(zones, out, strict=True) if old is pick), None)
    return settled if settled is not None else _settled(pick, cues), out


def _settled(zone: Zone, cues: frozenset[str]) -> Zone:
    if zone.grade is not Grade.CLEAR or is_sure(zone, cues):
        return zone
    return dataclasses.replace(zone, grade=Grade.SUBTOPIC)
