"""Renders an analysis as the note, one self-contained HTML page, and writes it privately."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from keepd._version import __version__
from keepd.core.analysis import Analysis, BlockInfo, Stop
from keepd.core.events import Event
from keepd.core.grade import FALLING_MARK
from keepd.core.limits import compact_words
from keepd.core.steps import leaves
from keepd.core.sureness import said_sure
from keepd.data.icons import favicon_uri
from keepd.report.instructions import block_start, short, summary_instructions
from keepd.report.legend import (
    EVENT_WORDS,
    FALLING_WORDS,
    GRADE_WORDS,
    mark,
    plain_words,
)
from keepd.report.note_assets import SCRIPT, STYLE, content_security_policy
from keepd.report.svg import bar_svg, curve_svg, esc, frame_of
from keepd.report.terminal import keystrokes, position, trade_heading
from keepd.system.atomic import replace_file

TABLE_QUOTE = 150
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def render_note(analysis: Analysis) -> str:
    """The whole note as one HTML document; every piece of session text is escaped."""
    sections = [
        _header(analysis),
        _verdict(analysis),
        _curve(analysis),
        _table(analysis),
        _blocks(analysis),
        _summary(analysis),
        _footer(analysis),
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(content_security_policy())}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(_title(analysis))}</title>\n"
        f'<link rel="icon" type="image/svg+xml" href="{favicon_uri()}">\n'
        f"<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(section for section in sections if section)
        + f"\n</main>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def _title(analysis: Analysis) -> str:
    project = Path(analysis.project).name if analysis.project else "session"
    return f"keepd · {project} · {(analysis.session_id or '?')[:8]}"


def _header(analysis: Analysis) -> str:
    facts = [
        f"session <code>{esc(analysis.session_id or '?')}</code>",
        f"{analysis.messages:,} messages",
        f"{analysis.stop_count:,} places to stop",
        _context(analysis),
    ]
    if analysis.scope == "whole":
        facts.append("the whole history, as if never compacted")
    notes = []
    if analysis.tokens_estimated:
        notes.append("No token counts in the file: shares are estimated from text length.")
    if analysis.skipped_lines:
        notes.append(f"{analysis.skipped_lines:,} lines were not JSON objects and were skipped.")
    if analysis.sidechain_only:
        notes.append("A sub-agent transcript: the picker lists none of its messages.")
    return (
        "<header>\n<h1>Where this chat can forget</h1>\n"
        f'<p class="meta">project <b class="quote">{esc(analysis.project or "?")}</b></p>\n'
        f'<p class="meta">{"".join(f"<span>{fact}</span>" for fact in facts if fact)}</p>\n'
        + "".join(f'<p class="muted">{esc(note)}</p>\n' for note in notes)
        + f'<p class="key">{mark_html(plain_words())}</p>\n'
        + "</header>"
    )


def _context(analysis: Analysis) -> str:
    tokens, window = analysis.context.get("tokens"), analysis.context.get("window")
    share = analysis.context.get("share")
    if tokens is None or not window:
        return "context use unknown"
    percent = f" ({share:.0%})" if share is not None else ""
    compacts = compact_words(analysis.context)
    return f"context {int(tokens):,} of {int(window):,} tokens{percent}, {compacts}"


def _verdict(analysis: Analysis) -> str:
    if not analysis.stops:
        text = "No places to stop yet: the picker lists no prompts in this context."
        return f'<section class="verdict none"><p>{text}</p></section>'
    pick = analysis.stop(analysis.pick)
    items = "".join(_trade_item(analysis, uuid, name) for uuid, name in _trade(analysis))
    if pick is not None:
        body = (
            f"<p><b>Stop at {position(pick.below)}</b>: summarizing up to there "
            f"{leaves(pick.after, analysis.context.get('tokens'), pick.frees)} "
            f"(it frees {pick.frees:.0%} of the conversation). {_zone_words(pick, analysis)}</p>\n"
            f"<p>The message there: <q>{esc(short(pick.quote, 240))}</q></p>"
        )
    elif items:
        body = f"<p><b>{esc(trade_heading(len(analysis.trade)))}</b>:</p>\n<ul>{items}</ul>"
    else:
        body = f"<p><b>{esc(trade_heading(0))}</b>.</p>"
    keys = f'<p class="keys">{esc(keystrokes(analysis))}</p>'
    kind = "verdict" if pick is not None or analysis.trade else "verdict none"
    return f'<section class="{kind}">\n{body}\n{keys}\n</section>'


def mark_html(text: str) -> str:
    """A mark (or a text holding marks) escaped for the page, with ⏸ drawn by the style sheet:
    no font of a fresh Debian has the glyph, and the text stays for copying and reading aloud.

    >>> mark_html("●● ⏸")
    '●● <span class="pause" role="img" aria-label="pause">⏸</span>'
    """
    return esc(text).replace("⏸", '<span class="pause" role="img" aria-label="pause">⏸</span>')


def _zone_words(stop: Stop, analysis: Analysis) -> str:
    if not stop.grade:
        return ""
    kinds = dict(GRADE_WORDS)
    shape = f" ({FALLING_WORDS})" if stop.shape == FALLING_MARK else ""
    if stop.event and stop.shape == Event(stop.event).mark:  # the event made this zone
        kinds["●●"] = "no break in the words, but the session's own"
        shape = f" ({EVENT_WORDS.get(stop.event, stop.event)})"
    multiple = f", {stop.multiple:g}× the noise" if stop.multiple else ""
    glyph = f'<span class="glyph">{mark_html(mark(stop.grade, stop.shape, stop.event))}</span>'
    why = f" Graded by: {esc(', '.join(stop.reasons))}." if stop.reasons else ""
    sure = said_sure(analysis, stop)  # as the notice says it
    how = f" {esc(sure)}" if sure else ""
    return f"{glyph}: {esc(kinds.get(stop.grade, ''))}{shape}{multiple}.{why}{how}"


def _trade(analysis: Analysis) -> list[tuple[str, str]]:
    names = ["frees less", "the suggestion", "frees more"] if len(analysis.trade) == 3 else []
    names = names or [
        "the suggestion" if uuid == analysis.target else "" for uuid in analysis.trade
    ]
    return list(zip(analysis.trade, names, strict=False))


def _trade_item(analysis: Analysis, uuid: str, name: str) -> str:
    stop = analysis.stop(uuid)
    if stop is None:
        return ""
    sc = "" if stop.sc is None else f", SC {stop.sc:.2f}"
    label = f"{name}: " if name else ""
    return (
        f"<li>{label}<b>{position(stop.below)}</b>: frees {stop.frees:.0%}, keeps "
        f"{1 - stop.frees:.0%}{sc}; <q>{esc(short(stop.quote))}</q></li>"
    )


def _curve(analysis: Analysis) -> str:
    if not analysis.stops:
        return ""
    wiggle = (
        f"The band is ± the noise ({analysis.wiggle:.4f}), the median step between "
        "neighbouring points: rises inside it mean nothing. "
        if analysis.wiggle
        else ""
    )
    return (
        "<section>\n<h2>Self-containment at every stop</h2>\n<figure>\n"
        + curve_svg(analysis)
        + "\n<figcaption>Each point is a stop: the share of the word uses after it whose word "
        "first appeared at or after it. Higher is safer to summarize up to. Shaded: the stops "
        "that stand out, "
        + ", ".join(f'<span class="glyph">{g}</span> {esc(w)}' for g, w in GRADE_WORDS.items())
        + f'; <span class="glyph">{FALLING_MARK}</span> {esc(FALLING_WORDS)}. '
        f"{wiggle}{_off_scale(analysis)}"
        "Hover over a point for its message."
        "</figcaption>\n</figure>\n</section>"
    )


def _off_scale(analysis: Analysis) -> str:
    frame = frame_of(analysis.stops)
    if not any(stop.sc is not None and frame.off(stop.sc) for stop in analysis.stops):
        return ""
    return "Hollow points at the edge are off the scale: stops too early or too late to pick. "


def _table(analysis: Analysis) -> str:
    if not analysis.stops:
        return ""
    head = (
        '<tr><th class="num" data-sort>stop</th><th class="num" data-sort>frees</th>'
        '<th class="num" data-sort>SC</th><th data-sort>mark</th>'
        '<th class="num" data-sort>× noise</th><th data-sort>the message there</th></tr>'
    )
    rows = "\n".join(_row(stop, stop.uuid == analysis.target) for stop in analysis.stops)
    return (
        "<section>\n<h2>Every stop</h2>\n"
        '<p class="muted">Oldest first, so reading down frees more. <span class="noprint">'
        "Click a heading to sort.</span> Greyed: before the last compaction, out of the "
        "picker's reach.</p>\n"
        f'<table class="sortable stops">\n<thead>{head}</thead>\n'
        f"<tbody>\n{rows}\n</tbody>\n</table>\n"
        "</section>"
    )


def _row(stop: Stop, picked: bool) -> str:
    classes = " ".join(name for name, on in (("pick", picked), ("out", not stop.in_picker)) if on)
    attr = f' class="{classes}"' if classes else ""
    arrow = "→ " if picked else ""
    sc = "" if stop.sc is None else f"{stop.sc:.3f}"
    multiple = f"{stop.multiple:g}" if stop.multiple else ""
    return (
        f"<tr{attr}>"
        f'<td class="num" data-v="{stop.below}">{arrow}{position(stop.below)}</td>'
        f'<td class="num" data-v="{stop.frees}">{bar_svg(stop.frees)}{_pct(stop.frees)}</td>'
        f'<td class="num" data-v="{stop.sc if stop.sc is not None else -1}">{sc}</td>'
        f'<td class="glyph">{mark_html(mark(stop.grade, stop.shape, stop.event))}</td>'
        f'<td class="num" data-v="{stop.multiple or 0}">{multiple}</td>'
        f'<td class="quote">{esc(short(stop.quote, TABLE_QUOTE))}</td></tr>'
    )


def _pct(share: float, digits: int = 0) -> str:
    return f'<span class="pct">{share:.{digits}%}</span>'


def _blocks(analysis: Analysis) -> str:
    stop = analysis.target_stop()
    if stop is None or not analysis.blocks:
        return ""
    which = "the pick" if analysis.pick else "the suggested stop"
    rows = "\n".join(_block_row(analysis, n, block) for n, block in enumerate(analysis.blocks, 1))
    return (
        "<section>\n<h2>What the kept part borrows from</h2>\n"
        f"<p>The part before {which} (messages 0–{stop.index - 1}) in six blocks, and the "
        "share of the kept part's borrowed word uses whose word each block introduced. A block "
        "under 5% is a side trip: the later work never refers back to it.</p>\n"
        '<table class="blocks">\n<thead><tr><th class="num">block</th>'
        '<th class="num">messages</th><th class="num">borrowed from it</th>'
        "<th>in the summary</th><th>where it starts</th></tr></thead>\n"
        f"<tbody>\n{rows}\n</tbody>\n</table>\n</section>"
    )


def _block_row(analysis: Analysis, number: int, block: BlockInfo) -> str:
    use = '<span class="trip">drop whole</span>' if block.side_trip else "summarize"
    start = block_start(analysis, block)
    return (
        f'<tr><td class="num">{number}</td><td class="num">{block.first}–{block.last}</td>'
        f'<td class="num">{bar_svg(block.share, side_trip=block.side_trip)}'
        f"{_pct(block.share, 1)}</td>"
        f'<td>{use}</td><td class="quote">{esc(start)}</td></tr>'
    )


def _summary(analysis: Analysis) -> str:
    text = summary_instructions(analysis)
    if not text:
        return ""
    trips = [block for block in analysis.blocks if block.side_trip]
    lead = f"{len(trips)} side trip{'s' if len(trips) != 1 else ''} to drop whole" if trips else ""
    return (
        "<section>\n<h2>For the summary</h2>\n"
        "<p>The words the kept part leans on most, where each came from"
        f"{', and the ' + lead if lead else ''}. Paste this after <code>/compact </code> "
        "or give it to whatever writes the summary.</p>\n"
        f'<pre class="instructions">{esc(text)}</pre>\n</section>'
    )


def _footer(analysis: Analysis) -> str:
    source = f" from <code>{esc(analysis.path)}</code>" if analysis.path else ""
    return (
        f"<footer>Written by keepd {esc(__version__)}{source}. Everything here comes from the "
        "session file; the page loads nothing from the network.</footer>"
    )


def note_name(analysis: Analysis) -> str:
    """The note's file name: the session id when it is a safe file name, else a hash of it.

    Only the session's own file (`<session id>.jsonl`) gets the plain name: a copy, a fork or
    any other file with the same id adds a hash of its path, so its report never replaces the
    real session's note.
    """
    ident = analysis.session_id or (Path(analysis.path).stem if analysis.path else "") or "session"
    if not (_SAFE_NAME.fullmatch(ident) and ident not in {".", ".."}):
        return f"session-{hashlib.sha256(ident.encode()).hexdigest()[:16]}.html"
    if analysis.path and Path(analysis.path).stem != ident:
        where = str(Path(analysis.path).resolve()).encode()
        return f"{ident[:100]}-{hashlib.sha256(where).hexdigest()[:8]}.html"
    return f"{ident}.html"


def write_note(analysis: Analysis, directory: Path | None = None) -> Path:
    """Writes the note (mode 0600) atomically into `directory` (default: the notes dir)."""
    if directory is None:
        from keepd.paths import notes_dir

        directory = notes_dir()
    target = directory / note_name(analysis)
    write_private(target, render_note(analysis).encode("utf-8"))
    return target


def write_private(target: Path, data: bytes) -> None:
    """Replaces `target` with `data`, mode 0600 in a 0700 folder, atomically."""
    replace_file(target, data, mode=0o600, folder_mode=0o700)
