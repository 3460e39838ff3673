"""Session files are read only when regular, without blocking, and up to a bound; through
`keepd.api` each refusal is keepd's one-line error."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from keepd.api import analyse_file
from keepd.errors import NotASessionError, UnreadableError
from keepd.paths import example_session
from keepd.system.regular import (
    NotAFileError,
    TooLargeError,
    chunks,
    open_regular,
    read_range,
    read_regular,
)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def read() -> None:
        try:
            read_regular(fifo)
        except BaseException as error:
            done.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert isinstance(done[0], NotAFileError) and "(a FIFO)" in str(done[0])


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused(device: str) -> None:
    with pytest.raises(UnreadableError, match="not a regular file \\(a character device\\)"):
        analyse_file(device)


def test_a_folder_is_not_a_session(tmp_path: Path) -> None:
    with pytest.raises(NotASessionError):
        analyse_file(tmp_path)


def test_the_size_bound_and_what_a_growing_file_adds(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x" * 100)
    with pytest.raises(TooLargeError, match="100 bytes; keepd reads session files up to 99"):
        read_regular(path, limit=99)
    pieces = chunks(path)
    first = next(pieces)
    with path.open("ab") as handle:
        handle.write(b"appended after opening")
    assert first + b"".join(pieces) == b"x" * 100  # as large as it was when opened


def test_whole_history_reads_through_the_same_checks(tmp_path: Path) -> None:
    fifo = tmp_path / "w.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableError, match="a FIFO"):
        analyse_file(fifo, whole=True)
    assert analyse_file(example_session(), whole=True).messages > 0


def test_a_range_reads_whole_or_what_is_left_of_a_shrunk_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x" * 3_000_000)
    with open_regular(path) as (fd, info):
        assert read_range(fd, 0, info.st_size) == b"x" * 3_000_000
        assert read_range(fd, 2_999_000, 5_000) == b"x" * 1_000  # past the end: what is there
        os.truncate(path, 1_000)
        assert read_range(fd, 0, info.st_size) == b"x" * 1_000
        assert read_range(fd, 0, 0) == b""
