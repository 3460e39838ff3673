"""The one object that owns keepd's operations; the CLI and the socket server both call it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from keepd.core.analysis import Analysis

if TYPE_CHECKING:
    from keepd.overview import Backend, ControlResult, SessionInfo, StatusInfo


@dataclass(frozen=True, slots=True)
class ReportResult:
    """An analysis and whether it is of the bundled example."""

    analysis: Analysis
    example: bool


@dataclass(frozen=True, slots=True)
class NoteResult:
    """Where a session's note was written, and the report it shows."""

    path: Path
    report: ReportResult


class Service:
    """Operations on sessions: computed in this process, or from the daemon's `live` state."""

    def __init__(self, live: Backend | None = None, *, config_path: Path | None = None) -> None:
        self.live = live
        self.config_path = config_path

    def report(
        self,
        name: str | None,
        *,
        whole: bool = False,
        example: bool = False,
        window: int | None = None,
        cwd: Path | None = None,
    ) -> ReportResult:
        """The analysis of the named session (or the newest, or the example)."""
        from keepd.api import analyse_file
        from keepd.discover import resolve

        found = resolve(name, cwd=cwd, example=example)
        return ReportResult(analyse_file(found.path, whole=whole, window=window), found.example)

    def note(
        self,
        name: str | None,
        *,
        whole: bool = False,
        example: bool = False,
        window: int | None = None,
        directory: Path | None = None,
        cwd: Path | None = None,
    ) -> NoteResult:
        """Writes the note of the named session (or the newest, or the example)."""
        result = self.report(name, whole=whole, example=example, window=window, cwd=cwd)
        return NoteResult(self.write_note(result.analysis, directory), result)

    def write_note(self, analysis: Analysis, directory: Path | None = None) -> Path:
        """Writes the note of an analysis (default: into the notes folder) and returns its path."""
        from keepd.report.note import write_note

        return write_note(analysis, directory)

    def _backend(self) -> Backend:
        if self.live is not None:
            return self.live
        from keepd.config import load_config
        from keepd.offline import Offline

        return Offline(load_config(self.config_path))

    def status(self) -> StatusInfo:
        """The daemon's state (or, in-process, what the files and the state file say)."""
        return self._backend().status()

    def sessions(self, name: str | None = None) -> list[SessionInfo]:
        """Every session file known (or the one `name`d), newest first, with context use and
        the pick where analysed."""
        return self._backend().sessions(name)

    def session(self, name: str) -> Analysis:
        """The analysis of one session: live from the daemon's memory, else from its file."""
        return self._backend().session(name)

    def mute(self, name: str, minutes: float | None = None) -> ControlResult:
        """No notices for a session (for `minutes`, or until unmuted)."""
        return self._backend().mute(name, minutes)

    def unmute(self, name: str) -> ControlResult:
        return self._backend().unmute(name)

    def pause(self, minutes: float | None = None) -> ControlResult:
        """No notices at all (for `minutes`, or until resumed)."""
        return self._backend().pause(minutes)

    def resume(self) -> ControlResult:
        return self._backend().resume()

    def rescan(self) -> ControlResult:
        """Looks at every session file again (the daemon); counts them (in-process)."""
        return self._backend().rescan()
