"""Turns the bytes appended to a session file into entries, holding back a half-written line.

>>> reader = EntryReader()
>>> reader.feed(b'{"type":"user"}\\nnot json\\n[1]\\n{"type":"assis')
[{'type': 'user'}]
>>> reader.skipped, reader.pending_bytes
(2, 14)
>>> reader.feed(b'tant"}\\n')
[{'type': 'assistant'}]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

Entry = dict[str, Any]
Line = bytes | memoryview  # a line of the file, without its newline


@dataclass(frozen=True, slots=True)
class _Skip:
    """A large value keepd never reads, the keys known to follow it, and what the entry it is
    left out of must still hold."""

    key: bytes
    followers: tuple[bytes, ...]
    kind: str
    needs: tuple[str, ...]
    sign: bytes = b""  # what marks such a line in its head, if not its type

    @property
    def marker(self) -> bytes:
        return self.sign or b'"type":"' + self.kind.encode() + b'"'


# A tool result's line repeats the result in `toolUseResult` (about 40% of a session's bytes)
# and a progress entry carries its tool's output in `data`; keepd reads neither, so
# `parse_lean` leaves them unparsed where that can be done safely.
_SKIPS = (
    _Skip(
        b',"toolUseResult":',
        (b',"sourceToolAssistantUUID":',),
        "user",
        ("uuid", "parentUuid", "isSidechain", "message"),
    ),
    _Skip(
        b',"data":',
        (b',"toolUseID":', b',"parentToolUseID":'),
        "progress",
        ("uuid", "parentUuid", "isSidechain"),
    ),
    # 2.1.332 writes an attachment's object before its type, its `rendered` text after. The
    # objects of the large kinds keepd never reads (messages.py: their text is Claude Code's
    # own, or a file's) are left unparsed; a prompt snapshot is about 57 kB.
    *(
        _Skip(
            b',"attachment":',
            (b',"type":',),
            "attachment",
            ("uuid", "parentUuid", "isSidechain"),
            sign=b',"attachment":{"type":"' + kind + b'"',
        )
        for kind in (
            b"prompt_snapshot",
            b"skill_listing",
            b"agent_listing_delta",
            b"deferred_tools_delta",
            b"mcp_instructions_delta",
            b"file",
        )
    ),
)
_LEAN_FROM = 4096  # shorter lines are parsed whole: splitting them costs more than it saves
_HEAD = 1024  # Claude Code writes an entry's type before its content: look for it this far
_MARKERS = tuple((skip.marker, skip) for skip in _SKIPS)


# Line types Claude Code 2.1.332's own loader keeps off the conversation (its table of line
# kinds: request records, cost and mode state, prompt history, snapshots of edited files).
# They carry no uuid of their own, so no entry can hang under one: keepd passes over a line
# that starts with such a type without parsing it (about a third of a 2.1.332 file's bytes).
BOOKKEEPING = frozenset(
    {
        "api-request",
        "api-request-blob",
        "api-request-shape",
        "api-request-resumed",
        "cost-state",
        "tools-used",
        "mode",
        "atis-latch",
        "last-prompt",
        "queue-operation",
        "permission-mode",
        "file-history-snapshot",
        "file-history-delta",
        "ai-title",
        "custom-title",
        "agent-name",
        "agent-setting",
        "pr-link",
        "relocated",
        "worktree-state",
    }
)
# A line that starts with such a type, written plainly as Claude Code writes it; matched in
# one call, as every line of a file is.
BOOKKEEPING_LINE = re.compile(
    rb'\{"type":"(?:' + b"|".join(re.escape(kind.encode()) for kind in sorted(BOOKKEEPING)) + rb')"'
)


def is_bookkeeping(line: Line) -> bool:
    """Whether `line` starts with a `BOOKKEEPING` type, written plainly as Claude Code writes it.

    >>> is_bookkeeping(b'{"type":"cost-state","sessionId":"s"}'), is_bookkeeping(b'{"type":"user"}')
    (True, False)
    """
    return BOOKKEEPING_LINE.match(line) is not None


class EntryReader:
    """Incremental JSONL reader: bad lines are counted and skipped, never fatal."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []
        self.pending_bytes = 0
        self.consumed = 0
        self.skipped = 0

    def feed(self, data: bytes) -> list[Entry]:
        """Entries completed by `data`; a trailing piece without newline waits for more."""
        return self._entries(self.lines(data))

    def finish(self) -> list[Entry]:
        """Reads the held-back piece as a last line (a file at rest may lack the newline)."""
        return self._entries(self.last_lines())

    def lines(self, data: bytes, origin: int = 0) -> list[Line]:
        """The lines `data[origin:]` completes, raw; parse each with `parse`.

        Lines are views into `data` (no copy): parse them before feeding more.
        """
        if len(data) <= origin:
            return []
        cut = data.rfind(b"\n", origin)
        if cut < 0:
            self._hold(data[origin:])
            return []
        out: list[Line] = []
        start = origin
        if self._pending:
            start = data.find(b"\n", origin) + 1
            out.append(b"".join([*self._pending, data[origin : start - 1]]))
            self.consumed += self.pending_bytes
            self._pending = []
            self.pending_bytes = 0
        out += line_views(data, start, cut)
        self._hold(data[cut + 1 :])
        self.consumed += cut + 1 - origin
        return out

    def last_lines(self) -> list[Line]:
        """The held-back piece, as the lines of a file that ended without a newline."""
        rest = b"".join(self._pending)
        self._pending = []
        self.pending_bytes = 0
        self.consumed += len(rest)
        return list(rest.split(b"\n"))

    def parse(self, line: Line) -> Entry | None:
        """The entry on `line`, or None for a blank line or one that is not a JSON object."""
        if not line:
            return None
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            if not bytes(line).isspace():
                self.skipped += 1
            return None
        if isinstance(value, dict):
            return value
        self.skipped += 1
        return None

    def parse_lean(self, line: Line) -> Entry | None:
        """`parse`, but a tool result's `toolUseResult` copy or a progress entry's `data` may
        be left out.

        The line is split before that key and the keys known to follow it are parsed on
        their own; each part must parse as an object, which fails whenever a split falls
        inside a nested value, and the entry must be of the kind the rule is for and hold
        every key keepd needs of it. Anything else is parsed whole.
        """
        if len(line) < _LEAN_FROM:
            return self.parse(line)
        head = bytes(line[:_HEAD])
        raw = None  # the line is copied only when a rule may apply
        for marker, skip in _MARKERS:
            if head.find(marker) >= 0:
                raw = bytes(line) if raw is None else raw
                at = raw.find(skip.key)
                entry = _lean(raw, at, skip) if at > 0 else None
                if entry is not None:
                    return entry
        return self.parse(line if raw is None else raw)

    def _hold(self, piece: bytes) -> None:
        if piece:
            self._pending.append(piece)
            self.pending_bytes += len(piece)

    def _entries(self, lines: list[Line]) -> list[Entry]:
        return [entry for line in lines if (entry := self.parse(line)) is not None]


def _lean(raw: bytes, at: int, skip: _Skip) -> Entry | None:
    if not (raw.endswith(b"}") or raw.rstrip().endswith(b"}")):
        return None  # cut short: let the whole parse say so
    try:
        entry = orjson.loads(raw[:at] + b"}")
        tail = [found for key in skip.followers if (found := raw.rfind(key)) > at]
        if tail:
            rest = orjson.loads(b"{" + raw[min(tail) + 1 :])
            if isinstance(entry, dict) and isinstance(rest, dict):
                entry.update(rest)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(entry, dict) or entry.get("type") != skip.kind:
        return None
    return entry if all(key in entry for key in skip.needs) else None


def line_views(data: bytes, start: int, end: int) -> list[Line]:
    """The non-empty lines of `data[start:end]` (which ends at a newline), as views."""
    view = memoryview(data)
    find = data.find
    out: list[Line] = []
    while start < end:
        stop = find(b"\n", start, end)
        if stop < 0:
            stop = end
        if stop > start:
            out.append(view[start:stop])
        start = stop + 1
    return out
