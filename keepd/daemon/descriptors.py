"""File descriptors: the daemon raises its soft limit at start and keeps a reserve that client
connections may not take, so that a flood of them never leaves a session unreadable."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)
WANTED = 65536  # far more than the server keeps connections for; no need for a bigger table
RESERVE = 64  # for session reads in threads, the watcher, the bus, the log, the recall store


def raise_limit(wanted: int = WANTED) -> tuple[int, int]:
    """Raises the soft RLIMIT_NOFILE toward the hard limit (at most `wanted`); returns the
    (soft, hard) pair in force. A sandbox that refuses keeps the old limit, with a warning."""
    try:
        import resource
    except ImportError:  # not a Unix
        return (0, 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (OSError, ValueError) as error:
            log.warning("cannot raise the open files limit from %d to %d: %s", soft, target, error)
            return (soft, hard)
        log.debug("open files limit raised from %d to %d (hard %d)", soft, target, hard)
        soft = target
    return (soft, hard)


def connection_budget(max_connections: int, soft_limit: int | None = None) -> int:
    """How many client connections may be open at once: the configured number, within the
    soft limit less the reserve (at least a few, however low the limit).

    >>> connection_budget(1024, 65536), connection_budget(1024, 512), connection_budget(1024, 20)
    (1024, 448, 8)
    """
    if soft_limit is None:
        soft_limit = current_limit()
    if soft_limit <= 0:
        return max_connections
    return max(8, min(max_connections, soft_limit - RESERVE))


def current_limit() -> int:
    """The soft RLIMIT_NOFILE (0: none known)."""
    try:
        import resource
    except ImportError:
        return 0
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 0 if soft == resource.RLIM_INFINITY else int(soft)
