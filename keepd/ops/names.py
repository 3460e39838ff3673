"""The names keepd prints for a session file, chosen so that a pasted command finds it again."""

from __future__ import annotations

import shlex
from pathlib import Path

from keepd.errors import KeepdError
from keepd.paths import claude_roots, slug_matches


def session_name(path: Path, session_id: str) -> str:
    """What `keepd undo NAME` (or report, cut...) should be given for this file: its id when the
    id finds this very file, else its path (a copy elsewhere, or a file named otherwise)."""
    from keepd.system.discover import resolve

    try:
        found = resolve(session_id).path
    except KeepdError:
        found = None
    if found is not None and _same(found, path):
        return session_id
    return shlex.quote(str(path))


def resume_command(path: Path, session_id: str, project: str | None) -> str | None:
    """`cd PROJECT && claude --resume ID`, when Claude Code would find the file there: in its
    project's folder under a Claude Code root, named by the id; else None."""
    if project is None or path.stem != session_id:
        return None
    folder = path.parent
    if folder.parent.name != "projects" or not slug_matches(folder.name, project):
        return None
    if not any(_same(folder.parent.parent, root) for root in claude_roots()):
        return None
    return f"cd {shlex.quote(project)} && claude --resume {shlex.quote(session_id)}"


def _same(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except OSError:
        return one == other
