"""Finds the session's own breaks at its stops: a git branch switch, a compaction, a pause.

The words are the measure; these are what the session file says about how it was worked.
In the labelled sessions, every branch switch and compaction, and seven of the eight pauses
of ten minutes or more, fell within one stop of a place a reader marked as a new piece of
work (README, "Grading"), so when the words show no clear break the latest of them is the
pick.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from keepd.core.tree import Branch


class Event(StrEnum):
    """A break the session itself records before a stop, in the order they are named."""

    BRANCH = "branch"  # the prompt is on another git branch than the stop before it
    COMPACTION = "compaction"  # a compaction lies between the stop before and this one
    PAUSE = "pause"  # the prompt came long after the message before it

    @property
    def mark(self) -> str:
        return {"branch": "⎇", "compaction": "✂", "pause": "⏸"}[self.value]


def stop_events(branch: Branch, pause_seconds: float) -> list[Event | None]:
    """The event before each stop of `branch`, or None; the first stop has nothing before it.

    >>> from keepd.core.messages import Node
    >>> def prompt(i, at, git):
    ...     return Node(i, "user", f"u{i}", is_prompt=True, timestamp=at, git_branch=git)
    >>> nodes = [prompt(0, "2026-01-01T10:00:00Z", "main"),
    ...          prompt(1, "2026-01-01T10:01:00Z", "main"),
    ...          prompt(2, "2026-01-01T10:30:00Z", "main"),
    ...          prompt(3, "2026-01-01T10:31:00Z", "docs")]
    >>> [str(e) for e in stop_events(Branch(nodes, [0, 1, 2, 3], None), 600)]
    ['None', 'None', 'pause', 'branch']
    """
    compacted = sorted(branch.compacted)
    out: list[Event | None] = []
    previous = None
    for k, index in enumerate(branch.stops):
        out.append(None if k == 0 else _event(branch, previous, index, compacted, pause_seconds))
        previous = index
    return out


def _event(
    branch: Branch, previous: int | None, index: int, compacted: list[int], pause: float
) -> Event | None:
    node, before = branch.messages[index], branch.messages[previous or 0]
    if node.git_branch and before.git_branch and node.git_branch != before.git_branch:
        return Event.BRANCH
    if any((previous or 0) < at <= index for at in compacted):
        return Event.COMPACTION
    if index and _seconds_between(branch.messages[index - 1].timestamp, node.timestamp) >= pause:
        return Event.PAUSE
    return None


def _seconds_between(earlier: str, later: str) -> float:
    """Seconds from one ISO 8601 timestamp to another; 0 when either does not parse."""
    try:
        return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()
    except (ValueError, TypeError):
        return 0.0
