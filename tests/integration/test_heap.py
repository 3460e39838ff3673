"""The daemon's release of freed heap memory after an eviction, measured on this process."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from keepd.system.heap import release_free_memory


def resident_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_chunks_inside_the_heap_leave_resident_memory() -> None:
    # 60 MB of chunks below the mmap threshold, all freed but the newest: the heap's top is
    # in use, so free() alone hands nothing back and only a trim can.
    chunks = [bytearray(3000) for _ in range(20_000)]
    newest = chunks[-1]
    del chunks
    before = resident_mb()
    assert release_free_memory()
    assert before - resident_mb() > 30
    assert len(newest) == 3000
