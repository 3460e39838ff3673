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
        if not data:
            return []
        cut = data.rfind(b"\n")
        if cut < 0:
            self._hold(data)
            return []
        head = b"".join([*self._pending, data[: cut + 1]])
        self._pending = []
        self.pending_bytes = 0
        self._hold(data[cut + 1 :])
        self.consumed += len(head)
        return self._parse_lines(head)

    def finish(self) -> list[Entry]:
        """Reads the held-back piece as a last line (a file at rest may lack the newline)."""
        rest = b"".join(self._pending)
        self._pending = []
        self.pending_bytes = 0
        self.consumed += len(rest)
        return self._parse_lines(rest)

    def _hold(self, piece: bytes) -> None:
        if piece:
            self._pending.append(piece)
            self.pending_bytes += len(piece)

    def _parse_lines(self, blob: bytes) -> list[Entry]:
        entries: list[Entry] = []
        for line in blob.split(b"\n"):
            if not line.strip():
                continue
            try:
                value = orjson.loads(line)
            except orjson.JSONDecodeError:
                self.skipped += 1
                continue
            if isinstance(value, dict):
                entries.append(value)
            else:
                self.skipped += 1
        return entries
