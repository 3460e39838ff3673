"""Hands the C heap's free pages back to the system (glibc's `malloc_trim`), where there is one."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from collections.abc import Callable


def release_free_memory() -> bool:
    """Returns the free memory at the heap's end and its free whole pages to the system;
    whether this C library can (glibc can; musl and macOS have no `malloc_trim`).

    glibc keeps what Python and numpy free for reuse and gives back only a free top of the
    heap: after the daemon evicts hundreds of sessions their arrays' pages stay resident
    until trimmed (some 36 MB for 200 sessions of 2,000 messages). It costs milliseconds,
    so the daemon asks after evicting, not on a timer.
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        library = ctypes.CDLL(name)
        trim: Callable[[int], int] = library.malloc_trim
    except (OSError, AttributeError):
        return None
    return trim
