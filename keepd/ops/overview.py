"""What `status` and `sessions` answer, the same from the daemon and computed in-process."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from keepd.core.steps import instruction

if TYPE_CHECKING:
    from keepd.core.analysis import Analysis
    from keepd.core.limits import Told
    from keepd.ops.glance import Glance


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One session file as followed: where reading stands, context use, and the pick."""

    session_id: str
    path: str
    project: str | None
    state: str  # "active", "idle", "unreadable"
    running: bool
    offset: int  # bytes read (a half-written last line included)
    size: int  # the file's size when last looked at
    analysed_offset: int  # the offset the analysis below reflects
    updated: float | None  # the file's last modification, seconds since the epoch
    messages: int | None = None
    stop_count: int | None = None
    context: dict[str, Any] | None = None
    pick: str | None = None
    grade: str | None = None
    below: int | None = None
    frees: float | None = None
    quote: str | None = None
    steps: str | None = None  # how to reach the stop in the picker (core/steps.py)
    code_changed: bool = False  # the stop's rewind menu offers to restore code
    after: int | None = None  # the context's tokens after a cut there (core/aftercut.py)
    muted: bool = False
    muted_until: float | None = None
    notified: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class StatusInfo:
    """The daemon (or, without one, this process) at a glance."""

    daemon: bool
    version: str
    pid: int | None
    uptime: float | None
    sessions: int
    active: int
    in_memory: int
    paused: bool
    paused_until: float | None
    watcher: str | None
    notifier: str | None
    notices_sent: int
    notices_pending: int
    socket: str
    config: str
    state_file: str
    rescans: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ControlResult:
    """What a mute, unmute, pause, resume or rescan changed."""

    action: str
    session_id: str | None = None
    until: float | None = None
    sessions: int | None = None
    daemon: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Backend(Protocol):
    """Who answers `Operations`'s live operations: the daemon's memory, or this process."""

    def status(self) -> StatusInfo: ...

    def sessions(self, name: str | None = None) -> list[SessionInfo]: ...

    def held(self, name: str) -> Analysis | None:
        """The session's analysis from memory alone (cheap; None: its file must be read)."""
        ...

    def read(self, name: str) -> Analysis:
        """A fresh analysis of the session's file (slow: the daemon runs it off its loop)."""
        ...

    def mute(self, name: str, minutes: float | None) -> ControlResult: ...

    def unmute(self, name: str) -> ControlResult: ...

    def pause(self, minutes: float | None) -> ControlResult: ...

    def resume(self) -> ControlResult: ...

    def rescan(self) -> ControlResult: ...

    def glance(
        self, session_id: str, path: str | None = None, told: Told | None = None
    ) -> Glance: ...


def pick_fields(analysis: Analysis) -> dict[str, Any]:
    """The SessionInfo fields taken from an analysis: size, context use, and the pick."""
    stop = analysis.target_stop()
    return {
        "messages": analysis.messages,
        "stop_count": analysis.stop_count,
        "context": dict(analysis.context),
        "pick": analysis.pick,
        "grade": stop.grade if stop is not None and analysis.pick else None,
        "below": stop.below if stop is not None else None,
        "frees": stop.frees if stop is not None else None,
        "quote": stop.quote if stop is not None else None,
        "steps": instruction(stop) if stop is not None else None,
        "code_changed": stop.code_changed if stop is not None else False,
        "after": stop.after if stop is not None else None,
    }


def analysis_from_dict(data: dict[str, Any]) -> Analysis:
    """Rebuilds an analysis from its `--json` form (a daemon's reply), for the terminal view."""
    from keepd.core.analysis import Analysis, BlockInfo, Stop, WordInfo, ZoneInfo

    return Analysis(
        session_id=data.get("session_id"),
        path=data.get("path"),
        project=data.get("project"),
        scope=data.get("scope", "current"),
        messages=data.get("messages", 0),
        skipped_lines=data.get("skipped_lines", 0),
        context=dict(data.get("context") or {}),
        tokens_estimated=bool(data.get("tokens_estimated")),
        wiggle=data.get("wiggle"),
        stops=[Stop(**item) for item in data.get("stops", [])],
        zones=[ZoneInfo(**item) for item in data.get("zones", [])],
        pick=data.get("pick"),
        trade=list(data.get("trade", [])),
        blocks=[BlockInfo(**item) for item in data.get("blocks", [])],
        borrowed_words=[WordInfo(**item) for item in data.get("borrowed_words", [])],
        sidechain_only=bool(data.get("sidechain_only")),
        schema=data.get("schema", 1),
        compacted_at=data.get("compacted_at"),
    )


def short_project(project: str | None) -> str:
    """The last part of a working directory, for titles and tables."""
    return Path(project).name if project else "?"
