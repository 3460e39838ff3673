"""Reads what was appended to a file since last time, noticing truncation and replacement.

>>> import tempfile, os
>>> path = Path(tempfile.mkdtemp()) / "s.jsonl"
>>> _ = path.write_bytes(b"one\\n")
>>> tail = Tail(path)
>>> tail.read().data, tail.offset
(b'one\\n', 4)
>>> with path.open("ab") as handle:
...     _ = handle.write(b"two\\n")
>>> chunk = tail.read()
>>> chunk.data, chunk.reset
(b'two\\n', False)
>>> _ = path.write_bytes(b"new\\n")
>>> chunk = tail.read()
>>> chunk.data, chunk.reset
(b'new\\n', True)
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from keepd.system.regular import open_regular, read_range

MARK_BYTES = 64
READ_LIMIT = 8 << 20


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes read in one go; `reset`: they start the file anew (feed a fresh state), as on
    the first read."""

    data: bytes
    reset: bool
    size: int  # the file's size when read
    more: bool  # the read stopped at the limit: call again


class Tail:
    """The (device, inode, offset) of one file and the last bytes read before the offset.

    The file is rebuilt from the start when its inode changes (atomic replacement, deletion and
    re-creation), when it is shorter than the offset (truncation), or when the bytes before the
    offset are no longer the ones read (rewritten in place to the same length or longer).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity: tuple[int, int] | None = None
        self.offset = 0
        self.size = 0
        self._mark = b""

    def read(self, limit: int = READ_LIMIT) -> Chunk:
        """New bytes (at most `limit`); raises OSError when the file cannot be read."""
        # No size bound: a followed session is read in pieces of `limit` and kept compact.
        with open_regular(self.path, sys.maxsize) as (fd, info):
            reset = self._moved(fd, info)
            if reset:
                self.offset, self._mark = 0, b""
            self.identity, self.size = (info.st_dev, info.st_ino), info.st_size
            data = read_range(fd, self.offset, min(info.st_size - self.offset, limit))
        self.offset += len(data)
        self._mark = (self._mark + data[-MARK_BYTES:])[-MARK_BYTES:]
        return Chunk(data, reset, info.st_size, self.offset < info.st_size)

    def forget(self) -> None:
        """Starts over: the next read returns the whole file as a reset."""
        self.identity, self.offset, self._mark = None, 0, b""

    def _moved(self, fd: int, info: os.stat_result) -> bool:
        if self.identity is None:
            return True
        if (info.st_dev, info.st_ino) != self.identity or info.st_size < self.offset:
            return True
        if not self._mark:
            return False
        start = self.offset - len(self._mark)
        return read_range(fd, start, len(self._mark)) != self._mark
