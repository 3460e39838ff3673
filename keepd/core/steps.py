"""How a person reaches a stop in Claude Code's rewind picker and its menu, and what the cut
leaves, in the one wording every front end (report, note, notices, status line, JSON) prints.

Checked on the real picker (tests/claude): it opens with the selection on its last row,
"(current)", and ↑ pressed k times from there selects the k-th prompt from the end, so a stop with
`below` newer stops is `below + 1` presses away. "↑ N more" / "↓ N more" count the rows outside
the visible window, not the distance to anything: an instruction cannot lean on them.

Enter on a row opens a menu whose first option, under the cursor, restores (tests/claude/
test_menu.py). When a file Claude Code edited changed at or after the stop, 2.1.332 offers to
restore code too: six options, "Summarize up to here" fifth (↓ 4); otherwise four, it third
(↓ 2). Which menu a stop gets is `Stop.code_changed` (core/analysis.py).
"""

from __future__ import annotations

from typing import Any

ROW_CHARS = 60  # enough of the row to recognise it; the picker cuts rows at the terminal's width
OPTION = "Summarize up to here"
SUMMARIZE = f"“{OPTION}”"
UNREACHABLE = "That stop is before the last compaction: the picker cannot reach it."
NOTHING = "Nothing to summarize yet."
# The menu's options in 2.1.332, in order (tests/claude/test_menu.py reads them off the screen).
MENU_WITH_CODE = (
    "Restore code and conversation", "Restore conversation", "Restore code",
    "Summarize from here", OPTION, "Never mind",
)
MENU_WITHOUT_CODE = ("Restore conversation", "Summarize from here", OPTION, "Never mind")


def presses(below: int) -> int:
    """↑ presses from "(current)" to the stop with `below` newer stops."""
    return below + 1


def menu(code_changed: bool) -> tuple[str, ...]:
    """The options the menu shows for a stop, the first under the cursor."""
    return MENU_WITH_CODE if code_changed else MENU_WITHOUT_CODE


def downs(code_changed: bool) -> int:
    """↓ presses from the menu's first option to "Summarize up to here".

    >>> downs(True), downs(False)
    (4, 2)
    """
    return menu(code_changed).index(OPTION)


def keys(below: int, code_changed: bool = False) -> str:
    """The keys alone, where there is no room for more (the status line, session lists).

    >>> keys(0), keys(4, True)
    ('Esc Esc ↑1 Enter ↓2', 'Esc Esc ↑5 Enter ↓4')
    """
    return f"Esc Esc ↑{presses(below)} Enter ↓{downs(code_changed)}"


def row(quote: str, room: int = ROW_CHARS) -> str:
    """The start of the picker's row for a stop, quoted.

    >>> row("fix the parser"), row("x" * 70, 10)
    ('“fix the parser”', '“xxxxxxxxx…”')
    """
    text = " ".join(quote.split())
    if len(text) > room:
        text = text[: room - 1] + "…"
    return f"“{text}”"


def menu_step(code_changed: bool) -> str:
    """The step inside the menu, naming the option and what the first one would do.

    >>> menu_step(True)
    'Enter, then ↓ 4 to “Summarize up to here”, not the first option: it restores code'
    >>> menu_step(False)
    'Enter, then ↓ 2 to “Summarize up to here”, not the first option: it rewinds the conversation'
    """
    first = "restores code" if code_changed else "rewinds the conversation"
    return f"Enter, then ↓ {downs(code_changed)} to {SUMMARIZE}, not the first option: it {first}"


def parts(below: int, quote: str, room: int = ROW_CHARS, code_changed: bool = False) -> list[str]:
    """The instruction's steps, in order.

    >>> parts(0, "run the tests")[1:3]
    ['↑ once from “(current)”', 'the row reads “run the tests”']
    >>> parts(4, "fix it")[1]
    '↑ 5 times from “(current)”'
    """
    count = presses(below)
    times = "once" if count == 1 else f"{count} times"
    return [
        "Esc Esc",
        f"↑ {times} from “(current)”",
        f"the row reads {row(quote, room)}",
        menu_step(code_changed),
        "Enter",
    ]


def sentence(below: int, quote: str, room: int = ROW_CHARS, code_changed: bool = False) -> str:
    """The instruction on one line, steps joined by arrows."""
    return " → ".join(parts(below, quote, room, code_changed))


def instruction(stop: Any | None, room: int = ROW_CHARS) -> str:
    """The instruction for a stop (anything with `below`, `quote`, `in_picker` and
    `code_changed`), or why there is none; `room` caps the row's quote."""
    if stop is None:
        return NOTHING
    if not stop.in_picker:
        return UNREACHABLE
    return sentence(stop.below, stop.quote, room, bool(getattr(stop, "code_changed", False)))


def as_json(stop: Any | None) -> dict[str, Any] | None:
    """The instruction's fields for `--json`: the stop, the presses, the row, the menu the stop
    gets, the ↓ presses in it and the sentence."""
    if stop is None or not stop.in_picker:
        return None
    code = bool(getattr(stop, "code_changed", False))
    return {
        "stop": stop.uuid,
        "presses": presses(stop.below),
        "row": " ".join(stop.quote.split()),
        "menu": list(menu(code)),
        "option": OPTION,
        "downs": downs(code),
        "text": sentence(stop.below, stop.quote, code_changed=code),
    }


def thousands(tokens: int) -> str:
    """A token count as people say it.

    >>> thousands(22_209), thousands(950), thousands(1_250_000)
    ('22k', '950', '1.2M')
    """
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    return f"{round(tokens / 1000)}k" if tokens >= 1000 else str(tokens)


def leaves(after: int | None, now: int | None, frees: float) -> str:
    """What a cut at a stop leaves (core/aftercut.py), in the one wording every front end
    prints: the context in tokens when the session's usage is known, else the share of the
    conversation it frees.

    >>> leaves(22_209, 40_717, 0.82), leaves(None, None, 0.82)
    ('leaves about 22k of 41k tokens', 'frees 82% of the conversation')
    """
    if after is None or now is None:
        return f"frees {frees:.0%} of the conversation"
    return f"leaves about {thousands(after)} of {thousands(now)} tokens"


def short(after: int | None, frees: float | None) -> str:
    """The same where there is no room (the status line, session lists).

    >>> short(22_209, 0.82), short(None, 0.82)
    ('leaves ~22k', 'frees 82%')
    """
    if after is not None:
        return f"leaves ~{thousands(after)}"
    return f"frees {frees or 0.0:.0%}"
