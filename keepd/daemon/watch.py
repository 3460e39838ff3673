"""Bridges watchdog's threads to the daemon's loop: every event becomes `on_path(path)` there.

The native observer (inotify, FSEvents, ReadDirectoryChanges) is used where it can be; a path it
cannot watch (the inotify watch limit) is polled instead, and a lost-events warning (queue
overflow) asks for a rescan. The periodic rescan covers anything else events miss.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
PathCallback = Callable[[Path], None]
_WANTED = frozenset({"created", "modified", "moved", "deleted", "closed", "attrib"})
_OVERFLOW_LOGGERS = ("watchdog.observers.inotify_c", "watchdog.observers.inotify")


@dataclass(frozen=True, slots=True)
class Want:
    """A folder to watch, and whether its subfolders too."""

    path: Path
    recursive: bool


class _Overflow(logging.Handler):
    """Hears watchdog say that events were lost and asks for a rescan."""

    def __init__(self, lost: Callable[[], None]) -> None:
        super().__init__(logging.WARNING)
        self.lost = lost

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.lost()


class Watcher:
    """Watches folders; `ensure` is idempotent and called on every rescan."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_path: PathCallback,
        on_lost: Callable[[], None],
        *,
        polling: bool = False,
    ) -> None:
        self.loop = loop
        self.on_path = on_path
        self.on_lost = on_lost
        self.polling = polling
        self._native: Any = None
        self._poller: Any = None
        self._handler: Any = None
        self._watches: dict[Want, tuple[Any, Any, int]] = {}
        self._overflow = _Overflow(self._lost)

    @property
    def mode(self) -> str:
        kinds = {observer is self._poller for observer, _, _ in self._watches.values()}
        native = type(self._native).__name__.replace("Observer", "").lower() or "none"
        if kinds == {True}:
            return "polling"
        return f"{native} + polling" if True in kinds else native

    def start(self) -> None:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        self._handler = _bridge(self._forward)
        self._poller = PollingObserver(timeout=1.0)
        self._native = self._poller if self.polling else Observer()
        for observer in {self._native, self._poller}:
            observer.daemon = True
            observer.start()
        for name in _OVERFLOW_LOGGERS:
            logging.getLogger(name).addHandler(self._overflow)

    def ensure(self, wanted: list[Want]) -> None:
        """Watches what exists of `wanted`; re-watches folders that were re-created."""
        for want in wanted:
            inode = _inode(want.path)
            current = self._watches.get(want)
            if current is not None and current[2] == inode:
                continue
            if current is not None:
                self._unschedule(want)
            if inode is not None:
                self._schedule(want, inode)

    def stop(self) -> None:
        for name in _OVERFLOW_LOGGERS:
            logging.getLogger(name).removeHandler(self._overflow)
        for observer in {self._native, self._poller} - {None}:
            with contextlib.suppress(Exception):
                observer.stop()
                observer.join(timeout=2.0)
        self._watches.clear()

    def _schedule(self, want: Want, inode: int) -> None:
        try:
            watch = self._native.schedule(self._handler, str(want.path), recursive=want.recursive)
            self._watches[want] = (self._native, watch, inode)
            return
        except OSError as error:
            log.warning("cannot watch %s natively (%s); polling it", want.path, error)
        try:
            watch = self._poller.schedule(self._handler, str(want.path), recursive=want.recursive)
            self._watches[want] = (self._poller, watch, inode)
        except OSError as error:
            log.warning("cannot watch %s at all (%s); the rescan covers it", want.path, error)

    def _unschedule(self, want: Want) -> None:
        observer, watch, _ = self._watches.pop(want)
        with contextlib.suppress(Exception):
            observer.unschedule(watch)

    def _forward(self, raw: str) -> None:
        """Called on watchdog's threads."""
        with contextlib.suppress(RuntimeError):  # the loop is closing
            self.loop.call_soon_threadsafe(self.on_path, Path(raw))

    def _lost(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.on_lost)


def _bridge(forward: Callable[[str], None]) -> Any:
    from watchdog.events import FileSystemEvent, FileSystemEventHandler

    class Bridge(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            # A folder's "modified" comes with every file closed after writing: noise here.
            if event.event_type not in _WANTED or (
                event.is_directory and event.event_type in ("modified", "closed", "attrib")
            ):
                return
            for raw in (event.src_path, getattr(event, "dest_path", "")):
                if raw:
                    forward(os.fsdecode(raw))

    return Bridge()


def _inode(path: Path) -> int | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_ino if path.is_dir() else None
