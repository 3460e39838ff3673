"""How sure keepd is that a new task begins at a ●●● stop, in the one sentence the notice, the
report, the note and `--json` (`steps.sure`) say: fairly, where the reader puts a task start
there or a cue that carried across projects says the work before is over; less, where only a
pause or the words' height keeps the ●●● (docs/figures.md measures both)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from keepd.core.reader import TASK
from keepd.core.sure import carrying_cue
from keepd.core.zone import Grade

if TYPE_CHECKING:
    from keepd.core.results import Analysis, Stop

CLEAR = Grade.CLEAR.value
FAIRLY, LESS = "Fairly sure", "Less sure"  # how each sentence opens, before its colon


# Why a ●●● stop is fairly sure, by the cue (core/sure.py `CARRYING`) that says so.
SURE_WORDS = {
    "work finished": "work was finished just before it",
    "git branch": "it is on another git branch",
    "says it turns to the next thing": "the prompt says it moves on to the next thing",
    "the prompt before closed the work": "the prompt before it closed the work",
}


def how_sure(
    grade: str | None, reasons: list[str] | tuple[str, ...] | None, *, reader_task: bool = False
) -> str | None:
    """How sure a ●●● stop's new task is, in a sentence (None for any other grade): fairly,
    where the reader (`keepd report --ask-claude`) puts a task start there (`reader_task`) or a
    cue that carried across projects says the work before is over; less, where only a pause or
    the words do.

    >>> how_sure("●●●", ["words", "work finished"])
    'Fairly sure: work was finished just before it.'
    >>> how_sure("●●●", ["pause", "new words"]), how_sure("●●", ["pause"])
    ('Less sure: only a pause marks it.', None)
    """
    if grade != CLEAR:
        return None
    if reader_task:
        return f"{FAIRLY}: your own Claude Code, asked, says a new task begins here."
    cue = carrying_cue(reasons)
    if cue is not None:
        return f"{FAIRLY}: {SURE_WORDS[cue]}."
    if "pause" in (reasons or ()):
        return f"{LESS}: only a pause marks it."
    return f"{LESS}: only the words change there."


def said_sure(analysis: Analysis, stop: Stop) -> str | None:
    """`how_sure` for a stop of `analysis`, the reader's answer read as the daemon reads it
    (`confirms`: a task start at the stop or within one row of it); a step it names there
    makes nothing surer."""
    reader = analysis.reader
    task = reader is not None and confirms(analysis, stop.uuid, reader.starts)
    return how_sure(stop.grade, stop.reasons, reader_task=task)


def confirms(analysis: Analysis, uuid: str, starts: list[tuple[str, str]]) -> bool:
    """Whether the reader's `starts` (uuid, kind) put a task start at the stop `uuid` or
    within one picker row of it, by the rows below each in `analysis` (a start it no longer
    holds, such as one cut away, confirms nothing).

    >>> from keepd.core.results import Stop
    >>> def stop(uuid, below):
    ...     return Stop(uuid, 0, below, True, 0.0, None, 0, 0, None, None, None, "", "")
    >>> class Stops:
    ...     stops = [stop("a", 2), stop("b", 1), stop("c", 0)]
    ...     def stop(self, uuid):
    ...         return next((s for s in self.stops if s.uuid == uuid), None)
    >>> confirms(Stops(), "c", [("b", "task")]), confirms(Stops(), "c", [("a", "task")])
    (True, False)
    >>> confirms(Stops(), "b", [("b", "step")])
    False
    """
    here = analysis.stop(uuid)
    if here is None:
        return False
    for start, kind in starts:
        there = analysis.stop(start) if kind == TASK else None
        if there is not None and abs(there.below - here.below) <= 1:
            return True
    return False
