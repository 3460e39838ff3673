"""The tail: appended bytes, half lines, truncation, rewriting, replacement, odd files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from keepd.daemon.tail import Tail
from keepd.system.regular import NotAFileError


def _append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


def test_appends_and_a_half_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b"')
    tail = Tail(path)
    first = tail.read()
    assert (first.data, first.reset, tail.offset) == (b'{"a": 1}\n{"b"', True, 13)
    assert tail.read().data == b""
    _append(path, b": 2}\n")
    second = tail.read()
    assert (second.data, second.reset, tail.offset) == (b": 2}\n", False, 18)


def test_truncation_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x" * 100 + b"\n")
    tail = Tail(path)
    tail.read()
    with path.open("r+b") as handle:
        handle.truncate(10)
    chunk = tail.read()
    assert chunk.reset and chunk.data == b"x" * 10 and tail.offset == 10


def test_rewritten_in_place_to_the_same_length_or_longer(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"one\ntwo\n")
    tail = Tail(path)
    tail.read()
    with path.open("r+b") as handle:
        handle.write(b"ONE\nTWO\nthree\n")
    chunk = tail.read()
    assert chunk.reset and chunk.data == b"ONE\nTWO\nthree\n"


def test_replacement_and_recreation_start_over(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"one\ntwo\n")
    tail = Tail(path)
    tail.read()
    fresh = tmp_path / "new"
    fresh.write_bytes(b"one\ntwo\nthree\n")
    fresh.replace(path)
    assert tail.read().reset
    path.unlink()
    with pytest.raises(FileNotFoundError):
        tail.read()
    path.write_bytes(b"again\n")
    chunk = tail.read()
    assert chunk.reset and chunk.data == b"again\n"


def test_a_limit_leaves_more_for_later(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"a" * 1000)
    tail = Tail(path)
    first = tail.read(limit=600)
    assert len(first.data) == 600 and first.more
    rest = tail.read(limit=600)
    assert len(rest.data) == 400 and not rest.more and not rest.reset


def test_fifos_and_folders_are_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(NotAFileError):
        Tail(fifo).read()
    folder = tmp_path / "d.jsonl"
    folder.mkdir()
    with pytest.raises(IsADirectoryError):
        Tail(folder).read()
