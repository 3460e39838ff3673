"""Renders an analysis as the terminal report of the seed: curve, pick, rows, keystrokes."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from keepd.core.analysis import Analysis, Stop
from keepd.core.events import Event
from keepd.core.limits import compact_words
from keepd.core.steps import ROW_CHARS, instruction, leaves
from keepd.report.chart import LABEL, chart_lines, columns
from keepd.report.legend import marks_key
from keepd.report.numbers import plural, tokens_text

MAX_ROWS = 8
# "stop", not "scroll to": below~N names a stop (`keepd cut --at`); how to reach it in the
# picker is the instruction's "↑ N+1 times" (core/steps.py).
# Each word over its column: stop (where), frees (bar and share), shape, then the quote.
ROWS_HEADING = "      stop       frees          shape the message"
BAR_CELLS = 8
WHY_QUOTE = 16  # the "why" column shows when this much room is left for the quote
WHY_WIDTH = 8  # the "why" column's width, wider (up to WHY_WIDEST) when a row's reasons need it
WHY_WIDEST = 16
_PARTS = " ▏▎▍▌▋▊▉"


@dataclass(frozen=True, slots=True)
class Style:
    """Terminal width and whether to colour."""

    width: int = 80
    color: bool = False
    legend: bool = False  # the key line under the rows: on a terminal, not when piped

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text


def render(
    analysis: Analysis, style: Style, *, example: bool = False, elsewhere: str | None = None
) -> str:
    """The whole report as text; `elsewhere` is the folder whose project has no sessions when
    keepd showed another project's newest session instead."""
    lines = _header(analysis, style)
    if example:
        lines.append("  (keepd's example session: no Claude Code sessions here)")
    elif elsewhere is not None:
        lines += wrap(elsewhere_note(elsewhere).split(" "), " ", style.width, "  ")
    if analysis.sidechain_only:
        lines.append("  (a sub-agent transcript: the picker lists none of its messages)")
    if not analysis.stops:
        lines.append("")
        lines.append("  No places to stop yet: the picker lists no prompts in this context.")
        return "\n".join(lines) + "\n"
    lines += ["", _section(analysis, style)]
    lines += _curve(analysis, style)
    lines += ["", *_rows(analysis, style)]
    if style.legend:
        lines += _legend(analysis, style)
    keys = keystrokes(analysis, max(style.width - 20, 12)).split(" → ")
    lines += ["", *wrap(keys, " → ", style.width, "  ")]
    target = analysis.target_stop()
    if target is not None and target.in_picker:
        lines.append(f"  that {leaves(target.after, analysis.context.get('tokens'), target.frees)}")
    return "\n".join(lines) + "\n"


def _header(analysis: Analysis, style: Style) -> list[str]:
    sid = (analysis.session_id or "?")[:8]
    parts = [f"session {sid}"]
    if analysis.project:
        parts.append(f"project {project_name(analysis.project)}")
    parts += [
        plural(analysis.messages, "message"),
        plural(analysis.stop_count, "place to stop", "places to stop"),
    ]
    share = analysis.context.get("share")
    if share is not None:
        parts.append(f"context {share:.0%} of {tokens_text(analysis.context['window'])}")
        parts.append(compact_words(analysis.context))
    if analysis.scope == "whole":
        parts.append("whole history")
    lines = wrap(parts, " · ", style.width, "        ")
    lines[0] = "  " + style.paint("keep", "1") + lines[0][len("      ") :]
    return lines


def project_name(project: str) -> str:
    """A project as a person names it: its folder's name.

    >>> project_name("/home/dev/invoicer"), project_name("/")
    ('invoicer', '/')
    """
    return project.rstrip("/").rsplit("/", 1)[-1] or project


def elsewhere_note(folder: str) -> str:
    """Said under the header when the session shown is not of the folder keepd runs in.

    >>> elsewhere_note("/tmp/x")
    "(not this folder's project: /tmp/x has no sessions; this is the newest of another project)"
    """
    return (
        f"(not this folder's project: {folder} has no sessions; "
        "this is the newest of another project)"
    )


def wrap(parts: list[str], joint: str, width: int, indent: str) -> list[str]:
    """Joins `parts` with `joint` into lines of at most `width` characters.

    >>> wrap(["one", "two", "three"], " · ", 14, "  ")
    ['  one · two', '  three']
    >>> wrap(["a part too long for one line"], " · ", 16, "  ")
    ['  a part too', '    long for one', '    line']

    A part longer than a line goes on lines of its own, the later ones indented further.
    """
    lines: list[str] = []
    current = ""
    for part in parts:
        if len(indent) + len(part) > width:
            if current:
                lines.append(indent + current)
            current = ""
            pieces = textwrap.wrap(part, max(width - len(indent) - 2, 8))
            lines += [indent + pieces[0], *(indent + "  " + piece for piece in pieces[1:])]
            continue
        candidate = f"{current}{joint}{part}" if current else part
        if current and len(indent) + len(candidate) > width:
            lines.append(indent + current)
            candidate = part
        current = candidate
    if current:
        lines.append(indent + current)
    return lines


def _section(analysis: Analysis, style: Style) -> str:
    wiggle = analysis.wiggle
    note = f" (wiggle {wiggle:.4f}: the curve's own noise)" if wiggle is not None else ""
    return "  " + style.paint("self-containment", "1") + note


def _curve(analysis: Analysis, style: Style) -> list[str]:
    values = [stop.sc if stop.sc is not None else float("nan") for stop in analysis.stops]
    # Scaled to the stops that can be picked: the first stop's SC is 1 by definition and the
    # last few keep almost nothing, and either would flatten the rest.
    pickable = [v for v, stop in zip(values, analysis.stops, strict=True) if stop.eligible]
    scale = pickable if len(pickable) > 1 else None
    chart = chart_lines(values, width=style.width - 2, scale=scale)
    if not chart:
        return []
    lines = ["  " + line for line in chart]
    target = analysis.target
    positions = [stop.uuid for stop in analysis.stops]
    if target in positions:
        shown = columns(len(positions), style.width - 2)
        at = positions.index(target)
        col = min(range(len(shown)), key=lambda c: abs(shown[c] - at))
        label = "▔ the pick ▔▔▔" if analysis.pick else "▔ the middle of the trade"
        lines.append("  " + " " * (LABEL - 1) + "·" * col + style.paint(label, "1"))
    lines.append("  " + " " * (LABEL - 1) + "older → newer")
    return lines


def _rows(analysis: Analysis, style: Style) -> list[str]:
    chosen = _row_stops(analysis)
    older = _older_count(analysis, chosen)
    lines = []
    if older:
        lines.append(f"        ↑ {older} older")
    if not analysis.pick:
        lines.append("  " + trade_heading(len(chosen)))
    if not chosen:
        return lines
    widest = min(max(WHY_WIDTH, *(len(why_text(stop)) for stop in chosen)), WHY_WIDEST)
    extra = widest - WHY_WIDTH
    why = style.width - 55 - extra >= WHY_QUOTE  # room for the "why" column and a useful quote
    message = ROWS_HEADING.index("the message")
    heading = ROWS_HEADING[:message] + ("why".ljust(widest + 1) if why else "") + "the message"
    lines.append(heading + (" there" if len(heading) + 6 <= style.width else ""))
    quote_room = max(style.width - (55 + extra if why else 46), 12)
    for stop in chosen:
        width = widest if why else 0
        lines.append(_row(stop, stop.uuid == analysis.pick, quote_room, style, why=width))
    return lines


def trade_heading(count: int) -> str:
    """What the rows are when there is no pick: the trade has as many stops as keep enough.

    >>> [trade_heading(n) for n in (3, 1, 0)]  # doctest: +NORMALIZE_WHITESPACE
    ['No clear break: the trade, 3 stops light to deep',
     'No clear break: one stop keeps enough words to offer',
     'No clear break, and no stop keeps enough words to offer one']
    """
    if count > 1:
        return f"No clear break: the trade, {count} stops light to deep"
    if count == 1:
        return "No clear break: one stop keeps enough words to offer"
    return "No clear break, and no stop keeps enough words to offer one"


def _legend(analysis: Analysis, style: Style) -> list[str]:
    """One line of key for what the rows and the curve's heading show."""
    rows = _row_stops(analysis)
    parts = marks_key(
        [mark for stop in rows for mark in (stop.grade, stop.shape) if mark],
        [stop.event for stop in rows if stop.event],
    )
    if rows:
        parts.append(f"{position('N')}: Esc Esc, ↑ N+1 times")
    return [style.paint(line, "2") for line in wrap(parts, " · ", style.width, "  ")]


def position(below: int | str) -> str:
    """Where a stop is in the picker, as the rows print it."""
    return f"below~{below}"


def _row_stops(analysis: Analysis) -> list[Stop]:
    wanted = {zone.best for zone in analysis.zones if zone.grade != "●"}
    if not wanted and analysis.pick:
        wanted = {analysis.pick}
    if not analysis.pick:
        wanted = set(analysis.trade)
    rows = [stop for stop in analysis.stops if stop.uuid in wanted]
    return rows[-MAX_ROWS:]


def _older_count(analysis: Analysis, chosen: list[Stop]) -> int:
    if not chosen:
        return 0
    first = analysis.stops.index(chosen[0])
    return first


def _row(stop: Stop, picked: bool, quote_room: int, style: Style, *, why: int) -> str:
    """One stop's row; `why` is the width of the "why" column (0: no such column)."""
    arrow = style.paint("→", "1;32") if picked else " "
    shape = (stop.shape or "").ljust(5)
    event = Event(stop.event) if stop.event else None
    if event and stop.shape != event.mark and not stop.reasons:
        shape = f"{stop.shape or ''}{event.mark}".ljust(5)  # the session's break there too
    quote = _quote(stop.quote, quote_room)
    reasons = f"{why_text(stop, why):<{why}} " if why else ""
    where = f"{position(stop.below):<10}"
    frees = f"{bar(stop.frees)} {stop.frees:4.0%}"
    text = f"   {arrow}  {where} {frees}  {shape} {reasons}{quote}"
    return style.paint(text, "1") if picked and style.color else text


_WHY = {
    "work finished": "done",
    "git branch": "⎇",
    "compaction": "✂",
    "pause": "⏸",
    "long prompt": "long",
    "after short replies": "ask",
    "says it turns to the next thing": "next",
    "the prompt before closed the work": "ok",
    "new words": "novel",
    "new files": "files",
    "newest work": "new",  # the newest-work model alone made the pick (core/newest.py)
    "new work at the newest prompt": "last",  # the pick moved off the newest prompt (settle.py)
}


def why_text(stop: Stop, room: int | None = None) -> str:
    """What graded a zone, short: the words' multiple, then its cues; with `room`, the
    reasons that fit whole and "+" for the rest (a cue cut to its first letter reads as
    another).

    >>> s = Stop("u", 1, 1, True, 0.5, 0.5, 90, 9, "●●●", "●●●", 4.2, "", "")
    >>> s.reasons = ["words", "work finished", "pause"]
    >>> why_text(s)
    '4x done⏸'
    >>> s.reasons = ["work finished", "long prompt", "says it turns to the next thing"]
    >>> why_text(s), why_text(s, 10), why_text(s, 8)
    ('done long next', 'done long+', 'done+')
    >>> s.reasons = ["pause", "new words", "new files"]
    >>> why_text(s)
    '⏸novel files'
    """
    text = ""
    for reason in stop.reasons or ():
        if reason == "words":
            part = f"{stop.multiple:.0f}x " if stop.multiple is not None else "words "
        else:
            part = _WHY.get(reason, reason)
        gap = " " if text[-1:].isalnum() and part[:1].isalnum() else ""
        longer = (text + gap + part).strip()
        if room is not None and len(longer) > room:
            return text.strip()[: room - 1] + "+"
        text += gap + part
    return text.strip()


def bar(share: float, cells: int = BAR_CELLS) -> str:
    """A bar of `cells` characters for a share between 0 and 1.

    >>> bar(0.5, 4), bar(1.0, 4), bar(0.1, 4)
    ('▓▓  ', '▓▓▓▓', '▍   ')
    """
    eighths = round(max(0.0, min(share, 1.0)) * cells * 8)
    full, part = divmod(eighths, 8)
    text = "▓" * full + (_PARTS[part] if part else "")
    return text.ljust(cells)


def _quote(text: str, room: int) -> str:
    if len(text) + 2 <= room:
        return f'"{text}"'
    return '"' + text[: max(room - 3, 1)] + '…"'


def keystrokes(analysis: Analysis, room: int = ROW_CHARS) -> str:
    """The exact picker keys for the pick (or the middle of the trade)."""
    return instruction(analysis.target_stop(), room)
