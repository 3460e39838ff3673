"""Finds session files under the Claude Code roots and resolves what the user named."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from keepd.errors import AmbiguousSessionError, NoSessionsError, SessionNotFoundError
from keepd.paths import claude_roots, example_session, slug_matches


@dataclass(frozen=True, slots=True)
class SessionFile:
    """A main transcript: `<root>/projects/<slug>/<session id>.jsonl`."""

    path: Path
    session_id: str
    project: str
    mtime: float
    size: int


def is_sidechain_file(path: Path) -> bool:
    """Sub-agent transcripts: `agent-<id>.jsonl`, flat or under `<session>/subagents/`."""
    return path.name.startswith("agent-") or "subagents" in path.parts


def session_files(roots: list[Path] | None = None) -> list[SessionFile]:
    """Every main transcript under the roots, newest first; unreadable folders are skipped."""
    found: list[SessionFile] = []
    for root in roots if roots is not None else claude_roots():
        projects = root / "projects"
        try:
            folders = [entry for entry in projects.iterdir() if entry.is_dir()]
        except OSError:
            continue
        for folder in folders:
            found.extend(_sessions_in(folder))
    found.sort(key=lambda item: item.mtime, reverse=True)
    return found


def _sessions_in(folder: Path) -> list[SessionFile]:
    out: list[SessionFile] = []
    try:
        candidates = list(folder.glob("*.jsonl"))
    except OSError:
        return out
    for path in candidates:
        if is_sidechain_file(path):
            continue
        try:
            info = path.stat()
        except OSError:
            continue
        out.append(SessionFile(path, path.stem, folder.name, info.st_mtime, info.st_size))
    return out


@dataclass(frozen=True, slots=True)
class Resolved:
    path: Path
    example: bool = False


def resolve(name: str | None, *, cwd: Path | None = None, example: bool = False) -> Resolved:
    """The file for a path, a session id or unique prefix, or the newest session."""
    if example:
        return Resolved(example_session(), example=True)
    if name is not None and (os.sep in name or name.endswith(".jsonl") or Path(name).exists()):
        path = Path(name).expanduser()
        if not path.exists():
            raise SessionNotFoundError(f"{name}: no such file")
        return Resolved(newest_in_folder(path) if path.is_dir() else path)
    sessions = session_files()
    if name is not None:
        return Resolved(_by_id(name, sessions).path)
    if not sessions:
        return Resolved(example_session(), example=True)
    here = str(cwd or Path.cwd())
    mine = [item for item in sessions if slug_matches(item.project, here)]
    return Resolved((mine or sessions)[0].path)


def newest_in_folder(folder: Path) -> Path:
    """The newest session file of a folder (a project's folder under `projects/`)."""
    sessions = sorted(_sessions_in(folder), key=lambda item: item.mtime, reverse=True)
    if not sessions:
        raise SessionNotFoundError(
            f"{folder} is a folder with no session files (*.jsonl) in it: "
            "name a session file, or a project's folder under projects/"
        )
    return sessions[0].path


def _by_id(name: str, sessions: list[SessionFile]) -> SessionFile:
    exact = [item for item in sessions if item.session_id == name]
    if exact:
        return exact[0]
    matches = [item for item in sessions if item.session_id.startswith(name)]
    if not matches:
        if not sessions:
            raise NoSessionsError("no Claude Code sessions found under " + _roots_text())
        raise SessionNotFoundError(f"no session id starts with {name!r}")
    ids = sorted({item.session_id for item in matches})
    if len(ids) > 1:
        shown = ", ".join(ids[:4]) + (" ..." if len(ids) > 4 else "")
        raise AmbiguousSessionError(f"{name!r} matches {len(ids)} sessions: {shown}")
    return matches[0]


def _roots_text() -> str:
    return ", ".join(str(root) for root in claude_roots())
