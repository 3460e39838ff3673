"""Writes a planned cut: locked, checked, backed up, appended with fsync, re-read, or undone."""

from __future__ import annotations

import os
from pathlib import Path

from keepd.cut import backup
from keepd.cut.load import read_exact
from keepd.cut.model import CutOutcome, Plan, Snapshot
from keepd.cut.safety import file_sha256, locked, refuse_if_busy, refuse_if_changed
from keepd.cut.validate import verify
from keepd.errors import SessionChangedError, WriteFailedError


def apply(plan: Plan, *, force: bool = False) -> CutOutcome:
    """Appends the plan's lines to the session file and checks the context it rebuilds.

    Any failure after the append truncates the file back to its bytes before it, unless
    someone else wrote to it meanwhile: then it stays as it is, and so does the backup.
    """
    path = plan.snapshot.path
    with locked(backup.lock_file(path)):
        done = backup.records(path)
        own = done[-1].mtime_after_ns if done else None
        refuse_if_busy(path, set(plan.session_ids), force=force, own_mtime_ns=own)
        data, now = read_exact(path)
        refuse_if_changed(plan.snapshot, now)
        record = _start(path, data, now.mtime_ns, plan)
        payload = _payload(data, plan.written.payload)
        try:
            _append(path, plan.snapshot, payload)
            direct = verify(path, plan.written, plan.placement, plan.session_id)
        except SessionChangedError:  # only raised before anything is written
            backup.discard(path, record)
            raise
        except BaseException:
            _roll_back(path, data, payload, record)
            raise
        info = path.stat()
        backup.finish(path, record, info.st_size, file_sha256(path), info.st_mtime_ns)
    return CutOutcome(plan, True, record.backup(backup.record_dir(path)), direct)


def _start(path: Path, data: bytes, mtime_ns: int, plan: Plan) -> backup.Record:
    try:
        return backup.start(
            path,
            data,
            mtime_ns,
            session_id=plan.session_id,
            kind=plan.kind,
            boundary=plan.written.boundary_uuid,
        )
    except OSError as error:
        raise WriteFailedError(f"the backup could not be written: {error}") from error


def _payload(data: bytes, lines: bytes) -> bytes:
    """The lines, after a newline if the file's last line lacks one."""
    return lines if not data or data.endswith(b"\n") else b"\n" + lines


def _append(path: Path, snapshot: Snapshot, payload: bytes) -> None:
    """One append, then fsync; the file must still end where the analysis read it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError as error:
        raise WriteFailedError(f"{path}: {error.strerror or error}") from error
    try:
        info = os.fstat(fd)
        if (info.st_size, info.st_ino) != (snapshot.size, snapshot.inode):
            raise SessionChangedError(f"{path.name} changed after it was analysed")
        written = os.write(fd, payload)
        if written != len(payload):
            raise WriteFailedError(f"{path}: only {written} of {len(payload)} bytes written")
        os.fsync(fd)
    except OSError as error:
        raise WriteFailedError(f"{path}: {error.strerror or error}") from error
    finally:
        os.close(fd)


def truncate(path: Path, size: int, mtime_ns: int | None = None) -> None:
    """Cuts the file back to `size` bytes, durably, and gives it back its `mtime_ns`."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)
    if mtime_ns is not None:
        os.utime(path, ns=(path.stat().st_atime_ns, mtime_ns))


def _roll_back(path: Path, data: bytes, payload: bytes, record: backup.Record) -> None:
    """Takes back what keepd appended (all or part of `payload`), and nothing else.

    If the file holds anything but `data` and a piece of `payload`, someone else wrote to it:
    it is left alone, and the backup stays for `keepd undo` or by hand.
    """
    copy = record.backup(backup.record_dir(path))
    try:
        current = path.read_bytes()
        ours = current.startswith(data) and payload.startswith(current[len(data) :])
        if ours and len(current) > len(data):
            truncate(path, len(data), record.mtime_before_ns)
        restored = ours and path.read_bytes() == data
    except OSError:
        restored = False
    if not restored:
        raise WriteFailedError(f"{path} was left as it is after a failed cut; the copy: {copy}")
    backup.discard(path, record)
