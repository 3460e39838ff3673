"""Finds the session's own breaks at its stops: a git branch switch, a compaction, a pause.

The words are the measure; these are what the session file says about how it was worked.
In the labelled sessions, every branch switch and compaction, and seven of the eight pauses
of ten minutes or more, fell within one stop of a place a reader marked as a new piece of
work (docs/measure.md, "Grading"), so when the words show no clear break the latest of them is the
pick. A session state keeps each stop's signals as its branch grows (`Signals`); turning
them into events needs only the pause threshold, a grading constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from keepd.core.tree import Branch

_SWITCH, _COMPACTED = 1, 2  # bits of a stop's flags


class Event(StrEnum):
    """A break the session itself records before a stop, strongest first."""

    BRANCH = "branch"  # the prompt is on another git branch than the stop before it
    COMPACTION = "compaction"  # a compaction lies between the stop before and this one
    PAUSE = "pause"  # the prompt came long after the message before it

    @property
    def mark(self) -> str:
        return {"branch": "⎇", "compaction": "✂", "pause": "⏸"}[self.value]


EVENTS: tuple[Event | None, ...] = (None, Event.BRANCH, Event.COMPACTION, Event.PAUSE)
EventCodes = npt.NDArray[np.int8]  # per stop: an index into EVENTS


@dataclass(frozen=True, slots=True)
class Signals:
    """Per stop: flags (another git branch, a compaction before it) and the pause in seconds."""

    flags: list[int]
    pauses: list[float]


def signals(branch: Branch, start: int = 0) -> Signals:
    """The signals of the stops of `branch` from the `start`-th on; the first stop has none."""
    compacted = sorted(branch.compacted)
    flags: list[int] = []
    pauses: list[float] = []
    for k in range(start, len(branch.stops)):
        if k == 0:
            flags.append(0)
            pauses.append(0.0)
            continue
        before, index = branch.stops[k - 1], branch.stops[k]
        node, previous = branch.messages[index], branch.messages[before]
        switched = bool(node.git_branch and previous.git_branch)
        switched = switched and node.git_branch != previous.git_branch
        after = any(before < at <= index for at in compacted)
        flags.append(_SWITCH * switched | _COMPACTED * after)
        pauses.append(_seconds_between(branch.messages[index - 1].timestamp, node.timestamp))
    return Signals(flags, pauses)


def events(
    flags: npt.NDArray[np.int8], pauses: npt.NDArray[np.float64], pause: float
) -> EventCodes:
    """Each stop's event as a code into `EVENTS`: a branch switch before a compaction before a
    pause of at least `pause` seconds.

    >>> codes = events(np.array([0, 1, 2, 3, 0], np.int8), np.array([0, 0, 0, 0, 900.0]), 600)
    >>> [str(EVENTS[c]) for c in codes]
    ['None', 'branch', 'compaction', 'branch', 'pause']
    """
    codes = np.zeros(len(flags), dtype=np.int8)
    codes[pauses >= pause] = 3
    flagged = np.flatnonzero(flags)  # few
    marked = flags[flagged]
    codes[flagged[(marked & _COMPACTED) > 0]] = 2
    codes[flagged[(marked & _SWITCH) > 0]] = 1
    return codes


def _seconds_between(earlier: str, later: str) -> float:
    """Seconds from one ISO 8601 timestamp to another; 0 when either does not parse."""
    if not earlier or not later:
        return 0.0
    try:
        return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()
    except (ValueError, TypeError):
        return 0.0
