"""How a person reaches a stop in Claude Code's rewind picker, in the one wording every front end
(report, note, notices, status line, JSON) prints.

Checked on the real picker (tests/claude): it opens with the selection on its last row,
"(current)", and ↑ pressed k times from there selects the k-th prompt from the end, so a stop with
`below` newer stops is `below + 1` presses away. "↑ N more" / "↓ N more" count the rows outside
the visible window, not the distance to anything: an instruction cannot lean on them.
"""

from __future__ import annotations

from typing import Any

ROW_CHARS = 60  # enough of the row to recognise it; the picker cuts rows at the terminal's width
SUMMARIZE = "“Summarize up to here”"
UNREACHABLE = "That stop is before the last compaction: the picker cannot reach it."
NOTHING = "Nothing to summarize yet."


def presses(below: int) -> int:
    """↑ presses from "(current)" to the stop with `below` newer stops."""
    return below + 1


def keys(below: int) -> str:
    """The keys alone, where there is no room for more (the status line, session lists).

    >>> keys(0), keys(4)
    ('Esc Esc ↑1', 'Esc Esc ↑5')
    """
    return f"Esc Esc ↑{presses(below)}"


def row(quote: str, room: int = ROW_CHARS) -> str:
    """The start of the picker's row for a stop, quoted.

    >>> row("fix the parser"), row("x" * 70, 10)
    ('“fix the parser”', '“xxxxxxxxx…”')
    """
    text = " ".join(quote.split())
    if len(text) > room:
        text = text[: room - 1] + "…"
    return f"“{text}”"


def parts(below: int, quote: str, room: int = ROW_CHARS) -> list[str]:
    """The instruction's steps, in order.

    >>> parts(0, "run the tests")[1:4]
    ['↑ once from “(current)”', 'the row reads “run the tests”', 'Enter']
    >>> parts(4, "fix it")[1]
    '↑ 5 times from “(current)”'
    """
    count = presses(below)
    times = "once" if count == 1 else f"{count} times"
    return [
        "Esc Esc",
        f"↑ {times} from “(current)”",
        f"the row reads {row(quote, room)}",
        "Enter",
        SUMMARIZE,
    ]


def sentence(below: int, quote: str, room: int = ROW_CHARS) -> str:
    """The instruction on one line, steps joined by arrows."""
    return " → ".join(parts(below, quote, room))


def instruction(stop: Any | None, room: int = ROW_CHARS) -> str:
    """The instruction for a stop (anything with `below`, `quote` and `in_picker`), or why there
    is none; `room` caps the row's quote."""
    if stop is None:
        return NOTHING
    if not stop.in_picker:
        return UNREACHABLE
    return sentence(stop.below, stop.quote, room)


def as_json(stop: Any | None) -> dict[str, Any] | None:
    """The instruction's fields for `--json`: the stop, the presses, the row and the sentence."""
    if stop is None or not stop.in_picker:
        return None
    return {
        "stop": stop.uuid,
        "presses": presses(stop.below),
        "row": " ".join(stop.quote.split()),
        "text": sentence(stop.below, stop.quote),
    }
