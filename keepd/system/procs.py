"""Tells whether a process is alive, for Claude Code's registry of running sessions."""

from __future__ import annotations

import errno
import os


def pid_alive(pid: int) -> bool:
    """True if `pid` names a live process, ours or another user's.

    >>> pid_alive(os.getpid()), pid_alive(0)
    (True, False)
    """
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process, alive
    except OSError as error:
        return error.errno == errno.EPERM
    return True
