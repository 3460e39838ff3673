"""Undoes the latest cut: truncates the file back to its length before it, checked against the
backup byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

from keepd.cut import backup
from keepd.cut.load import read_exact
from keepd.cut.model import UndoOutcome, cut_id
from keepd.cut.safety import locked, refuse_if_busy
from keepd.cut.write import truncate
from keepd.errors import NothingToUndoError, UndoRefusedError, WriteFailedError


def undo(path: Path, *, force: bool = False) -> UndoOutcome:
    """Restores the session file as it was before keepd's latest cut of it.

    Turns Claude Code wrote after the cut are refused unless `force`, which first saves them
    beside the backup.
    """
    with locked(backup.lock_file(path)):
        done = backup.records(path)
        if not done:
            raise NothingToUndoError(f"keepd has made no cut of {path.name} that it can undo")
        record = done[-1]
        ids = {record.session_id, path.stem}
        refuse_if_busy(path, ids, force=force, own_mtime_ns=record.mtime_after_ns)
        before = _backup_bytes(path, record)
        current, _ = read_exact(path)
        if current[: record.size_before] != before:
            raise UndoRefusedError(
                f"the first {record.size_before} bytes of {path.name} no longer match the "
                "backup; it was rewritten, so truncating could lose data"
            )
        kept_after = _continued(path, record, current, force)
        if path.stat().st_size != len(current):
            raise UndoRefusedError(f"{path.name} grew while it was being undone; try again")
        _restore(path, record, before)
    return UndoOutcome(
        path=path,
        session_id=record.session_id,
        size=record.size_before,
        removed=len(current) - record.size_before,
        kept_after=kept_after,
        cut_id=cut_id(record.boundary_uuid),
    )


def _backup_bytes(path: Path, record: backup.Record) -> bytes:
    copy = record.backup(backup.record_dir(path))
    try:
        data = copy.read_bytes()
    except OSError as error:
        raise UndoRefusedError(f"the backup {copy} cannot be read: {error}") from error
    if len(data) != record.size_before or _sha(data) != record.sha256_before:
        raise UndoRefusedError(f"the backup {copy} is damaged; the file is left as it is")
    return data


def _continued(path: Path, record: backup.Record, current: bytes, force: bool) -> Path | None:
    """None if the file is exactly the cut; else saves what came after (only with `force`)."""
    ours = record.size_after == len(current) and record.sha256_after == _sha(current)
    if ours:
        return None
    extra = len(current) - record.size_before
    if not force:
        raise UndoRefusedError(
            f"{path.name} has {extra} bytes the cut did not write (the session went on after "
            "it); keepd undo --force saves them to a file, then truncates"
        )
    saved = record.backup(backup.record_dir(path)).with_suffix(".after.jsonl")
    backup.write_new(saved, current[record.size_before :])
    return saved


def _restore(path: Path, record: backup.Record, before: bytes) -> None:
    try:
        truncate(path, record.size_before, record.mtime_before_ns)
        restored = path.read_bytes() == before
    except OSError as error:
        raise WriteFailedError(f"{path}: {error.strerror or error}") from error
    if not restored:
        copy = record.backup(backup.record_dir(path))
        raise WriteFailedError(f"{path} does not match its backup after undo; the copy: {copy}")
    backup.discard(path, record)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
