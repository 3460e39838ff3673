"""The reader of meaning in the daemon: before a notice, when `[reader]` is on, your own
`claude -p` is asked off the event loop (a worker thread running it with its timeout), and the
notice is decided on the analysis with its answer merged in.

A session is asked at most once per prompt count: answers (and failures) are kept in memory
and in the reader's cache by the request's hash. While one session's question runs, further
quiet periods of that session wait for it rather than ask again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from keepd.config import NotifyConfig, ReaderConfig
    from keepd.core.analysis import Analysis

log = logging.getLogger(__name__)
Then = Callable[["Analysis"], None]


class Reading:
    """The reader's questions in flight, one per session at most."""

    def __init__(self, config: ReaderConfig, loop: asyncio.AbstractEventLoop) -> None:
        self.config = config
        self.loop = loop
        self.memo: dict[str, dict[str, Any]] = {}  # request sha256 -> answer record
        self._running: set[Path] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    def wanted(self, analysis: Analysis, notify: NotifyConfig) -> bool:
        """Whether a notice may follow this analysis, so the reader should be asked first."""
        share = analysis.context.get("share")
        return self.config.enabled and share is not None and share >= notify.threshold

    def start(self, path: Path, window: int | None, local: Analysis, then: Then) -> None:
        """Asks about `path` in a worker thread; `then` gets the merged analysis on the loop
        (the `local` one when the reader fails in any way)."""
        if path in self._running:
            return
        self._running.add(path)
        task = self.loop.create_task(self._ask(path, window, local, then))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ask(self, path: Path, window: int | None, local: Analysis, then: Then) -> None:
        try:
            merged = await self.loop.run_in_executor(None, self._merged, path, window)
        except Exception as error:  # the reader must never stop a notice
            log.warning("reader for %s failed: %r; the local grade stands", path, error)
            merged = local
        finally:
            self._running.discard(path)
        then(merged)

    def _merged(self, path: Path, window: int | None) -> Analysis:
        """In the worker thread: a fresh read of the file, the reader asked, its answer merged."""
        from keepd.ops.reader import read_for_reader, with_reader
        from keepd.paths import reader_dir

        read = read_for_reader(path, window=window)
        return with_reader(read, self.config, cache=reader_dir(), memo=self.memo)

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
