"""The words behind the report's marks (grades, shapes, the session's breaks), for a key line on
the terminal and the note's plain-words header; both read the marks from where they are made."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from keepd.core.events import Event
from keepd.core.grade import FALLING_MARK, Grade


class Words(NamedTuple):
    """A mark's meaning in a sentence (the note) and in a word or two (the terminal's key)."""

    long: str
    short: str


GRADES = {
    Grade.CLEAR.value: Words("a clear change of work", "new work"),
    Grade.SUBTOPIC.value: Words("a sub-topic", "sub-topic"),
    Grade.FAINT.value: Words("barely above the noise", "faint"),
}
FALLING = Words("the curve holds, then falls away", "holds, falls")
EVENTS = {
    Event.BRANCH.value: Words("the prompt is on another git branch", "git branch"),
    Event.COMPACTION.value: Words("right after a compaction", "compaction"),
    Event.PAUSE.value: Words("a pause of ten minutes or more before the prompt", "pause"),
}
GRADE_WORDS = {mark: words.long for mark, words in GRADES.items()}
EVENT_WORDS = {name: words.long for name, words in EVENTS.items()}
FALLING_WORDS = FALLING.long
WIGGLE_WORDS = "the curve's own noise (its median step)"


def marks_key(shapes: Iterable[str], events: Iterable[str]) -> list[str]:
    """ "mark words" for each grade, the falling shape and each event that is shown, in the
    order they are defined.

    >>> marks_key(["●●●", "▔▔▁"], ["pause"])
    ['●●● new work', '▔▔▁ holds, falls', '⏸ pause']
    """
    shown, happened = set(shapes), set(events)
    parts = [f"{mark} {words.short}" for mark, words in GRADES.items() if mark in shown]
    if FALLING_MARK in shown:
        parts.append(f"{FALLING_MARK} {FALLING.short}")
    parts += [
        f"{Event(name).mark} {words.short}" for name, words in EVENTS.items() if name in happened
    ]
    return parts


def plain_words() -> str:
    """The note's header: what every term of the page means, in one paragraph."""
    grades = ", ".join(f"{mark} {words}" for mark, words in GRADE_WORDS.items())
    events = ", ".join(f"{Event(name).mark} {words.short}" for name, words in EVENTS.items())
    return (
        "A place to stop is a prompt the rewind picker (Esc Esc) lists: summarizing up to it "
        "keeps everything from it on word for word. Self-containment (SC) is the share of the "
        "kept part's word uses whose word first appeared in the kept part: the higher, the less "
        f"the summary has to carry. The wiggle is {WIGGLE_WORDS}; a zone is a break that "
        f"stands out from it: {grades}. After a zone's mark, the session's own break there: "
        f"{events}."
    )
