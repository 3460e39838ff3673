"""Fills the recall store: what a keepd cut or prune dropped, what a Claude Code compaction left
behind, and takes an undone cut back out. None of it may fail the operation it follows."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from keepd.paths import recall_db
from keepd.recall.store import Cut, Store
from keepd.recall.text import dropped

if TYPE_CHECKING:
    from keepd.cut.model import Plan

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Kept:
    """What went into the store (or why nothing did)."""

    cut_id: str
    messages: int = 0
    warning: str | None = None


def remember_cut(plan: Plan, before: Path, *, store_path: Path | None = None) -> Kept:
    """Stores the messages a written cut dropped, read from `before` (the backup: the file's
    exact bytes before the cut). A failure is returned as a warning, never raised."""
    try:
        data = before.read_bytes()
        entries = _entries(data, plan.dropped_uuids)
        cut = Cut(
            session_id=plan.session_id,
            cut_id=plan.cut_id,
            kind=plan.kind,
            boundary_uuid=plan.written.boundary_uuid,
            path=str(plan.snapshot.path),
            project=plan.project,
            created=_now(),
        )
        with Store(store_path) as store:
            count = store.add(cut, dropped(entries))
    except Exception as error:  # the cut is written: the store must not undo its success
        log.info("the recall store did not take cut %s: %s", plan.cut_id, error)
        return Kept(plan.cut_id, warning=_reason(error))
    log.debug("recall store: %d messages of cut %s", count, plan.cut_id)
    return Kept(plan.cut_id, count)


def forget_cut(session_id: str, cut_id: str, *, store_path: Path | None = None) -> Kept:
    """Removes an undone cut's messages (they are back in the context); never raises."""
    try:
        if not (store_path or recall_db()).exists():
            return Kept(cut_id)
        with Store(store_path) as store:
            count = store.drop(session_id, cut_id)
    except Exception as error:
        log.info("the recall store still holds undone cut %s: %s", cut_id, error)
        return Kept(cut_id, warning=_reason(error))
    return Kept(cut_id, count)


def remember_compaction(path: Path, boundary_uuid: str, *, store_path: Path | None = None) -> Kept:
    """Stores the messages of the context a compaction boundary in `path` ended, less those it
    preserved. Skipped (0 messages) when the store already holds that cut or keepd wrote it."""
    from keepd.cut.model import cut_id

    ident = cut_id(boundary_uuid)
    try:
        if _keepd_wrote(path, boundary_uuid):
            return Kept(ident)
        with Store(store_path) as store:
            if store.has_cut(path.stem, ident):
                return Kept(ident)
            cut, entries = _compacted(path, boundary_uuid)
            count = store.add(cut, dropped(entries)) if entries else 0
    except Exception as error:
        log.warning("the recall store did not take the compaction %s: %s", ident, error)
        return Kept(ident, warning=_reason(error))
    log.info("recall store: %d messages before compaction %s of %s", count, ident, path.stem)
    return Kept(ident, count)


def _compacted(path: Path, boundary_uuid: str) -> tuple[Cut, list[dict[str, Any]]]:
    """The compaction's record and the entries of the context before it, less those kept."""
    from keepd.core.session import SessionState
    from keepd.core.tree import Scope
    from keepd.cut.model import cut_id

    data = path.read_bytes()
    start, boundary = _boundary_line(data, boundary_uuid)
    state = SessionState(Scope.CURRENT, detail=False)
    state.feed(data[:start])
    state.finish()
    before = [node.uuid for node in state.branch().messages if node.uuid]
    kept = _preserved(boundary.get("compactMetadata"), before)
    uuids = [uuid for uuid in before if uuid not in kept]
    cut = Cut(
        session_id=path.stem,
        cut_id=cut_id(boundary_uuid),
        kind="compaction",
        boundary_uuid=boundary_uuid,
        path=str(path),
        project=state.tree.cwd,
        created=str(boundary.get("timestamp") or _now()),
    )
    return cut, _entries(data[:start], tuple(uuids))


def _boundary_line(data: bytes, boundary_uuid: str) -> tuple[int, dict[str, Any]]:
    """Where the boundary's line starts, and its entry."""
    needle = boundary_uuid.encode()
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        try:
            entry = orjson.loads(data[start : end if end >= 0 else len(data)])
        except orjson.JSONDecodeError:
            entry = None
        if isinstance(entry, dict) and entry.get("uuid") == boundary_uuid:
            return start, entry
        at = data.find(needle, at + 1)
    raise ValueError(f"no line has the uuid {boundary_uuid}")


def _preserved(meta: object, before: list[str]) -> set[str]:
    """The uuids a boundary keeps: `preservedMessages.uuids`, or a `preservedSegment`'s span."""
    if not isinstance(meta, dict):
        return set()
    messages = meta.get("preservedMessages")
    if isinstance(messages, dict) and isinstance(messages.get("uuids"), list):
        return {u for u in messages["uuids"] if isinstance(u, str)}
    segment = meta.get("preservedSegment")
    if isinstance(segment, dict):
        head, tail = segment.get("headUuid"), segment.get("tailUuid")
        if head in before and tail in before:
            return set(before[before.index(head) : before.index(tail) + 1])
    return set()


def _entries(data: bytes, uuids: tuple[str, ...]) -> list[dict[str, Any]]:
    """The lines of these messages, in the order given (the context's)."""
    from keepd.cut.load import raw_entries

    raw = raw_entries(data, set(uuids))
    return [raw[uuid].entry for uuid in uuids if uuid in raw]


def _keepd_wrote(path: Path, boundary_uuid: str) -> bool:
    """Whether the boundary is one of keepd's own cuts (its record is saved before the append,
    and the cut stores its messages itself)."""
    from keepd.cut.backup import records

    return any(record.boundary_uuid == boundary_uuid for record in records(path))


def _now() -> str:
    from keepd.cut.boundary import now

    return now()


def _reason(error: BaseException) -> str:
    return getattr(error, "message", None) or str(error) or type(error).__name__
