"""Reads a session to cut: its exact bytes, their snapshot, the analysis, the raw messages."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from keepd.core.analysis import Analysis, analyse_state
from keepd.core.limits import Setup
from keepd.core.session import SessionState
from keepd.core.tree import Branch, Scope
from keepd.cut.model import Snapshot
from keepd.errors import NotASessionError, SessionBusyError, UnreadableError, UsageError
from keepd.paths import example_session
from keepd.system.discover import is_sidechain_file

if TYPE_CHECKING:
    from keepd.core.curve import FloatArray


@dataclass(frozen=True, slots=True)
class RawEntry:
    """What a cut needs of one message line beyond keepd's node: its tool ids and the dict."""

    uuid: str
    kind: str
    msg_id: str | None
    calls: tuple[str, ...]  # tool_use ids
    results: tuple[str, ...]  # tool_result ids
    entry: dict[str, Any]

    @property
    def blocks(self) -> list[dict[str, Any]]:
        message = self.entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


@dataclass(frozen=True, slots=True)
class Loaded:
    """One session file read for a cut; every later step works on exactly these bytes."""

    path: Path
    data: bytes
    snapshot: Snapshot
    state: SessionState
    analysis: Analysis
    branch: Branch
    tokens: FloatArray  # per message of the branch
    raw: dict[str, RawEntry]  # the branch's messages by uuid
    session_id: str  # the file's name: what `claude --resume` takes

    @property
    def uuids(self) -> list[str]:
        return [node.uuid or "" for node in self.branch.messages]

    def entry(self, index: int) -> RawEntry:
        return self.raw[self.branch.messages[index].uuid or ""]


def load(path: Path, *, window: int | None = None, setup: Setup | None = None) -> Loaded:
    """Reads `path` once, checks it may be cut, and analyses the bytes read."""
    _refuse_special(path)
    data, snapshot = read_exact(path)
    state = SessionState(Scope.CURRENT)
    state.feed(data)
    state.finish()
    if state.tree.leaf() is None:
        raise NotASessionError(str(path))
    if state.tree.sidechain_only:
        raise UsageError(f"{path} is a sub-agent transcript, not a session of its own")
    analysis = analyse_state(state, path=str(path), window=window, setup=setup)
    branch = state.branch()
    from keepd.core.tokens import message_tokens

    tokens, _ = message_tokens(branch.messages)
    raw = raw_entries(data, {node.uuid for node in branch.messages if node.uuid})
    return Loaded(path, data, snapshot, state, analysis, branch, tokens, raw, path.stem)


def _refuse_special(path: Path) -> None:
    if path.resolve() == example_session().resolve():
        raise UsageError("the bundled example is part of keepd; copy it and cut the copy")
    if is_sidechain_file(path):
        raise UsageError(f"{path} is a sub-agent transcript, not a session of its own")


def read_exact(path: Path) -> tuple[bytes, Snapshot]:
    """The file's bytes and their snapshot; a file that grows while read is in use."""
    try:
        with path.open("rb") as handle:
            before = os.fstat(handle.fileno())
            data = handle.read()
            after = os.fstat(handle.fileno())
    except IsADirectoryError as error:
        raise NotASessionError(str(path)) from error
    except OSError as error:
        raise UnreadableError(str(path), error.strerror or str(error)) from error
    moved = (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns)
    if moved or len(data) != after.st_size:
        raise SessionBusyError(f"{path} changed while it was read; is the session running?")
    digest = hashlib.sha256(data).hexdigest()
    return data, Snapshot(path, len(data), after.st_mtime_ns, after.st_ino, digest)


def raw_entries(data: bytes, wanted: set[str]) -> dict[str, RawEntry]:
    """The message lines whose uuid is `wanted`, with their tool ids."""
    found: dict[str, RawEntry] = {}
    for line in data.split(b"\n"):
        entry = _parse(line)
        uuid = entry.get("uuid") if entry else None
        if entry is None or not isinstance(uuid, str) or uuid not in wanted:
            continue
        found[uuid] = _raw(uuid, entry)
    return found


def _parse(line: bytes) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _raw(uuid: str, entry: dict[str, Any]) -> RawEntry:
    message = entry.get("message")
    message = message if isinstance(message, dict) else {}
    msg_id = message.get("id") if entry.get("type") == "assistant" else None
    raw = RawEntry(uuid, str(entry.get("type")), None, (), (), entry)
    calls = tuple(str(b.get("id")) for b in raw.blocks if b.get("type") == "tool_use")
    results = tuple(str(b.get("tool_use_id")) for b in raw.blocks if b.get("type") == "tool_result")
    msg = msg_id if isinstance(msg_id, str) else None
    return RawEntry(uuid, raw.kind, msg, calls, results, entry)
