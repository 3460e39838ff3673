"""The session files the daemon knows: their tails, live states, analyses, and which run.

Everything here runs on the daemon's loop thread and is synchronous; `follow.py` decides when.
Only active sessions (running, or written to within the active window) keep a `SessionState`;
idle ones are evicted and reloaded from the start on their next write. States are compact:
they keep the branch, not the tree, so a rewind or a compaction (which `SessionState` reports
as `stale`) is handled by reading the file again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from keepd.daemon.tail import Chunk, Tail
from keepd.errors import AmbiguousSessionError
from keepd.ops.overview import SessionInfo, pick_fields
from keepd.system.discover import is_sidechain_file
from keepd.system.procs import pid_alive
from keepd.system.settings import setup_for

if TYPE_CHECKING:  # the core (and numpy) load with the first session read, not at start
    from keepd.core.analysis import Analysis
    from keepd.core.limits import Setup, Told
    from keepd.core.session import SessionState

log = logging.getLogger(__name__)
Clock = Callable[[], float]


@dataclass(slots=True)
class Followed:
    """One main transcript and what the daemon holds of it."""

    path: Path
    session_id: str
    tail: Tail
    state: SessionState | None = None
    analysis: Analysis | None = None
    analysed_offset: int = 0
    mtime: float | None = None
    error: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    boundary: str | None = None  # the newest compact boundary's uuid when the file was last read
    read_once: bool = False  # read to its end at least once (so a different boundary is new)

    @property
    def dirty(self) -> bool:
        return self.state is not None and self.analysed_offset != self.tail.offset


@dataclass(frozen=True, slots=True)
class ReadResult:
    """What one read did: new bytes fed, more left to read, or the file is gone."""

    changed: bool = False
    more: bool = False
    gone: bool = False
    boundary: str | None = None  # a compact boundary that appeared since the last read


class Registry:
    """Known session files by path."""

    def __init__(
        self,
        roots: Callable[[], list[Path]],
        *,
        clock: Clock = time.time,
        active_seconds: float = 1800.0,
        window: int | None = None,
    ) -> None:
        self.roots = roots
        self.clock = clock
        self.active_seconds = active_seconds
        self.window = window
        self.told: dict[str, Told] = {}  # what status lines said (the daemon's memory's)
        self.sessions: dict[Path, Followed] = {}
        self.running: set[str] = set()
        self.on_analysed: Callable[[Followed], None] = lambda followed: None  # the glance cache

    def is_session_path(self, path: Path) -> bool:
        """`<root>/projects/<slug>/<id>.jsonl` under a root, and not a sub-agent's."""
        if path.suffix != ".jsonl" or is_sidechain_file(path):
            return False
        return path.parent.parent.name == "projects" and path.parent.parent.parent in self.roots()

    def read(self, path: Path, limit: int) -> ReadResult:
        """Feeds what was appended to `path` (all of it for a session not in memory)."""
        followed = self.sessions.get(path)
        if followed is None:
            followed = self.sessions[path] = Followed(path, path.stem, Tail(path))
        if followed.state is None:
            followed.tail.forget()
        try:
            chunk = followed.tail.read(limit)
        except FileNotFoundError:
            self.sessions.pop(path, None)
            return ReadResult(gone=True)
        except OSError as error:
            followed.error = error.strerror or str(error)
            log.warning("cannot read %s: %s", path, followed.error)
            return ReadResult()
        followed.error = None
        followed.mtime = self._mtime(path)
        if chunk.reset or followed.state is None:
            followed.analysed_offset = -1
            followed.state = _fresh_state(chunk)
        else:
            followed.state.feed(chunk.data)
        # Indexing at once lets the compact state drop the entries it read: a session being
        # loaded never holds its whole tree while it waits for its first analysis.
        followed.state.branch()
        changed = bool(chunk.data) or chunk.reset
        if chunk.more:
            return ReadResult(changed=changed, more=True)
        return ReadResult(changed=changed, boundary=_new_boundary(followed))

    def analyse(self, path: Path) -> Analysis | None:
        """Brings the analysis of a session in memory up to date with what was read."""
        followed = self.sessions.get(path)
        if followed is None or followed.state is None:
            return None
        if followed.dirty or followed.analysis is None:
            from keepd.core.analysis import analyse_state

            analysis: Analysis | None = analyse_state(
                followed.state, path=str(path), every_stop=False, setup=self.setup(followed)
            )
            if followed.state.stale:
                analysis = self._reread(followed)
            if analysis is None:
                return None
            followed.analysis = analysis
            followed.analysed_offset = followed.tail.offset
            analysis = followed.analysis
            followed.summary = {**pick_fields(analysis), "project": analysis.project}
            self.on_analysed(followed)
        return followed.analysis

    def refresh(self, path: Path, threshold: float) -> bool:
        """After a burst of writes: the context's share alone while no stop was added since
        the last analysis and the share is below `threshold` (a turn running: the picker's
        rows and the notices cannot change yet), else the analysis. True if it analysed.

        The analysis follows when the session goes quiet (`follow.py`), as before a notice.
        """
        followed = self.sessions.get(path)
        if followed is None or followed.state is None:
            return False
        state, last = followed.state, followed.analysis
        if last is not None and not followed.dirty:
            return False
        stops = len(state.stop_indices())  # brings the branch up to date: `stale` is known
        if last is not None and not state.stale and stops == last.stop_count:
            from keepd.core.analysis import context_of

            context = context_of(state, setup=self.setup(followed))
            share = context.get("share")
            if share is None or share < threshold:
                followed.summary = {**followed.summary, "context": context}
                self.on_analysed(followed)
                return False
        self.analyse(path)
        return True

    def _reread(self, followed: Followed) -> Analysis | None:
        """The branch changed under a compact state (a rewind, a compaction): from the start."""
        log.debug("%s no longer continues its branch; reading it again", followed.path)
        followed.state = None
        while self.read(followed.path, 1 << 62).more:
            pass
        if followed.state is None:  # the file went away or became unreadable meanwhile
            return None
        from keepd.core.analysis import analyse_state

        return analyse_state(
            followed.state, path=str(followed.path), every_stop=False, setup=self.setup(followed)
        )

    def full(self, path: Path) -> Analysis | None:
        """The analysis with every stop (the socket's `session`), from the state in memory."""
        if self.analyse(path) is None:
            return None
        followed = self.sessions[path]
        if followed.state is None:
            return None
        from keepd.core.analysis import analyse_state

        return analyse_state(followed.state, path=str(path), setup=self.setup(followed))

    def setup(self, followed: Followed) -> Setup:
        """What decides the session's window: the config, its status line, the settings."""
        return setup_for(followed.path, self.window, self.told.get(followed.session_id))

    def scan(self) -> list[Path]:
        """Registers new files, forgets vanished ones; returns those with unread bytes."""
        self.refresh_running()
        seen: set[Path] = set()
        stale: list[Path] = []
        for path, info in self._files():
            seen.add(path)
            followed = self.sessions.get(path)
            if followed is None:
                followed = self.sessions[path] = Followed(path, path.stem, Tail(path))
                followed.mtime = info.st_mtime
                followed.tail.size = info.st_size
            if self._needs_read(followed, info):
                stale.append(path)
        for path in [p for p in self.sessions if p not in seen]:
            del self.sessions[path]
        return stale

    def _needs_read(self, followed: Followed, info: os.stat_result) -> bool:
        if followed.state is None:
            return followed.error is not None or self.is_active(followed, info.st_mtime)
        identity = (info.st_dev, info.st_ino)
        return identity != followed.tail.identity or info.st_size != followed.tail.offset

    def is_active(self, followed: Followed, mtime: float | None = None) -> bool:
        if followed.session_id in self.running:
            return True
        mtime = mtime if mtime is not None else followed.mtime
        return mtime is not None and self.clock() - mtime <= self.active_seconds

    def evict(self) -> int:
        """Drops the states of sessions no longer active; returns how many."""
        evicted = 0
        for followed in self.sessions.values():
            if followed.state is not None and not self.is_active(followed):
                followed.state, followed.analysis = None, None
                evicted += 1
        return evicted

    def refresh_running(self) -> None:
        """Session ids in `<root>/sessions/<pid>.json` whose process is alive."""
        running: set[str] = set()
        for root in self.roots():
            with contextlib.suppress(OSError):
                for entry in (root / "sessions").glob("*.json"):
                    session_id = _running_session(entry)
                    if session_id is not None:
                        running.add(session_id)
        self.running = running

    def find(self, name: str) -> Followed | None:
        """A known session by path, id or unique id prefix."""
        by_path = self.sessions.get(Path(name).expanduser())
        if by_path is not None:
            return by_path
        exact = [f for f in self.sessions.values() if f.session_id == name]
        if exact:
            return exact[0]
        matches = [f for f in self.sessions.values() if f.session_id.startswith(name)]
        if len({f.session_id for f in matches}) > 1:
            shown = ", ".join(sorted(f.session_id for f in matches)[:4])
            raise AmbiguousSessionError(f"{name!r} matches {len(matches)} sessions: {shown}")
        return matches[0] if matches else None

    def info(self, followed: Followed, muted_until: float | None, muted: bool) -> SessionInfo:
        state = "active" if followed.state is not None else "idle"
        if followed.error is not None and followed.state is None:
            state = "unreadable"
        return SessionInfo(
            session_id=followed.session_id,
            path=str(followed.path),
            project=followed.summary.get("project"),
            state=state,
            running=followed.session_id in self.running,
            offset=followed.tail.offset,
            size=followed.tail.size,
            analysed_offset=max(followed.analysed_offset, 0),
            updated=followed.mtime,
            muted=muted,
            muted_until=muted_until,
            error=followed.error,
            **{k: v for k, v in followed.summary.items() if k != "project"},
        )

    def _files(self) -> list[tuple[Path, os.stat_result]]:
        found = []
        for root in self.roots():
            try:
                folders = [entry for entry in (root / "projects").iterdir() if entry.is_dir()]
            except OSError:
                continue
            for folder in folders:
                found.extend(_stat_sessions(folder))
        return found

    @staticmethod
    def _mtime(path: Path) -> float | None:
        try:
            return path.stat().st_mtime
        except OSError:
            return None


def _new_boundary(followed: Followed) -> str | None:
    """The uuid of the file's newest compact boundary if it differs from the one it had when
    last read to its end (a compaction since; also one made while the session was evicted)."""
    assert followed.state is not None
    node = followed.state.tree.newest_boundary
    uuid = node.uuid if node is not None else None
    fresh = uuid if followed.read_once and uuid is not None and uuid != followed.boundary else None
    followed.boundary, followed.read_once = uuid, True
    return fresh


def _stat_sessions(folder: Path) -> list[tuple[Path, os.stat_result]]:
    out = []
    with contextlib.suppress(OSError):
        for path in folder.glob("*.jsonl"):
            if is_sidechain_file(path):
                continue
            with contextlib.suppress(OSError):
                out.append((path, path.stat()))
    return out


def _running_session(entry: Path) -> str | None:
    try:
        data = orjson.loads(entry.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    pid, session_id = data.get("pid"), data.get("sessionId")
    if not isinstance(pid, int) or not isinstance(session_id, str) or not pid_alive(pid):
        return None
    return session_id


def _fresh_state(chunk: Chunk) -> SessionState:
    """A compact state for a file read from its start: a whole file skims what precedes its
    newest full compaction (core/skim.py), a file read in pieces is fed piece by piece."""
    from keepd.core.session import SessionState, read_current
    from keepd.core.tree import Scope

    if not chunk.more:
        return read_current(chunk.data, detail=False, compact=True, at_rest=False)
    state = SessionState(Scope.CURRENT, detail=False, compact=True)
    state.feed(chunk.data)
    return state
