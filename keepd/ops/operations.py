"""The one object that owns keepd's operations; the CLI and the socket server both call it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from keepd.core.analysis import Analysis
    from keepd.core.limits import Told
    from keepd.cut.model import CutOutcome, Plan, UndoOutcome
    from keepd.cut.summary import SummaryRequest
    from keepd.ops.glance import Glance
    from keepd.ops.overview import Backend, ControlResult, SessionInfo, StatusInfo


@dataclass(frozen=True, slots=True)
class ReportResult:
    """An analysis, whether it is of the bundled example, and the folder keepd ran in when it
    chose another project's session because that folder's project has none (else None)."""

    analysis: Analysis
    example: bool
    elsewhere: str | None = None


@dataclass(frozen=True, slots=True)
class NoteResult:
    """Where a session's note was written, and the report it shows."""

    path: Path
    report: ReportResult


class Operations:
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
        ask_claude: bool = False,
    ) -> ReportResult:
        """The analysis of the named session (or the newest, or the example); with
        `ask_claude`, the reader's answer merged in (your own `claude -p`, ops/reader.py)."""
        from keepd.api import analyse_file
        from keepd.ops.memory import told_setup
        from keepd.system.discover import resolve
        from keepd.system.settings import example_setup

        found = resolve(name, cwd=cwd, example=example)
        setup = example_setup() if found.example else told_setup(found.path, window)
        if ask_claude:
            analysis = self.ask(str(found.path), whole=whole, window=window)
        else:
            analysis = analyse_file(found.path, whole=whole, window=window, setup=setup)
        elsewhere = None
        if name is None and not found.example:
            elsewhere = _elsewhere(found.path, cwd or Path.cwd())
        return ReportResult(analysis, found.example, elsewhere)

    def ask_request(
        self, name: str | None, *, whole: bool = False, window: int | None = None
    ) -> str:
        """The exact request the reader would send `claude -p` about the named session."""
        from keepd.ops.reader import read_for_reader
        from keepd.system.discover import resolve

        return read_for_reader(resolve(name).path, whole=whole, window=window).request

    def ask(
        self,
        name: str | None,
        *,
        answer: Path | None = None,
        whole: bool = False,
        window: int | None = None,
    ) -> Analysis:
        """The analysis with the reader's answer: a recorded `answer` file, the cache, or your
        own `claude -p` (asked at most once per session and prompt count)."""
        from keepd.config import load_config
        from keepd.ops.reader import read_for_reader, with_reader
        from keepd.paths import reader_dir
        from keepd.system.discover import resolve

        read = read_for_reader(resolve(name).path, whole=whole, window=window)
        config = load_config(self.config_path).reader
        return with_reader(read, config, answer_file=answer, cache=reader_dir())

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
        from keepd.ops.local import Local

        return Local(load_config(self.config_path))

    def status(self) -> StatusInfo:
        """The daemon's state (or, in-process, what the files and the state file say)."""
        return self._backend().status()

    def sessions(self, name: str | None = None) -> list[SessionInfo]:
        """Every session file known (or the one `name`d), newest first, with context use and
        the pick where analysed."""
        return self._backend().sessions(name)

    def session(self, name: str) -> Analysis:
        """The analysis of one session: live from the daemon's memory, else from its file."""
        backend = self._backend()
        held = backend.held(name)
        return held if held is not None else backend.read(name)

    def held(self, name: str) -> Analysis | None:
        """The analysis the daemon holds of a session (None in-process, or not in memory)."""
        return self._backend().held(name)

    def read(self, name: str) -> Analysis:
        """A fresh analysis of a session's file: nothing shared is touched, any thread may ask."""
        return self._backend().read(name)

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

    def glance(self, session_id: str, path: str | None = None, told: Told | None = None) -> Glance:
        """A session's context use and pick for the status line: what the daemon's last analysis
        found (cheap, never analyses), or in-process an analysis of its file; `told` is what
        the status line said of the session's window, which the daemon keeps."""
        return self._backend().glance(session_id, path, told)

    def plan_cut(
        self,
        name: str,
        *,
        at: str | None = None,
        pick: bool = False,
        placement: str = "first",
        summary: SummaryRequest | None = None,
        force: bool = False,
        window: int | None = None,
        dry_run: bool = False,
    ) -> Plan:
        """What `cut` would write: the stop (`at`, or the `pick`), what stays, the summary.

        A `dry_run` plan may be made while the session is in use; it cannot be written.
        """
        from keepd.ops.cuts import cut_plan

        path = _writable(name)
        return cut_plan(
            path,
            at=at,
            pick=pick,
            placement=placement,
            summary=summary,
            force=force,
            window=window,
            dry_run=dry_run,
        )

    def plan_prune(
        self,
        name: str,
        *,
        keep_last: int = 3,
        working: int = 6,
        notes: bool = False,
        force: bool = False,
        window: int | None = None,
        dry_run: bool = False,
    ) -> Plan:
        """What `prune` would write: the recent turns and the best older ones stay."""
        from keepd.ops.cuts import prune_plan

        return prune_plan(
            _writable(name),
            keep_last=keep_last,
            working=working,
            notes=notes,
            force=force,
            window=window,
            dry_run=dry_run,
        )

    def write_cut(self, plan: Plan, *, force: bool = False) -> CutOutcome:
        """Writes a planned cut or prune to the session file (backed up; undo restores it)."""
        from keepd.ops.cuts import write

        return write(plan, force=force)

    def undo_cut(self, name: str, *, force: bool = False) -> UndoOutcome:
        """Truncates a session file back to its bytes before keepd's latest cut of it."""
        from keepd.ops.cuts import undo_cut

        return undo_cut(_writable(name), force=force)


def _elsewhere(path: Path, cwd: Path) -> str | None:
    """`cwd` when the session file keepd chose is not in the folder of cwd's project."""
    from keepd.paths import slug_matches

    return None if slug_matches(path.parent.name, cwd) else str(cwd)


def _writable(name: str) -> Path:
    """The session file a command that writes may change (never the bundled example)."""
    from keepd.errors import UsageError
    from keepd.system.discover import resolve

    found = resolve(name)
    if found.example:
        raise UsageError("the bundled example is part of keepd; copy it and cut the copy")
    return found.path
