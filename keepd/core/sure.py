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

Last, the pick moves to the latest stop after it among the newest (`Tuning.late_stops` before
the newest prompt, and the newest) whose cues' points alone reach `Points.late`, where the
curve grades no zone: the newest prompts keep too few words to be measured, so neither the
model nor the move above can name one, while the readers' newest piece began among the last
three stops in 20 of the 38 calibration sessions. Left one project out on the 46 calibration
sessions (the cues' points and the ●●● total refitted on the other projects, the window and
the total chosen there: `python -m evaluation.probes.late_pick`), the pick within one stop of
the readers' newest went from 20 to 24 of 38 (the trivial "one before the end": 20), task
switches with ●●● within one from 33 to 37 of 55, ●●● at a reader boundary 74/84 -> 80/91; 3
stops and 2.5 points were chosen in 10 of the 21 folds, and give the most picks and task
switches in sample (24/38, 39/55) with the smallest window. Held out, checked once after the
choice, it did not carry: the pick as before, two ●●● zones off any boundary more, the held-out
joins' picks within one of the gold 88% -> 49% (docs/figures.md, second round of issue 27).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from keepd.core.points import DEFAULT_POINTS, SIGNAL_NAMES, SURE_FIELDS, Scored
from keepd.core.zone import Grade, Zone


def sure_cues(fields: tuple[str, ...]) -> frozenset[str]:
    """The names in `Zone.reasons` of the cues whose `Points` fields are `fields`.

    >>> sorted(sure_cues(("branch", "pause")))
    ['git branch', 'pause']
    """
    return frozenset(SIGNAL_NAMES[field] for field in fields)


SURE = sure_cues(SURE_FIELDS)  # the cues that say the work before is over, as reasons name them
FloatArray = npt.NDArray[np.float64]
HEIGHT = DEFAULT_POINTS.sure_height  # wiggles: words this high are no step of the same work


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
    out = [_settled(zone, cues, height) for zone in zones]
    if pick is None:
        return None, out
    settled = next((new for old, new in zip(zones, out, strict=True) if old is pick), None)
    return settled if settled is not None else _settled(pick, cues, height), out


def _settled(zone: Zone, cues: frozenset[str], height: float) -> Zone:
    if zone.grade is not Grade.CLEAR or is_sure(zone, cues, height):
        return zone
    return dataclasses.replace(zone, grade=Grade.SUBTOPIC)


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
        for zone in zones
        if zone.grade is Grade.CLEAR
        and after < zone.best <= newest
        and zone.best >= newest - recent
        and any(reason in cues for reason in zone.reasons)
    ]
    return max(later, key=lambda zone: zone.best) if later else pick


def later_cued(
    pick: Zone | None,
    zones: list[Zone],
    scored: Scored,
    heights: FloatArray,
    *,
    recent: int,
    total: float,
    cues: frozenset[str] = SURE,
    height: float = HEIGHT,
    bare: npt.NDArray[np.bool_] | None = None,
) -> tuple[Zone | None, list[Zone]]:
    """The pick moved to the latest stop after it among the `recent` stops before the newest
    or at it whose cues' points reach `total` (`Points.late`), and the zones with one there:
    the curve grades no zone at a stop that keeps too few words, as most of the newest do. A
    ●● or ●●● zone there is the pick; else a zone made there is ●●● where it names one of
    `cues` (or the words stand `height` wiggles high), ●● where not. A prompt with no content
    of its own (`bare`: /compact, "commit") is no stop to move to, nor the newest prompt after
    one (the pick moves off the newest prompt to the stop before it). With `recent` 0, as they
    were.

    >>> import numpy as np
    >>> from keepd.core.points import Signal
    >>> present = np.array([False, True, False, False, True, False])
    >>> scored = Scored(3.0 * present, [Signal("pause", "pause", 3.0, present)])
    >>> early = Zone(1, 1, 1, Grade.CLEAR, 2.0, reasons=("pause",))
    >>> pick, zones = later_cued(early, [early], scored, np.zeros(6), recent=3, total=3.0)
    >>> pick.best, pick.grade.value, pick.reasons, [z.best for z in zones]
    (4, '●●●', ('pause',), [1, 4])
    >>> later_cued(early, [early], scored, np.zeros(6), recent=0, total=3.0)[0].best
    1
    """
    stops = len(scored.totals)
    if recent <= 0 or stops == 0:
        return pick, zones
    newest = stops - 1
    after = -1 if pick is None else pick.best
    empty = bare if bare is not None else np.zeros(stops, dtype=bool)
    found = [
        k
        for k in range(max(after + 1, newest - recent, 1), newest + 1)
        if scored.totals[k] >= total and not empty[k] and not (k == newest and empty[k - 1])
    ]
    if not found:
        return pick, zones
    k = found[-1]
    here = next((z for z in zones if z.best == k and z.grade is not Grade.FAINT), None)
    if here is not None:
        return here, zones
    reasons = scored.reasons(k)
    made = Zone(k, k, k, Grade.CLEAR, round(float(heights[k]), 2), reasons=reasons)
    made = _settled(made, cues, height)
    kept = [zone for zone in zones if zone.best != k]
    return made, sorted([*kept, made], key=lambda zone: zone.best)
