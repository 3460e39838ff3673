"""The one object that owns keepd's operations; the CLI and the socket server both call it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from keepd.core.analysis import Analysis


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
    """Operations on sessions, computed in this process."""

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
