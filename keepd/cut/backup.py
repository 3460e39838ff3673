"""Keeps a copy of each session file as it was before a cut, and the cut's record, for undo."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import orjson

from keepd.paths import cuts_dir
from keepd.system.atomic import make_folder

_NUMBERED = re.compile(r"(\d{4,})\.json")


@dataclass(frozen=True, slots=True)
class Record:
    """One cut: the file before it (size, hash, copy) and what the append left."""

    number: int
    path: str
    session_id: str
    kind: str
    size_before: int
    sha256_before: str
    boundary_uuid: str
    created: str
    mtime_before_ns: int | None = None
    size_after: int | None = None  # None until the append is done and checked
    sha256_after: str | None = None
    mtime_after_ns: int | None = None

    def backup(self, folder: Path) -> Path:
        return folder / f"{self.number:04d}.jsonl"

    def manifest(self, folder: Path) -> Path:
        return folder / f"{self.number:04d}.json"


def record_dir(path: Path) -> Path:
    """The folder of one session file's backups, named by its name and a hash of its path."""
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    return cuts_dir() / f"{path.stem[:80]}-{key}"


def lock_file(path: Path) -> Path:
    return record_dir(path) / "lock"


def records(path: Path) -> list[Record]:
    """The cuts of a session file still undoable, oldest first."""
    folder = record_dir(path)
    try:
        names = sorted(e.name for e in folder.iterdir() if _NUMBERED.fullmatch(e.name))
    except OSError:
        return []
    found = []
    for name in names:
        try:
            found.append(Record(**orjson.loads((folder / name).read_bytes())))
        except (OSError, orjson.JSONDecodeError, TypeError):
            continue
    return found


def start(
    path: Path, data: bytes, mtime_ns: int, *, session_id: str, kind: str, boundary: str
) -> Record:
    """Writes the copy of `data` (the file before the cut) and a record saying so."""
    from keepd.cut.boundary import now

    folder = record_dir(path)
    make_folder(folder)
    done = records(path)
    number = done[-1].number + 1 if done else 1
    record = Record(
        number=number,
        path=str(path.resolve()),
        session_id=session_id,
        kind=kind,
        size_before=len(data),
        sha256_before=hashlib.sha256(data).hexdigest(),
        boundary_uuid=boundary,
        created=now(),
        mtime_before_ns=mtime_ns,
    )
    _write_atomic(record.backup(folder), data)
    save(path, record)
    return record


def finish(path: Path, record: Record, size: int, sha256: str, mtime_ns: int) -> Record:
    """Records what the append left, so undo can tell the cut from later turns."""
    done = replace(record, size_after=size, sha256_after=sha256, mtime_after_ns=mtime_ns)
    save(path, done)
    return done


def save(path: Path, record: Record) -> None:
    _write_atomic(record.manifest(record_dir(path)), orjson.dumps(asdict(record)))


def discard(path: Path, record: Record) -> None:
    """Removes a cut's copy and record once it is undone (the record last)."""
    folder = record_dir(path)
    record.backup(folder).unlink(missing_ok=True)
    record.manifest(folder).unlink(missing_ok=True)


def write_new(target: Path, data: bytes) -> None:
    """Writes a private file (0600) and syncs it."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(target: Path, data: bytes) -> None:
    temporary = target.with_name(target.name + ".tmp")
    write_new(temporary, data)
    temporary.replace(target)
