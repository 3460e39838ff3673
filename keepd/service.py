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
