"""Keeps ●●● for the stops where a cue says the work before is over, and grades the rest ●●.

A ●●● zone says a new task begins there, and a break notice goes out only at one. Left one
project out on the calibration labels (issue 27), the words, new words, new files and a long
prompt find a change of work but do not tell a new task from a step of the same one; what says
the work before is over carries across projects: work finished in the turn before (a commit,
push, merge or PR), a git branch switch, a pause, a prompt that says it turns to the next
thing, a prompt after one that closed the work. A ●●● zone that names none of these is shown
●●, unless the words stand `Points.sure_height` wiggles high there (a junction of unrelated
work stands some 40; 10 is the newest-work model's own cap on height, and 10, 15 and 20 gave
the same ●●● figures left one project out, 8 fewer at a boundary): it is still a place to
stop, not one a person would surely call a new task. The grades are settled after the model
makes its pick: the pick stays at its stop, only its grade may drop.

Then the pick gives way to a later ●●● zone that names such a cue among the newest prompts
(`Tuning.recent`, the newest one included: a pick there moves to the stop before it): the
newest-work model weighs every stop's cues by what the labelled sessions showed, and a later
sure break near the end is where the readers most often saw the newest task begin. On the 46
calibration sessions the pick within one stop of the readers' newest went from 21 to 23 of 38
in sample and from 18 to 20 of 38 left one project out; windows of 4, 5, 6 and 8 prompts gave
the same, 3 one less (`python -m evaluation --calibration`; 5 chosen on those sessions).
"""

from __future__ import annotations

from keepd.core.points import DEFAULT_POINTS, SIGNAL_NAMES, SURE_FIELDS
from keepd.core.zone import Grade, Zone


def sure_cues(fields: tuple[str, ...]) -> frozenset[str]:
    """The names in `Zone.reasons` of the cues whose `Points` fields are `fields`.

    >>> sorted(sure_cues(("branch", "pause")))
    ['git branch', 'pause']
    """
    return frozenset(SIGNAL_NAMES[field] for field in fields)


SURE = sure_cues(SURE_FIELDS)  # the cues that say the work before is over, as reasons name them
HEIGHT = DEFAULT_POINTS.sure_height  # wiggles: words this high are no step of the same work
# Of those cues, the ones whose ●●● notices named a new task more often when replayed on the
# calibration sessions (12 of 20 break notices against 4 of 12 kept ●●● by a pause alone or the
# words' height alone: docs/figures.md): what the notice calls fairly sure.
CARRYING = sure_cues(("finished", "branch", "turns", "after_closing"))


def carrying_cue(reasons: list[str] | tuple[str, ...] | None) -> str | None:
    """The first of `reasons` that is a cue in `CARRYING`, or None.

    >>> carrying_cue(["words", "pause", "work finished"]), carrying_cue(["pause"])
    ('work finished', None)
    """
    return next((reason for reason in reasons or () if reason in CARRYING), None)


def is_sure(zone: Zone, cues: frozenset[str] = SURE, height: float = HEIGHT) -> bool:
    """Whether a zone names a cue that says the work before is over, or the words stand
    `height` wiggles high there.

    >>> is_sure(Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("words", "work finished")))
    True
    >>> is_sure(Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("words", "new words")))
    False
    >>> is_sure(Zone(3, 3, 3, Grade.CLEAR, 40.0, reasons=("words",)))
    True
    """
    return zone.multiple >= height or any(reason in cues for reason in zone.reasons)


def sure_only(
    pick: Zone | None,
    zones: list[Zone],
    cues: frozenset[str] = SURE,
    height: float = HEIGHT,
) -> tuple[Zone | None, list[Zone]]:
    """The zones (and the pick among them) with every ●●● zone that names none of `cues`
    and stands less than `height` wiggles high graded ●●; with no `cues`, as they were.

    >>> sure = Zone(2, 2, 2, Grade.CLEAR, 2.0, reasons=("pause",))
    >>> unsure = Zone(5, 5, 5, Grade.CLEAR, 2.0, reasons=("words", "new files"))
    >>> pick, zones = sure_only(unsure, [sure, unsure])
    >>> [z.grade.value for z in zones], pick.grade.value, pick.best
    (['●●●', '●●'], '●●', 5)
    """
    if not cues:
        return pick, zones
    out = list(zones)
    settled = None
    clear = Grade.CLEAR
    for at, zone in enumerate(zones):  # a long session has a thousand zones, each analysis
        if zone.grade is clear and not zone.multiple >= height and cues.isdisjoint(zone.reasons):
            out[at] = _subtopic(zone)
        if zone is pick and settled is None:
            settled = out[at]
    if pick is None:
        return None, out
    return settled if settled is not None else _settled(pick, cues, height), out


def _settled(zone: Zone, cues: frozenset[str], height: float) -> Zone:
    if zone.grade is not Grade.CLEAR or is_sure(zone, cues, height):
        return zone
    return _subtopic(zone)


def _subtopic(zone: Zone) -> Zone:
    """`zone` graded ●●."""
    return zone._replace(grade=Grade.SUBTOPIC)


def later_sure(
    pick: Zone | None, zones: list[Zone], stops: int, recent: int, cues: frozenset[str] = SURE
) -> Zone | None:
    """The latest ●●● zone naming one of `cues` after `pick` among the `recent` stops before
    the newest or at it, else `pick`; with `recent` 0, `pick`. (A pick at the newest prompt
    then moves to the stop before it: core/settle.py.)

    >>> early = Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("pause",))
    >>> late = Zone(8, 8, 8, Grade.CLEAR, 2.0, reasons=("work finished",))
    >>> later_sure(early, [early, late], 10, 5).best
    8
    >>> later_sure(early, [early, late], 20, 5).best  # 8 is not among the newest prompts
    3
    >>> words = Zone(8, 8, 8, Grade.CLEAR, 40.0, reasons=("words",))
    >>> later_sure(early, [early, words], 10, 5).best  # the words alone do not move it
    3
    """
    if recent <= 0:
        return pick
    newest = stops - 1
    after = -1 if pick is None else pick.best
    later = [
        zone
        for zone in _from(zones, newest - recent)
        if zone.grade is Grade.CLEAR
        and after < zone.best <= newest
        and any(reason in cues for reason in zone.reasons)
    ]
    return max(later, key=lambda zone: zone.best) if later else pick


def _from(zones: list[Zone], first: int) -> list[Zone]:
    """The zones (oldest first) whose stop is `first` or later, read from the newest back."""
    at = len(zones)
    while at > 0 and zones[at - 1].best >= first:
        at -= 1
    return [zone for zone in zones[at:] if zone.best >= first]
