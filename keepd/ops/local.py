"""`Operations`'s live operations computed in this process when no daemon runs.

Sessions written to within the active window are analysed from their files, the others are
listed; mutes and the pause are written to the daemon's state file, which it reads at start.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from keepd._version import __version__
from keepd.ops.overview import ControlResult, SessionInfo, StatusInfo, pick_fields
from keepd.paths import config_file, daemon_state_file, socket_path

if TYPE_CHECKING:
    from pathlib import Path

    from keepd.config import Config
    from keepd.core.analysis import Analysis
    from keepd.core.limits import Told
    from keepd.ops.glance import Glance
    from keepd.ops.memory import Memory
    from keepd.system.discover import SessionFile


class Local:
    """Implements `overview.Backend` from the files alone."""

    def __init__(self, config: Config, *, clock: float | None = None) -> None:
        self.config = config
        self.now = clock if clock is not None else time.time()
        self._told: dict[str, Told] | None = None

    def analyse(self, path: Path, told: Told | None = None) -> Analysis:
        """The analysis of a session file with what decides its window: the config, what its
        status line told the daemon (kept in the daemon's state file), the settings."""
        from keepd.api import analyse_file
        from keepd.system.settings import setup_for

        if told is None:
            if self._told is None:
                self._told = self._memory().told
            told = self._told.get(path.stem)
        return analyse_file(path, setup=setup_for(path, self.config.watch.window, told))

    def _memory(self) -> Memory:
        from keepd.ops.memory import load_memory

        return load_memory(daemon_state_file())

    def _save(self, memory: Memory) -> None:
        from keepd.ops.memory import save_memory

        save_memory(daemon_state_file(), memory)

    def _files(self) -> list[SessionFile]:
        from keepd.system.discover import session_files

        return session_files()

    def _active(self, item: SessionFile) -> bool:
        return self.now - item.mtime <= 60.0 * self.config.watch.active_minutes

    def status(self) -> StatusInfo:
        memory = self._memory()
        files = self._files()
        return StatusInfo(
            daemon=False,
            version=__version__,
            pid=None,
            uptime=None,
            sessions=len(files),
            active=sum(1 for item in files if self._active(item)),
            in_memory=0,
            paused=memory.is_paused(self.now),
            paused_until=memory.paused_until if memory.is_paused(self.now) else None,
            watcher=None,
            notifier=None,
            notices_sent=memory.sent(),
            notices_pending=0,
            socket=str(socket_path()),
            config=str(config_file()),
            state_file=str(daemon_state_file()),
        )

    def sessions(self, name: str | None = None) -> list[SessionInfo]:
        memory = self._memory()
        files = self._files()
        if name is not None:
            from keepd.system.discover import resolve

            wanted = resolve(name).path
            files = [item for item in files if item.path == wanted]
        return [self._info(item, memory) for item in files]

    def _info(self, item: SessionFile, memory: Memory) -> SessionInfo:
        from keepd.errors import KeepdError

        info = SessionInfo(
            session_id=item.session_id,
            path=str(item.path),
            project=None,
            state="idle",
            running=False,
            offset=0,
            size=item.size,
            analysed_offset=0,
            updated=item.mtime,
            muted=memory.muted(item.session_id, self.now),
            muted_until=memory.mutes.get(item.session_id),
            notified=list(memory.notified.get(item.session_id, [])),
        )
        if not self._active(item):
            return info
        try:
            analysis = self.analyse(item.path)
        except KeepdError as failure:
            return replace(info, state="unreadable", error=failure.message)
        done: dict[str, Any] = {"offset": item.size, "analysed_offset": item.size}
        done |= {"state": "active", "project": analysis.project, **pick_fields(analysis)}
        return replace(info, **done)

    def held(self, name: str) -> Analysis | None:
        return None

    def read(self, name: str) -> Analysis:
        from keepd.system.discover import resolve

        return self.analyse(resolve(name).path)

    def _session_id(self, name: str) -> str:
        from keepd.system.discover import resolve

        return resolve(name).path.stem

    def mute(self, name: str, minutes: float | None) -> ControlResult:
        from keepd.ops.memory import until

        session_id = self._session_id(name)
        memory = self._memory()
        end = until(minutes, self.now)
        memory.mute(session_id, end)
        self._save(memory)
        return ControlResult("mute", session_id=session_id, until=end, daemon=False)

    def unmute(self, name: str) -> ControlResult:
        session_id = self._session_id(name)
        memory = self._memory()
        memory.unmute(session_id)
        self._save(memory)
        return ControlResult("unmute", session_id=session_id, daemon=False)

    def pause(self, minutes: float | None) -> ControlResult:
        from keepd.ops.memory import until

        memory = self._memory()
        end = until(minutes, self.now)
        memory.pause(end)
        self._save(memory)
        return ControlResult("pause", until=end, daemon=False)

    def resume(self) -> ControlResult:
        memory = self._memory()
        memory.resume()
        self._save(memory)
        return ControlResult("resume", daemon=False)

    def rescan(self) -> ControlResult:
        return ControlResult("rescan", sessions=len(self._files()), daemon=False)

    def glance(self, session_id: str, path: str | None = None, told: Told | None = None) -> Glance:
        """The glance of an analysis of the session's file (`path`, else found by its id)."""
        from pathlib import Path

        from keepd.errors import UnreadableError
        from keepd.ops.glance import from_summary
        from keepd.system.discover import resolve

        found = Path(path) if path else resolve(session_id).path
        try:
            size = found.stat().st_size
        except OSError as error:
            raise UnreadableError(str(found), error.strerror or str(error)) from error
        analysis = self.analyse(found, told)
        notify = self.config.notify
        fields = pick_fields(analysis)
        return from_summary(
            session_id, fields, offset=size, threshold=notify.threshold, urgent=notify.urgent
        )
