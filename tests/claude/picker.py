"""Reading Claude Code's rewind picker (Esc Esc) off a tmux screen.

The picker shows a window of entries; "↑ N more" above it counts the entries before the window,
"↓ N more" below it those after (the "(current)" row is the last entry), and "❯" marks the
selection. An entry is a block: its prompt line, then detail lines ("⚠ No code restore", files).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.claude.tmux import Tmux

HEADER = "Restore the code and/or conversation to the point before"
FOOTER = "Enter to continue"
CURRENT = "(current)"
_OPTION = re.compile(r"^\s*(❯)?\s*\d\.\s+(.*?)\s*$")
_ARROW = re.compile(r"^\s*([↑↓]) (\d+) more(?: above| below)?\s*$")


@dataclass(frozen=True)
class Window:
    """One screenful of the picker: its rows, how many entries lie above and below it, and
    which row is selected (None when the selection is not in view)."""

    rows: list[str]
    above: int
    below: int
    selected: int | None

    @property
    def total(self) -> int:
        return self.above + len(self.rows) + self.below


def parse(screen: str) -> Window:
    """The picker window on `screen`; fails when the picker is not showing."""
    lines = screen.splitlines()
    starts = [i for i, line in enumerate(lines) if HEADER in line]
    ends = [i for i, line in enumerate(lines) if FOOTER in line]
    if not starts or not ends:
        raise AssertionError(f"no rewind picker on the screen:\n{screen}")
    body = lines[starts[-1] + 1 : ends[-1]]
    rows: list[str] = []
    above = below = 0
    selected: int | None = None
    fresh = True  # the next non-blank line starts an entry
    for line in body:
        arrow = _ARROW.match(line)
        if arrow:
            count = int(arrow.group(2))
            above, below = (count, below) if arrow.group(1) == "↑" else (above, count)
            fresh = True
            continue
        if not line.strip():
            fresh = True
            continue
        if fresh:
            text = line.strip()
            if text.startswith("❯"):
                selected = len(rows)
                text = text[1:].strip()
            rows.append(text)
            fresh = False
    return Window(rows, above, below, selected)


def open_picker(ui: Tmux, timeout: float = 20.0) -> Window:
    """Presses Esc Esc at the prompt and returns the window the picker opens with."""
    ui.keys("Escape", "Escape")
    ui.wait_for(FOOTER, timeout=timeout)
    return parse(ui.wait_stable(quiet=0.3))


def move(ui: Tmux, key: str, times: int) -> Window:
    """Presses `key` (Up or Down) `times` times and returns the window then."""
    for _ in range(times):
        ui.keys(key, pause=0.03)
    return parse(ui.wait_stable(quiet=0.3))


def menu_options(screen: str) -> tuple[list[str], int | None]:
    """The options of the menu Enter on a row opens, and which one the cursor is on."""
    options: list[str] = []
    cursor = None
    for line in screen.splitlines():
        found = _OPTION.match(line)
        if found and any(w in found.group(2) for w in ("Restore", "Summarize", "Never")):
            if found.group(1):
                cursor = len(options)
            options.append(found.group(2).split(":")[0])
    return options, cursor


def selected_text(window: Window) -> str:
    if window.selected is None:
        raise AssertionError(f"no selected row in {window}")
    return window.rows[window.selected]


def all_entries(ui: Tmux) -> list[str]:
    """Every entry of the open picker, oldest first, "(current)" last: goes to the last row,
    then scrolls up a window at a time and places each window by its "↑ N more" count.
    Leaves the selection at the top."""
    window = parse(ui.wait_stable(quiet=0.3))
    if window.selected is not None and (window.below or window.selected < len(window.rows) - 1):
        window = move(ui, "Down", window.below + len(window.rows) - 1 - window.selected)
    total = window.total
    entries: list[str | None] = [None] * total
    while True:
        for offset, row in enumerate(window.rows):
            entries[window.above + offset] = row
        if window.above == 0:
            break
        # To the row just above the window: whatever the picker's scrolling, it comes into view.
        window = move(ui, "Up", (window.selected or 0) + 1)
    missing = [i for i, row in enumerate(entries) if row is None]
    if missing:
        raise AssertionError(f"picker rows {missing} never came into view")
    return [row for row in entries if row is not None]


def resume(tmux_ui: Callable[..., Tmux], session_id: str) -> Tmux:
    """`claude --resume ID` in a pane, once its prompt is up and the screen has settled."""
    ui = tmux_ui("--resume", session_id)
    ui.wait_for("❯", timeout=60)
    ui.wait_stable(quiet=0.8, timeout=60)
    return ui


def same_row(shown: str, quote: str) -> bool:
    """Whether the picker's row is keepd's quote: the same text up to where either is cut
    ("…"), spacing aside (the terminal turns tabs into spaces)."""
    row, ours = " ".join(shown.split()).rstrip("…"), " ".join(quote.split()).rstrip("…")
    if not row or not ours:
        return row == ours
    return row.startswith(ours) or ours.startswith(row)


def assert_rows_are_stops(entries: list[str], stops: list[dict[str, Any]]) -> None:
    """The picker's rows, "(current)" aside, are keepd's stops in order."""
    assert entries[-1] == CURRENT
    listed = [stop for stop in stops if stop["in_picker"]]
    quotes = [stop["quote"] for stop in listed]
    assert len(entries) - 1 == len(listed), (entries, quotes)
    wrong = [(row, q) for row, q in zip(entries, quotes, strict=False) if not same_row(row, q)]
    assert not wrong, (entries, quotes)

