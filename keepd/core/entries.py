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

from typing import Any

import orjson

Entry = dict[str, Any]
Line = bytes | memoryview  # a line of the file, without its newline

# A tool result's line repeats the result in `toolUseResult`, which keepd never reads: about
# 40% of a session's bytes. `parse_lean` leaves it unparsed where that can be done safely.
_COPY_KEY = b',"toolUseResult":'
_AFTER_COPY = b',"sourceToolAssistantUUID":'
_LEAN_FROM = 2048  # shorter lines are parsed whole
_LEAN_NEEDS = ("type", "uuid", "parentUuid", "isSidechain", "message")


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

    def lines(self, data: bytes) -> list[Line]:
        """The lines `data` completes, raw; parse each with `parse`.

        Lines are views into `data` (no copy): parse them before feeding more.
        """
        if not data:
            return []
        cut = data.rfind(b"\n")
        if cut < 0:
            self._hold(data)
            return []
        out: list[Line] = []
        start = 0
        if self._pending:
            start = data.find(b"\n") + 1
            out.append(b"".join([*self._pending, data[: start - 1]]))
            self.consumed += self.pending_bytes
            self._pending = []
            self.pending_bytes = 0
        out += _views(data, start, cut)
        self._hold(data[cut + 1 :])
        self.consumed += cut + 1
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
        """`parse`, but a tool result's `toolUseResult` copy may be left out.

        The line is split before that key and the keys known to follow it are parsed on
        their own; each part must parse as an object, which fails whenever the split falls
        inside a nested value, and the first must hold every key keepd needs of a message.
        Anything else is parsed whole.
        """
        if len(line) >= _LEAN_FROM:
            raw = bytes(line)
            at = raw.find(_COPY_KEY)
            if at > 0:
                entry = _lean(raw, at)
                if entry is not None:
                    return entry
            return self.parse(raw)
        return self.parse(line)

    def _hold(self, piece: bytes) -> None:
        if piece:
            self._pending.append(piece)
            self.pending_bytes += len(piece)

    def _entries(self, lines: list[Line]) -> list[Entry]:
        return [entry for line in lines if (entry := self.parse(line)) is not None]


def _lean(raw: bytes, at: int) -> Entry | None:
    if not raw.rstrip().endswith(b"}"):
        return None  # cut short: let the whole parse say so
    try:
        entry = orjson.loads(raw[:at] + b"}")
        after = raw.rfind(_AFTER_COPY)
        if after > at:
            tail = orjson.loads(b"{" + raw[after + 1 :])
            if isinstance(entry, dict) and isinstance(tail, dict):
                entry.update(tail)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(entry, dict) or any(key not in entry for key in _LEAN_NEEDS):
        return None
    return entry


def _views(data: bytes, start: int, end: int) -> list[Line]:
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
