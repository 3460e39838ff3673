"""The report's marks and the words behind them (grades, the falling shape, the session's own
breaks): `mark` makes a stop's mark for the terminal, the note and the JSON alike, and the key
line and the note's header explain only what they show."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from keepd.core.events import Event
from keepd.core.grade import FALLING_MARK, Grade


class Words(NamedTuple):
    """A mark's meaning in a sentence (the note) and in a few words (the terminal's key)."""

    long: str
    short: str


GRADES = {
    Grade.CLEAR.value: Words("a new task starts here", "a new task starts here"),
    Grade.SUBTOPIC.value: Words("a next step of the same work", "a next step"),
    Grade.FAINT.value: Words("a small shift, barely clearer than the rest", "a small shift"),
}
FALLING = Words("the words stand on their own there, then lean on what came before", "holds, falls")
EVENTS = {
    Event.BRANCH.value: Words("the prompt is on another git branch", "another git branch"),
    Event.COMPACTION.value: Words("right after a compaction", "after a compaction"),
    Event.PAUSE.value: Words("a pause of ten minutes or more before the prompt", "a pause before"),
}
GRADE_WORDS = {mark: words.long for mark, words in GRADES.items()}
EVENT_WORDS = {name: words.long for name, words in EVENTS.items()}
FALLING_WORDS = FALLING.long
NO_BREAK = "no clear break"


def mark(grade: str | None, shape: str | None, event: str | None = None) -> str:
    """A stop's mark wherever a person sees it: its grade, the falling shape when the zone only
    falls, and the glyph of the session's own break before it (a pause, a branch, a compaction).

    >>> mark("●●", "●●"), mark("●●●", "▔▔▁", "pause"), mark("●●", "⏸", "pause"), mark(None, None)
    ('●●', '●●● ▔▔▁ ⏸', '●● ⏸', '')
    >>> mark(None, None, "branch")
    '⎇'
    """
    parts = [grade] if grade else []
    if shape == FALLING_MARK:
        parts.append(FALLING_MARK)
    if event:
        parts.append(Event(event).mark)
    return " ".join(parts)


def grade_words(grade: str | None) -> str:
    """A grade in words, for a sentence (the notice, the note's verdict).

    >>> grade_words("●●●"), grade_words(None)
    ('a new task starts here', 'no clear break')
    """
    return GRADES[grade].long if grade in GRADES else NO_BREAK


def marks_key(marks: Iterable[str]) -> list[str]:
    """ "mark words" for each grade, the falling shape and each break glyph found in `marks`
    (the marks on screen), in the order they are defined.

    >>> marks_key(["●●● ▔▔▁", "⏸"])
    ['●●● a new task starts here', '▔▔▁ holds, falls', '⏸ a pause before']
    >>> marks_key(["●●"])
    ['●● a next step']
    """
    pieces = {piece for text in marks for piece in text.split()}
    parts = [f"{grade} {words.short}" for grade, words in GRADES.items() if grade in pieces]
    if FALLING_MARK in pieces:
        parts.append(f"{FALLING_MARK} {FALLING.short}")
    parts += [
        f"{Event(name).mark} {words.short}"
        for name, words in EVENTS.items()
        if Event(name).mark in pieces
    ]
    return parts


def plain_words() -> str:
    """The note's header: what every term of the page means, in one paragraph."""
    grades = ", ".join(f"{grade} {words}" for grade, words in GRADE_WORDS.items())
    events = ", ".join(f"{Event(name).mark} {words.short}" for name, words in EVENTS.items())
    return (
        "A place to stop is a prompt the rewind picker (Esc Esc) lists: summarizing up to it "
        "keeps everything from it on word for word. ↑N names it by the keys that reach it: "
        "↑ pressed N times from “(current)”. Self-containment (SC) is the share of the kept "
        "part's word uses whose word first appeared in the kept part: the higher, the less "
        "the summary has to carry. The noise is the curve's median step between neighbouring "
        f"stops; a stop that stands out from it gets a mark: {grades}. After the mark, the "
        f"session's own break there: {events}."
    )
