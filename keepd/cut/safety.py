"""Refuses to touch a session that may be in use or has changed, and locks it while writing."""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import orjson

from keepd.cut.model import Snapshot
from keepd.errors import LockedError, SessionBusyError, SessionChangedError
from keepd.paths import claude_roots
from keepd.system.atomic import make_folder
from keepd.system.procs import pid_alive

RECENT_SECONDS = 60.0
_HASH_CHUNK = 1 << 20


def refuse_if_busy(
    path: Path, session_ids: set[str], *, force: bool = False, own_mtime_ns: int | None = None
) -> None:
    """Raises unless `force` when the session runs, is held open, or was just written.

    `own_mtime_ns` is the modification time keepd's own last write left, which is no sign
    of Claude Code at work.
    """
    if force:
        return
    reason = busy_reason(path, session_ids, own_mtime_ns=own_mtime_ns)
    if reason is not None:
        raise SessionBusyError(f"{reason}; quit it first (or --force if it is not Claude Code)")


def busy_reason(
    path: Path, session_ids: set[str], *, own_mtime_ns: int | None = None
) -> str | None:
    """Why the session may be in use, or None."""
    pid = registered_pid(session_ids)
    if pid is not None:
        return f"Claude Code runs this session (pid {pid})"
    holders = holding_pids(path)
    if holders:
        return f"process {holders[0]} holds {path.name} open"
    age = recent_write(path, own_mtime_ns)
    if age is not None:
        return f"{path.name} was written {age:.0f} s ago"
    return None


def registered_pid(session_ids: set[str]) -> int | None:
    """A live pid from `<root>/sessions/<pid>.json` registered for one of `session_ids`."""
    for root in claude_roots():
        try:
            entries = list((root / "sessions").glob("*.json"))
        except OSError:
            continue
        for entry in entries:
            pid = _registered(entry, session_ids)
            if pid is not None:
                return pid
    return None


def _registered(entry: Path, session_ids: set[str]) -> int | None:
    try:
        data = orjson.loads(entry.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("sessionId") not in session_ids:
        return None
    pid = data.get("pid")
    return pid if isinstance(pid, int) and pid_alive(pid) else None


def holding_pids(path: Path, proc: Path = Path("/proc")) -> list[int]:
    """Other processes with the file open, as far as `/proc/*/fd` shows (Linux; else none)."""
    target = str(path.resolve())
    found: list[int] = []
    try:
        pids = [int(entry.name) for entry in proc.iterdir() if entry.name.isdigit()]
    except OSError:
        return found
    for pid in pids:
        if pid != os.getpid() and _holds(proc / str(pid) / "fd", target):
            found.append(pid)
    return found


def _holds(fds: Path, target: str) -> bool:
    try:
        links = list(fds.iterdir())
    except OSError:
        return False
    for link in links:
        with contextlib.suppress(OSError):
            if str(link.readlink()) == target:
                return True
    return False


def recent_write(path: Path, own_mtime_ns: int | None = None) -> float | None:
    """Seconds since the last write if under a minute ago and not keepd's own, else None."""
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError:
        return None
    if own_mtime_ns is not None and mtime_ns == own_mtime_ns:
        return None
    age = time.time() - mtime_ns / 1e9
    return max(age, 0.0) if age < RECENT_SECONDS else None


def refuse_if_changed(analysed: Snapshot, now: Snapshot) -> None:
    """Raises when the file is not, byte for byte and by its stat, the one analysed."""
    fields = ("size", "mtime_ns", "inode", "sha256")
    if any(getattr(analysed, name) != getattr(now, name) for name in fields):
        raise SessionChangedError(f"{analysed.path.name} changed after it was analysed; run again")


def file_sha256(path: Path, size: int | None = None) -> str:
    """The hash of the file's first `size` bytes (all of it when None)."""
    digest = hashlib.sha256()
    left = size
    with path.open("rb") as handle:
        while left is None or left > 0:
            chunk = handle.read(_HASH_CHUNK if left is None else min(_HASH_CHUNK, left))
            if not chunk:
                break
            digest.update(chunk)
            left = None if left is None else left - len(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def locked(lock_file: Path) -> Iterator[None]:
    """Holds an exclusive lock on `lock_file` (one keepd writer per session at a time)."""
    make_folder(lock_file.parent)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        _lock(fd, lock_file)
        yield
    finally:
        os.close(fd)


def _lock(fd: int, lock_file: Path) -> None:
    try:
        import fcntl
    except ImportError:  # Windows: the lock file's own exclusivity is all there is
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as error:
        raise LockedError(f"another keepd is changing this session ({lock_file})") from error
