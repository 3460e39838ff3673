"""The daemon's side of `Operations`: answers from the sessions it follows and what it remembers."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from keepd._version import __version__
from keepd.ops.memory import until
from keepd.ops.overview import ControlResult, SessionInfo, StatusInfo

if TYPE_CHECKING:
    from keepd.core.analysis import Analysis
    from keepd.core.limits import Told
    from keepd.daemon.alerts import Alerts
    from keepd.daemon.follow import Follower
    from keepd.daemon.registry import Followed, Registry
    from keepd.ops.glance import Glance
    from keepd.ops.memory import Memory


@dataclass(frozen=True, slots=True)
class Where:
    """The daemon's own files, for `status`."""

    socket: str
    config: str
    state_file: str


class Live:
    """Implements `overview.Backend` on the daemon's loop."""

    def __init__(
        self,
        registry: Registry,
        follower: Follower,
        alerts: Alerts,
        where: Where,
        *,
        watcher: Callable[[], str],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = registry
        self.follower = follower
        self.alerts = alerts
        self.where = where
        self.watcher = watcher
        self.clock = clock
        self.started = time.monotonic()

    @property
    def memory(self) -> Memory:
        return self.alerts.memory

    def status(self) -> StatusInfo:
        now = self.clock()
        followed = list(self.registry.sessions.values())
        sender = self.alerts.sender
        return StatusInfo(
            daemon=True,
            version=__version__,
            pid=os.getpid(),
            uptime=round(time.monotonic() - self.started, 3),
            sessions=len(followed),
            active=sum(1 for f in followed if self.registry.is_active(f)),
            in_memory=sum(1 for f in followed if f.state is not None),
            paused=self.memory.is_paused(now),
            paused_until=self.memory.paused_until if self.memory.is_paused(now) else None,
            watcher=self.watcher(),
            notifier=sender.describe() if sender is not None else "disabled",
            notices_sent=self.memory.sent(),
            notices_pending=len(self.alerts.pending),
            socket=self.where.socket,
            config=self.where.config,
            state_file=self.where.state_file,
            rescans=self.follower.rescans,
        )

    def sessions(self, name: str | None = None) -> list[SessionInfo]:
        now = self.clock()
        if name is not None:
            found = self.registry.find(name)
            return [self._info(found, now)] if found is not None else []
        followed = sorted(
            self.registry.sessions.values(), key=lambda f: f.mtime or 0.0, reverse=True
        )
        return [self._info(f, now) for f in followed]

    def _info(self, followed: Followed, now: float) -> SessionInfo:
        session_id = followed.session_id
        muted = self.memory.muted(session_id, now)
        info = self.registry.info(followed, self.memory.mutes.get(session_id), muted)
        notified = list(self.memory.notified.get(session_id, []))
        return SessionInfo(**{**info.to_dict(), "notified": notified})

    def held(self, name: str) -> Analysis | None:
        """The live analysis of a session in memory (on the loop)."""
        followed = self.registry.find(name)
        if followed is None or followed.state is None:
            return None
        return self.registry.full(followed.path)

    def read(self, name: str) -> Analysis:
        """A fresh analysis of the session's file; touches no registry state, so that the
        socket can run it in a thread (a big file must not hold up the loop)."""
        from keepd.api import analyse_file
        from keepd.system.discover import resolve
        from keepd.system.settings import setup_for

        path = resolve(name).path
        told = self.registry.told.get(self.session_id(name))
        return analyse_file(path, setup=setup_for(path, self.registry.window, told))

    def session_id(self, name: str) -> str:
        followed = self.registry.find(name)
        if followed is not None:
            return followed.session_id
        from keepd.system.discover import resolve

        return resolve(name).path.stem

    def mute(self, name: str, minutes: float | None) -> ControlResult:
        session_id = self.session_id(name)
        end = until(minutes, self.clock())
        self.memory.mute(session_id, end)
        self.alerts.pending.pop(session_id, None)
        self.alerts.save()
        return ControlResult("mute", session_id=session_id, until=end)

    def unmute(self, name: str) -> ControlResult:
        session_id = self.session_id(name)
        self.memory.unmute(session_id)
        self.alerts.save()
        self.follower.reconsider()
        return ControlResult("unmute", session_id=session_id)

    def pause(self, minutes: float | None) -> ControlResult:
        end = until(minutes, self.clock())
        self.memory.pause(end)
        self.alerts.save()
        return ControlResult("pause", until=end)

    def resume(self) -> ControlResult:
        self.memory.resume()
        self.alerts.save()
        self.follower.reconsider()
        return ControlResult("resume")

    def rescan(self) -> ControlResult:
        return ControlResult("rescan", sessions=self.follower.rescan())

    def glance(self, session_id: str, path: str | None = None, told: Told | None = None) -> Glance:
        """What the last analysis of the session found; `known` false if it is not followed.
        What the status line `told` of the session is kept (and saved when its window is new)."""
        from keepd.daemon.glance import find, glance_of
        from keepd.ops.glance import Glance

        followed = find(self.registry, session_id, path)
        if followed is None:
            return Glance(session_id, written=self.clock())
        if told is not None and self.memory.tell(followed.session_id, told):
            self.alerts.save()
            self.follower.retell(followed.path)
        if followed.state is None and not followed.summary:
            # Known but never analysed (idle past watch.active_minutes since the daemon
            # started, as after `claude --resume`): asked for, it is in use; read it now.
            self.follower.wake(followed.path)
        return glance_of(followed, self.alerts.config, self.clock())
