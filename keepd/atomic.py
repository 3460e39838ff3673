"""Replaces a file atomically: a temp file beside it, fsynced, renamed over it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def replace_file(
    target: Path, data: bytes, *, mode: int = 0o600, folder_mode: int | None = None
) -> None:
    """Writes `data` to `target` so that readers see the old file or the new one, never a part.

    A missing folder is created (with `folder_mode` when given); the folder is fsynced after
    the rename so the new name survives a crash.
    """
    folder = target.parent
    if not folder.is_dir():
        if folder_mode is None:
            folder.mkdir(parents=True, exist_ok=True)
        else:
            folder.mkdir(mode=folder_mode, parents=True, exist_ok=True)
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
