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

    def lines(self, data: bytes) -> list[bytes]:
        """The lines `data` completes, raw; parse each with `parse`."""
        if not data:
            return []
        cut = data.rfind(b"\n")
        if cut < 0:
            self._hold(data)
            return []
        head = b"".join([*self._pending, data[: cut + 1]]) if self._pending else data[: cut + 1]
        self._pending = []
        self.pending_bytes = 0
        self._hold(data[cut + 1 :])
        self.consumed += len(head)
        return head.split(b"\n")

    def last_lines(self) -> list[bytes]:
        """The held-back piece, as the lines of a file that ended without a newline."""
        rest = b"".join(self._pending)
        self._pending = []
        self.pending_bytes = 0
        self.consumed += len(rest)
        return rest.split(b"\n")

    def parse(self, line: bytes) -> Entry | None:
        """The entry on `line`, or None for a blank line or one that is not a JSON object."""
        if not line or line.isspace():
            return None
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            self.skipped += 1
            return None
        if isinstance(value, dict):
            return value
        self.skipped += 1
        return None

    def _hold(self, piece: bytes) -> None:
        if piece:
            self._pending.append(piece)
            self.pending_bytes += len(piece)

    def _entries(self, lines: list[bytes]) -> list[Entry]:
        return [entry for line in lines if (entry := self.parse(line)) is not None]
