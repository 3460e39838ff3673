"""`keepd statusline`: one line for Claude Code's status bar, from the JSON it pipes in and the
daemon's glance of that session (or the glance it cached), in a few milliseconds.

Claude Code runs the command on every repaint and shows the first line it prints; ccstatusline's
custom-command widget pipes the same JSON (plus `terminal_width`). Nothing here analyses a
session or waits long: stdin is read until it closes or for `STDIN_SECONDS`, the daemon has
`DAEMON_SECONDS` to answer, and input that names no session prints nothing. Like
`keepd.ops.glance_io`, which it reads glances with, it imports nothing the interpreter has not
already loaded (no typing, pathlib or json; see there why).
"""

from __future__ import annotations

import os
import select
import sys
import time

from keepd.core.steps import keys, short
from keepd.errors import DaemonUnavailableError, KeepdError
from keepd.ops.glance_io import (
    THRESHOLD,
    URGENT,
    ask_daemon,
    boundary_since,
    loads,
    read_cached,
    valid_session_id,
)

STDIN_SECONDS = 0.2
DAEMON_SECONDS = 0.15
MAX_INPUT = 1 << 20
HINT = "keepd statusline reads the JSON Claude Code pipes to its status line command on stdin"

RESET = "\x1b[0m"
DIM, BOLD, RED, GREEN, YELLOW = "2", "1", "31", "32", "33"
NO_BREAK = "no clear break"  # the report's words for a stop suggested without a clear break
GRADE_COLORS = {"●●●": f"{BOLD};{GREEN}", "●●": GREEN, "●": "", NO_BREAK: YELLOW}


class StatusInput:
    """What keepd uses of Claude Code's status-line JSON."""

    __slots__ = ("session_id", "transcript_path", "used", "window")

    def __init__(
        self,
        session_id: str,
        transcript_path: str | None = None,
        used: float | None = None,
        window: int | None = None,
    ) -> None:
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.used = used  # context_window.used_percentage, as a share of the window
        self.window = window  # context_window.context_window_size

    def fields(self) -> tuple[str, str | None, float | None, int | None]:
        return (self.session_id, self.transcript_path, self.used, self.window)

    def __repr__(self) -> str:
        return "StatusInput(%r, %r, %r, %r)" % self.fields()  # noqa: UP031


class Found:
    """A glance (the checked fields of one) and where it came from."""

    __slots__ = ("cached", "daemon", "glance")

    def __init__(self, glance: dict[str, object] | None, daemon: bool, cached: bool = False):
        self.glance = glance
        self.daemon = daemon  # a daemon answered
        self.cached = cached  # the glance is the one the daemon cached, which may be behind


def run(*, color: bool | None = None) -> int:
    """Reads stdin, prints the line (or nothing for input that names no session); always 0."""
    try:
        status = parse_input(read_input())
        if status is None:
            if _stdin_is_terminal():
                print(HINT, file=sys.stderr)
            return 0
        use_color = default_color() if color is None else color
        sys.stdout.write(render(status, lookup(status), color=use_color) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except Exception as error:  # a status bar shows no tracebacks: one line on stderr instead
        print(f"keepd statusline: internal error: {error!r}", file=sys.stderr)
    return 0


def default_color() -> bool:
    """Claude Code shows ANSI colours (its pipe is no terminal): on unless NO_COLOR or TERM=dumb."""
    return "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def read_input(timeout: float = STDIN_SECONDS, limit: int = MAX_INPUT) -> bytes:
    """What stdin holds until it closes or the deadline passes; nothing from a terminal."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""
    if os.isatty(fd):
        return b""
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, min(1 << 16, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def parse_input(raw: bytes) -> StatusInput | None:
    """The session the JSON names (by `session_id`, else the transcript's file name), or None.

    >>> parse_input(b'{"session_id": "ab-1", "context_window": {"used_percentage": 42.5}}')
    StatusInput('ab-1', None, 0.425, None)
    >>> parse_input(b'{"transcript_path": "/p/cd-2.jsonl"}').session_id
    'cd-2'
    >>> parse_input(b"not json") is None, parse_input(b"[]") is None
    (True, True)
    """
    try:
        data = loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    path = data.get("transcript_path")
    path = path if isinstance(path, str) and path else None
    session_id = data.get("session_id")
    if not isinstance(session_id, str) or not valid_session_id(session_id):
        session_id = _stem(path) if path is not None else None
    if session_id is None or not valid_session_id(session_id):
        return None
    context = data.get("context_window")
    context = context if isinstance(context, dict) else {}
    window = context.get("context_window_size")
    return StatusInput(
        session_id,
        path,
        _share_of(context.get("used_percentage")),
        window if isinstance(window, int) and not isinstance(window, bool) else None,
    )


def lookup(status: StatusInput, timeout: float = DAEMON_SECONDS) -> Found:
    """The daemon's glance, or the cached one where it has none yet or does not answer."""
    try:
        glance = ask_daemon(
            status.session_id,
            status.transcript_path,
            timeout=timeout,
            window=status.window,
            share=status.used,
        )
    except DaemonUnavailableError:
        return Found(read_cached(status.session_id), daemon=False, cached=True)
    except KeepdError:  # busy, or a reply this version cannot read
        return Found(read_cached(status.session_id), daemon=True, cached=True)
    if glance.get("analysed") is not True:
        cached = read_cached(status.session_id)
        if cached is not None and cached.get("analysed") is True:
            return Found(cached, daemon=True, cached=True)
    return Found(glance, daemon=True)


def render(status: StatusInput, found: Found, *, color: bool) -> str:
    """`keepd 64% · ●●● Esc Esc ↑20 · frees 54%`, or the share and why there is no stop
    (`keepd · no daemon` when not even the share is known; `keepd 12% · summarized · reading`
    when the session was summarized since the glance was made)."""
    paint = _Paint(color)
    glance = found.glance or {}
    summarized = _summarized_since(status, glance)
    share = status.used if summarized else _share(status, glance)
    head = paint(DIM, "keepd")
    if share is not None:
        head += " " + _share_text(paint, share, glance)
    if summarized:  # the pick and the daemon's figures are of the context before the cut
        return " · ".join([head, paint(DIM, "summarized"), paint(DIM, _waiting(found))])
    return " · ".join([head, *_detail(paint, status, found)])


def _summarized_since(status: StatusInput, glance: dict[str, object]) -> bool:
    """An analysed glance of a transcript that has had a compaction written since (or was
    replaced): Claude Code repaints right after "Summarize up to here", before the daemon has
    read it, and then not again until a key is pressed."""
    if status.transcript_path is None or glance.get("analysed") is not True:
        return False
    offset = _int(glance, "offset")
    return offset is not None and boundary_since(status.transcript_path, offset)


def _waiting(found: Found) -> str:
    return "reading" if found.daemon else "no daemon"


def _detail(paint: _Paint, status: StatusInput, found: Found) -> list[str]:
    glance = found.glance
    if glance is None:
        return [paint(DIM, "no answer" if found.daemon else "no daemon")]
    if glance.get("known") is not True:
        return [paint(DIM, "not followed")]
    if glance.get("analysed") is not True:
        return [paint(DIM, "reading")]
    below = _int(glance, "below")
    if below is None:
        return [paint(DIM, "nothing to do yet")]
    grade = _text(glance, "grade") or NO_BREAK
    steps = keys(below, glance.get("code_changed") is True)
    parts = [f"{paint(GRADE_COLORS.get(grade, ''), grade)} {paint(BOLD, steps)}"]
    frees, after = _float(glance, "frees"), _int(glance, "after")
    if frees is not None or after is not None:
        parts.append(short(after, frees))
    if found.cached and _stale(status, glance):
        parts.append(paint(DIM, "old"))
    return parts


def _share(status: StatusInput, glance: dict[str, object]) -> float | None:
    """Claude Code's own figure first; else the daemon's tokens over the window Claude Code
    names (the file cannot tell a 1M window below 200k), else the daemon's share."""
    if status.used is not None:
        return status.used
    tokens = _int(glance, "tokens")
    window = status.window or _int(glance, "window")
    if tokens is not None and window:
        return tokens / window
    return _float(glance, "share")


def _share_text(paint: _Paint, share: float, glance: dict[str, object]) -> str:
    threshold = _float(glance, "threshold") or THRESHOLD
    urgent = _float(glance, "urgent") or URGENT
    code = f"{BOLD};{RED}" if share >= urgent else YELLOW if share >= threshold else ""
    return paint(code, f"{share:.0%}")


def _stale(status: StatusInput, glance: dict[str, object]) -> bool:
    """A cached glance of a transcript that has grown (or shrunk) since."""
    if status.transcript_path is None:
        return False
    try:
        size = os.stat(status.transcript_path).st_size  # noqa: PTH116 - no pathlib here
    except (OSError, ValueError):
        return False
    return size != _int(glance, "offset")


class _Paint:
    """ANSI SGR colouring, or none."""

    __slots__ = ("color",)

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}{RESET}" if self.color and code else text


def _int(glance: dict[str, object], key: str) -> int | None:
    value = glance.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(glance: dict[str, object], key: str) -> float | None:
    value = glance.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _text(glance: dict[str, object], key: str) -> str | None:
    value = glance.get(key)
    return value if isinstance(value, str) else None


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.removesuffix(".jsonl")


def _share_of(percent: object) -> float | None:
    """A percentage (0-100) as a share; None for anything else (NaN, bools, strings)."""
    if isinstance(percent, int | float) and not isinstance(percent, bool) and 0 <= percent <= 100:
        return percent / 100.0
    return None


def _stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, ValueError, OSError):
        return False
