"""Writes the compact_boundary line and the summary line as Claude Code does: compact JSON."""

from __future__ import annotations

import hashlib
import uuid as uuidlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from keepd.cut.model import Placement, Written

BOUNDARY_PREFIX = b'{"type":"system"'
SCAN_BYTES = 256
ENVELOPE = ("userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug")
_MARK = b"compact_boundary"
_ESCAPED_MARK = b"compact\\u005fboundary"


def now() -> str:
    """A timestamp as Claude Code writes them: UTC, milliseconds, `Z`."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_uuid() -> str:
    return str(uuidlib.uuid4())


def cut_uuid(file_sha256: str, *choices: str) -> str:
    """The boundary's uuid for a cut of this exact file with these choices, so a dry run names
    the cut id the real cut will have. The file's hash changes with every write, so no two
    cuts in one file share it; an undone cut made again gets its old id back.

    >>> file = "ab" * 32
    >>> a = cut_uuid(file, "cut", "first", "u1")
    >>> a == cut_uuid(file, "cut", "first", "u1"), a == cut_uuid(file, "cut", "none", "u1")
    (True, False)
    >>> uuidlib.UUID(a).version
    4
    """
    digest = hashlib.sha256("\0".join((file_sha256, *choices)).encode()).digest()
    return str(uuidlib.UUID(bytes=digest[:16], version=4))


def envelope(entry: dict[str, Any], session_id: str) -> dict[str, Any]:
    """The session fields Claude Code repeats on every line, copied from the newest message."""
    fields = {key: entry[key] for key in ENVELOPE if key in entry}
    fields.setdefault("sessionId", session_id)
    return {key: fields[key] for key in ENVELOPE if key in fields}


def boundary_entry(
    *,
    uuid: str,
    logical_parent: str | None,
    anchor: str,
    preserved: Sequence[str],
    pre_tokens: int,
    post_tokens: int,
    fields: dict[str, Any],
    timestamp: str,
) -> dict[str, Any]:
    """A manual compaction's boundary whose `preservedMessages` say what the model keeps.

    Keys follow Claude Code 2.1.81's boundaries in the corpus, with `type` moved to the front:
    Claude Code finds boundaries in large files by looking for `"compact_boundary"` in the
    first 256 bytes of a line that starts with `{"type":"system"` (sessions.md). `orjson`
    writes every corpus line back byte for byte, so its separators are Claude Code's.
    """
    meta = {
        "trigger": "manual",
        "preTokens": pre_tokens,
        "postTokens": post_tokens,
        "preservedMessages": {"anchorUuid": anchor, "uuids": list(preserved)},
    }
    return {
        "type": "system",
        "parentUuid": None,
        "logicalParentUuid": logical_parent,
        "isSidechain": False,
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "isMeta": False,
        "timestamp": timestamp,
        "uuid": uuid,
        "level": "info",
        "compactMetadata": meta,
        **fields,
    }


def summary_entry(
    *, uuid: str, parent: str, text: str, fields: dict[str, Any], timestamp: str
) -> dict[str, Any]:
    """The summary as a user message after the boundary, flagged as Claude Code flags its own."""
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": text},
        "isVisibleInTranscriptOnly": True,
        "isCompactSummary": True,
        "uuid": uuid,
        "timestamp": timestamp,
        **fields,
    }


def boundary_line(entry: dict[str, Any]) -> bytes:
    """The boundary as one line; it must be findable the way Claude Code scans for it."""
    line = orjson.dumps(entry) + b"\n"
    if not line.startswith(BOUNDARY_PREFIX) or _MARK not in line[:SCAN_BYTES]:
        raise ValueError("a boundary line must start with its type and name its subtype early")
    return line


def plain_line(entry: dict[str, Any]) -> bytes:
    """Any other line; `compact_boundary` inside its strings is escaped so no scan mistakes it.

    The escape (`\\u005f` is `_`) decodes to the same text.
    """
    return orjson.dumps(entry).replace(_MARK, _ESCAPED_MARK) + b"\n"


def compose(
    placement: Placement,
    preserved: Sequence[str],
    summary: str | None,
    *,
    last_entry: dict[str, Any],
    session_id: str,
    pre_tokens: int,
    post_tokens: int,
    boundary_uuid: str | None = None,
) -> Written:
    """The lines of a cut and the context they rebuild (the seed's table of anchors)."""
    boundary_uuid = boundary_uuid or new_uuid()
    summary_uuid = new_uuid() if placement.has_summary else None
    anchor = summary_uuid if placement is Placement.FIRST and summary_uuid else boundary_uuid
    kept = list(preserved) if placement is not Placement.EMPTY else []
    fields = envelope(last_entry, session_id)
    stamp = now()
    last_uuid = last_entry.get("uuid")
    lines = [
        boundary_line(
            boundary_entry(
                uuid=boundary_uuid,
                logical_parent=last_uuid if isinstance(last_uuid, str) else None,
                anchor=anchor,
                preserved=kept,
                pre_tokens=pre_tokens,
                post_tokens=post_tokens,
                fields=fields,
                timestamp=stamp,
            )
        )
    ]
    if summary_uuid is not None:
        if not summary:
            raise ValueError("this placement needs a summary")
        entry = summary_entry(
            uuid=summary_uuid, parent=boundary_uuid, text=summary, fields=fields, timestamp=stamp
        )
        lines.append(plain_line(entry))
    return Written(
        payload=b"".join(lines),
        boundary_uuid=boundary_uuid,
        summary_uuid=summary_uuid,
        intended=_intended(placement, kept, summary_uuid),
        tail=_tail(placement, kept, boundary_uuid, summary_uuid),
    )


def _intended(placement: Placement, kept: list[str], summary: str | None) -> tuple[str, ...]:
    if placement is Placement.FIRST and summary:
        return (summary, *kept)
    if placement is Placement.LAST and summary:
        return (*kept, summary)
    return tuple(kept)


def _tail(placement: Placement, kept: list[str], boundary: str, summary: str | None) -> str:
    """What Claude Code's next turn will have as parent: the context's last entry."""
    if placement is Placement.LAST and summary:
        return summary
    if kept:
        return kept[-1]
    return summary or boundary
