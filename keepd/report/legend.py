"""The words behind the report's marks (grades, shapes, the session's breaks), for a key line on
the terminal and the note's plain-words header; both read the marks from where they are made."""

from __future__ import annotations

from collections.abc import Iterable

from keepd.core.events import Event
from keepd.core.grade import FALLING_MARK, Grade

GRADE_WORDS = {
    Grade.CLEAR.value: "a clear change of work",
    Grade.SUBTOPIC.value: "a sub-topic",
    Grade.FAINT.value: "barely above the noise",
}
FALLING_WORDS = "the curve holds, then falls away"
EVENT_WORDS = {
    Event.BRANCH.value: "the prompt is on another git branch",
    Event.COMPACTION.value: "right after a compaction",
    Event.PAUSE.value: "a pause of ten minutes or more before the prompt",
}
EVENT_SHORT = {
    Event.BRANCH.value: "another git branch",
    Event.COMPACTION.value: "a compaction",
    Event.PAUSE.value: "a pause",
}
WIGGLE_WORDS = "the curve's own noise (its median step)"
# The terminal's key line is short: one line at 100 columns.
GRADE_SHORT = {
    Grade.CLEAR.value: "new work",
    Grade.SUBTOPIC.value: "sub-topic",
    Grade.FAINT.value: "faint",
}
FALLING_SHORT = "holds, falls"
EVENT_MARKS = {
    Event.BRANCH.value: "git branch",
    Event.COMPACTION.value: "compaction",
    Event.PAUSE.value: "pause",
}


def marks_key(shapes: Iterable[str], events: Iterable[str]) -> list[str]:
    """"mark words" for each grade, the falling shape and each event that is shown, in the
    order they are defined.

    >>> marks_key(["●●●", "▔▔▁"], ["pause"])
    ['●●● new work', '▔▔▁ holds, falls', '⏸ pause']
    """
    shown, happened = set(shapes), set(events)
    parts = [f"{mark} {words}" for mark, words in GRADE_SHORT.items() if mark in shown]
    if FALLING_MARK in shown:
        parts.append(f"{FALLING_MARK} {FALLING_SHORT}")
    parts += [
        f"{Event(name).mark} {words}" for name, words in EVENT_MARKS.items() if name in happened
    ]
    return parts


def plain_words() -> str:
    """The note's header: what every term of the page means, in one paragraph."""
    grades = ", ".join(f"{mark} {words}" for mark, words in GRADE_WORDS.items())
    events = ", ".join(f"{Event(name).mark} {words}" for name, words in EVENT_SHORT.items())
    return (
        "A place to stop is a prompt the rewind picker (Esc Esc) lists: summarizing up to it "
        "keeps everything from it on word for word. Self-containment (SC) is the share of the "
        "kept part's word uses whose word first appeared in the kept part: the higher, the less "
        f"the summary has to carry. The wiggle is {WIGGLE_WORDS}; a zone is a break that "
        f"stands out from it: {grades}. After a zone's mark, the session's own break there: "
        f"{events}."
    )
