"""Decides when: reads on every event, analyses after a short gathering delay, notifies after quiet.

A turn writes many lines in a burst. Each event reads the appended bytes at once (cheap, O(new
words)); once per burst, at least `analyse_seconds` after the first write and never more often
than four times the last analysis's cost, the session is refreshed: while a turn runs below the
notice's threshold with no new prompt, only the context's share (`Registry.refresh`), else the
analysis. The notice is considered, on a full analysis, once the session has been quiet for
`debounce_seconds`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from keepd.daemon.tail import READ_LIMIT
from keepd.system.heap import release_free_memory

if TYPE_CHECKING:
    from keepd.config import NotifyConfig, WatchConfig
    from keepd.core.analysis import Analysis
    from keepd.daemon.alerts import Alerts
    from keepd.daemon.reading import Reading
    from keepd.daemon.registry import Registry

log = logging.getLogger(__name__)
COST_FACTOR = 4.0


class Follower:
    """Reads, analyses and notices for every session, scheduled on one asyncio loop."""

    def __init__(
        self,
        registry: Registry,
        alerts: Alerts,
        watch: WatchConfig,
        notify: NotifyConfig,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.registry = registry
        self.alerts = alerts
        self.watch = watch
        self.notify = notify
        self.loop = loop
        self.rescans = 0
        self._analysis: dict[Path, asyncio.TimerHandle] = {}
        self._quiet: dict[Path, asyncio.TimerHandle] = {}
        self._cost: dict[Path, float] = {}
        self._rescan_soon: asyncio.TimerHandle | None = None
        self._woken: set[Path] = set()
        self._tasks: set[asyncio.Task[int]] = set()
        self.before_rescan: Callable[[], None] = lambda: None
        self.on_boundary: Callable[[Path, str], None] = lambda path, uuid: None
        self.reading: Reading | None = None  # the reader of meaning, when it is on

    def on_path(self, path: Path) -> None:
        """An event named `path` (a file, or a folder created, moved or deleted); on the loop."""
        if path.suffix != ".jsonl":
            if path.parent.name == "sessions" and path.suffix == ".json":
                self.registry.refresh_running()
            elif path.name in ("projects", "sessions") or path.parent.name == "projects":
                self.rescan_soon()
            return
        if not self.registry.is_session_path(path):
            return
        try:
            result = self.registry.read(path, READ_LIMIT)
        except Exception:  # a bug must not stop the daemon from following other sessions
            log.exception("reading %s failed", path)
            return
        if result.gone:
            self._forget(path)
            return
        if result.boundary is not None:
            self.on_boundary(path, result.boundary)
        if result.more:
            self.loop.call_soon(self.on_path, path)
        if result.changed:
            self._schedule_analysis(path)
            self._arm_quiet(path)

    def wake(self, path: Path) -> None:
        """Reads and analyses a known session soon, active or not (someone asked for it)."""
        if path not in self._woken:
            self._woken.add(path)
            self.loop.call_soon(self._wake_now, path)

    def _wake_now(self, path: Path) -> None:
        self._woken.discard(path)
        self.on_path(path)

    def rescan(self) -> int:
        """Catches what events missed: new, changed and vanished files; evicts idle ones."""
        self.rescans += 1
        self.before_rescan()
        stale = self.registry.scan()
        for path in [p for p in self._quiet if p not in self.registry.sessions]:
            self._forget(path)
        for path in stale:
            self.loop.call_soon(self.on_path, path)
        evicted = self.registry.evict()
        if evicted:
            log.info("evicted %d idle sessions from memory", evicted)
            release_free_memory()
        self.reconsider()
        return len(self.registry.sessions)

    def rescan_soon(self, delay: float = 0.05) -> None:
        """A rescan shortly, however many events ask for one."""
        if self._rescan_soon is None:
            self._rescan_soon = self.loop.call_later(delay, self._rescan_now)

    def _rescan_now(self) -> None:
        self._rescan_soon = None
        self.rescan()

    def retell(self, path: Path) -> None:
        """Analyses a session again soon and considers its notices (its window changed)."""
        followed = self.registry.sessions.get(path)
        if followed is not None and followed.state is not None:
            followed.analysis = None
            self._schedule_analysis(path)
            self._arm_quiet(path)

    def reconsider(self) -> None:
        """Notices for every quiet session in memory (after a resume, unmute or expiry)."""
        for path, followed in list(self.registry.sessions.items()):
            if followed.state is not None and path not in self._quiet:
                self._consider(path)

    def _schedule_analysis(self, path: Path) -> None:
        if path in self._analysis:
            return
        delay = max(self.watch.analyse_seconds, COST_FACTOR * self._cost.get(path, 0.0))
        self._analysis[path] = self.loop.call_later(delay, self._analyse, path)

    def _analyse(self, path: Path) -> None:
        self._analysis.pop(path, None)
        started = time.perf_counter()
        try:
            analysed = self.registry.refresh(path, self.notify.threshold)
        except Exception:
            log.exception("analysing %s failed", path)
            return
        if analysed:
            self._cost[path] = time.perf_counter() - started

    def _arm_quiet(self, path: Path) -> None:
        handle = self._quiet.pop(path, None)
        if handle is not None:
            handle.cancel()
        self._quiet[path] = self.loop.call_later(self.notify.debounce_seconds, self._on_quiet, path)

    def _on_quiet(self, path: Path) -> None:
        self._quiet.pop(path, None)
        self._consider(path)

    def _consider(self, path: Path) -> None:
        followed = self.registry.sessions.get(path)
        if followed is None or followed.state is None:
            return
        try:
            analysis = self.registry.analyse(path)
        except Exception:
            log.exception("analysing %s failed", path)
            return
        if analysis is None:
            return
        session_id = followed.session_id
        if self.reading is not None and self._ask_reader(session_id, analysis):
            self.reading.start(
                path, self.registry.window, analysis, lambda done: self._notice(session_id, done)
            )
            return
        self._notice(session_id, analysis)

    def _ask_reader(self, session_id: str, analysis: Analysis) -> bool:
        """Whether the reader is on and a notice may follow, so it is asked first."""
        if self.reading is None or not self.reading.wanted(analysis, self.notify):
            return False
        return self.alerts.may_notify(session_id, analysis)

    def _notice(self, session_id: str, analysis: Analysis) -> None:
        if self.alerts.consider(session_id, analysis):
            task = self.loop.create_task(self.alerts.flush())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _forget(self, path: Path) -> None:
        for timers in (self._analysis, self._quiet):
            handle = timers.pop(path, None)
            if handle is not None:
                handle.cancel()
        self._cost.pop(path, None)

    def close(self) -> None:
        for path in list(self._analysis) + list(self._quiet):
            self._forget(path)
        if self._rescan_soon is not None:
            self._rescan_soon.cancel()
