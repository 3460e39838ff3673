"""Replaces a file atomically: a temp file beside it, fsynced, renamed over it; and makes the
folders keepd writes into, never wider than 0700 whatever the umask."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def replace_file(
    target: Path, data: bytes, *, mode: int = 0o600, folder_mode: int | None = None
) -> None:
    """Writes `data` to `target` so that readers see the old file or the new one, never a part.

    A missing folder is created (with `folder_mode`, else 0700, as its missing parents); the
    folder is fsynced after the rename so the new name survives a crash.
    """
    folder = target.parent
    if not folder.is_dir():
        make_folder(folder, 0o700 if folder_mode is None else folder_mode)
        if folder_mode is not None:
            folder.chmod(folder_mode)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        Path(temporary).chmod(mode)
        Path(temporary).replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise
    _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def make_folder(folder: Path, mode: int = 0o700) -> None:
    """Creates `folder` and each missing parent with `mode` at most (the XDG base directory
    rule): under a umask of 000, `mkdir -p` would leave the parents writable by everyone.
    Folders that exist are left as they are."""
    missing: list[Path] = []
    probe = folder
    while not probe.is_dir() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode)
        except FileExistsError:
            if not path.is_dir():
                raise
