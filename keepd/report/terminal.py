"""Renders an analysis as the terminal report of the seed: curve, pick, rows, keystrokes."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from keepd.core.analysis import Analysis, Stop
from keepd.core.limits import compact_words
from keepd.core.steps import ROW_CHARS, instruction, leaves, presses
from keepd.core.sureness import said_sure
from keepd.report.chart import LABEL, chart_lines, columns
from keepd.report.legend import grade_words, mark, marks_key
from keepd.report.numbers import plural, tokens_text

MAX_ROWS = 8
CURVE_TITLE = "how well the rest stands on its own (higher: safer)"
# Each word over its column: stop (its ↑ number), frees (bar and share), mark, then the quote.
WHERE = 5  # "↑9999"
MARK = 9  # "●●● ▔▔▁ ⏸"
ROWS_HEADING = "     stop  frees" + " " * 10 + "mark" + " " * 6 + "the message"
BAR_CELLS = 8
MIN_QUOTE = 20  # the least room a row's quote gets, however narrow the terminal
_PARTS = " ▏▎▍▌▋▊▉"


@dataclass(frozen=True, slots=True)
class Style:
    """Terminal width and whether to colour."""

    width: int = 80
    color: bool = False
    legend: bool = True  # the key line under the rows
    every: bool = False  # a row for every stop (`keepd report --all`), not only the marked ones

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
    lines += ["", _section(style)]
    lines += _curve(analysis, style)
    lines += ["", *_rows(analysis, style)]
    if style.legend:
        lines += _legend(analysis, style)
    target = analysis.target_stop()
    if target is not None:  # else the rows' heading says why there is none
        keys = keystrokes(analysis, max(style.width - 20, 12)).split(" → ")
        lines += ["", *wrap(keys, " → ", style.width, "  ")]
        if target.in_picker:
            left = leaves(target.after, analysis.context.get("tokens"), target.frees)
            sure = said_sure(analysis, target)  # the notice's own sentence
            said = f"that {left}: {grade_words(target.grade)}. {sure}" if sure else f"that {left}"
            lines += wrap([said], " ", style.width, "  ")
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
    return wrap(parts, " · ", style.width, "  ")


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


def _section(style: Style) -> str:
    return "  " + style.paint(CURVE_TITLE, "1")


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
        lines.append(
            "  " + " " * (LABEL - 1) + pointer(col, len(shown), bool(analysis.pick), style)
        )
    lines.append("  " + " " * (LABEL - 1) + "older → newer")
    return lines


def pointer(col: int, width: int, pick: bool, style: Style) -> str:
    """The line under the chart: one ▲ under the recommended stop's column and its name beside
    it, to the right, or to the left when the right has no room.

    >>> pointer(3, 40, True, Style())
    '   ▲ the pick'
    >>> pointer(38, 40, False, Style())
    '                       the suggestion ▲'
    """
    name = "the pick" if pick else "the suggestion"
    if col + 2 + len(name) <= max(width, 2 + len(name)):
        return " " * col + style.paint("▲", "1") + " " + name
    return " " * max(col - len(name) - 1, 0) + name + " " + style.paint("▲", "1")


def _rows(analysis: Analysis, style: Style) -> list[str]:
    chosen = row_stops(analysis, every=style.every)
    lines = []
    if not analysis.pick:
        lines += wrap(trade_heading(len(analysis.trade)).split(" "), " ", style.width, "  ")
    if not chosen:
        shown = shown_text(0, analysis.stop_count)
        return lines + wrap(shown.split(" · "), " · ", style.width, "  ")
    lines.append(ROWS_HEADING + (" there" if len(ROWS_HEADING) + 6 <= style.width else ""))
    quote_room = max(style.width - len(ROWS_HEADING) + len("the message"), MIN_QUOTE)
    for stop in chosen:
        lines.append(_row(stop, stop.uuid == analysis.target, quote_room, style))
    shown = shown_text(len(chosen), analysis.stop_count)
    if shown:
        lines += wrap(shown.split(" · "), " · ", style.width, "  ")
    return lines


def shown_text(shown: int, total: int) -> str:
    """What the rows leave out, and how to see it; empty when they show every stop.

    >>> shown_text(3, 40)
    '3 of 40 places to stop shown · every one: keepd report --all'
    >>> shown_text(1, 1), shown_text(0, 1)
    ('', '0 of 1 place to stop shown · every one: keepd report --all')
    """
    if shown >= total:
        return ""
    places = plural(total, "place to stop", "places to stop")
    return f"{shown} of {places} shown · every one: keepd report --all"


def trade_heading(count: int) -> str:
    """What the rows are when there is no pick: a few stops to choose from, and the one the
    keys below go to.

    >>> [trade_heading(n) for n in (3, 1, 0)]  # doctest: +NORMALIZE_WHITESPACE
    ['No clear break. The 3 stops that stand on their own best, freeing less to more; the
      keys below go to the one marked →',
     'No clear break. One stop stands on its own enough to suggest; the keys below go to it',
     'No clear break, and no stop keeps enough words to suggest one']
    """
    if count > 1:
        return (
            f"No clear break. The {count} stops that stand on their own best, freeing less to "
            "more; the keys below go to the one marked →"
        )
    if count == 1:
        return (
            "No clear break. One stop stands on its own enough to suggest; the keys below go to it"
        )
    return "No clear break, and no stop keeps enough words to suggest one"


def _legend(analysis: Analysis, style: Style) -> list[str]:
    """One line of key for the marks the rows show, and the stops' names."""
    rows = row_stops(analysis, every=style.every)
    parts = marks_key(row_mark(stop) for stop in rows)
    if not rows:
        return []
    parts.insert(0, f"{position('N')}: Esc Esc, then ↑ N times")
    return [style.paint(line, "2") for line in wrap(parts, " · ", style.width, "  ")]


def position(below: int | str) -> str:
    """A stop's one number wherever a person sees it: the ↑ presses from “(current)” that
    reach it in the picker (what `keepd cut --at` takes too).

    >>> position(19), position("N")
    ('↑20', '↑N')
    """
    return f"↑{presses(below) if isinstance(below, int) else below}"


def row_stops(analysis: Analysis, *, every: bool = False) -> list[Stop]:
    """The stops the report's rows show, oldest first: every one with `every`, else the
    zones' (● ones left out), the pick and the suggested stops, the newest `MAX_ROWS`."""
    if every:
        return list(analysis.stops)
    wanted = {zone.best for zone in analysis.zones if zone.grade != "●"}
    wanted |= set(analysis.trade)
    if analysis.target:
        wanted.add(analysis.target)
    rows = [stop for stop in analysis.stops if stop.uuid in wanted]
    return rows[-MAX_ROWS:]


def row_mark(stop: Stop) -> str:
    """The mark a row shows: `legend.mark`, the one every front end prints."""
    return mark(stop.grade, stop.shape, stop.event)


def _row(stop: Stop, picked: bool, quote_room: int, style: Style) -> str:
    """One stop's row."""
    arrow = style.paint("→", "1;32") if picked else " "
    where = f"{position(stop.below):<{WHERE}}"
    frees = f"{bar(stop.frees)} {stop.frees:4.0%}"
    marks = f"{row_mark(stop):<{MARK}}"
    text = f"   {arrow} {where} {frees}  {marks} {_quote(stop.quote, quote_room)}"
    return style.paint(text, "1") if picked and style.color else text


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
