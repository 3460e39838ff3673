"""The recall store's answers as text for a person or a model, bounded where asked.

>>> bounded("abcdef", 4)
('abcd', 2)
>>> bounded("abc", 4)
('abc', 0)
"""

from __future__ import annotations

from typing import Any

import orjson

from keepd.errors import KeepdError
from keepd.recall.search import Results
from keepd.recall.store import Hit, Stored

ROLES = {"user": "user", "assistant": "assistant", "tool": "tool result"}


def bounded(text: str, limit: int | None) -> tuple[str, int]:
    """The text cut to `limit` characters, and how many were left out."""
    if limit is None or len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def hits_text(results: Results) -> str:
    """Each hit: where it is (session, cut, uuid, who, when, size), then its snippet."""
    if not results.hits:
        where = _where(results)
        return f"no stored message{where} matches {results.query!r}\n"
    lines = []
    if results.match == "any":
        lines.append("(no message has every word; these have some of them)")
    for number, hit in enumerate(results.hits, 1):
        lines.append(f"{number}. {_head(hit)}")
        lines.append("   " + " ".join(hit.snippet.split()))
    return "\n".join(lines) + "\n"


def _head(hit: Hit) -> str:
    when = f" {hit.timestamp}" if hit.timestamp else ""
    return (
        f"uuid {hit.uuid} · cut {hit.cut_id} · session {hit.session_id[:8]} · "
        f"{ROLES.get(hit.role, hit.role)}{when} · {hit.chars:,} chars"
    )


def _where(results: Results) -> str:
    parts = []
    if results.session_id:
        parts.append(f"session {results.session_id}")
    if results.cut_id:
        parts.append(f"cut {results.cut_id}")
    return " in " + ", ".join(parts) if parts else ""


def message_text(stored: Stored, *, offset: int = 0, limit: int | None = None) -> str:
    """One message: a header line, then its text from `offset`, at most `limit` characters
    (with a last line saying how to read on)."""
    head = (
        f"uuid {stored.uuid} · {ROLES.get(stored.role, stored.role)} · {stored.timestamp or '?'}"
        f" · session {stored.session_id} · cut {stored.cut_id} ({stored.kind} {stored.created})"
    )
    offset = max(offset, 0)
    if offset:
        head += f" · from character {offset:,} of {len(stored.text):,}"
    shown, left = bounded(stored.text[offset:], limit)
    out = f"{head}\n\n{shown}"
    if left:
        until = offset + len(shown)
        out += f"\n\n[truncated: {left:,} more characters; ask again with offset {until}]"
    return out if out.endswith("\n") else out + "\n"


def hits_json(results: Results) -> bytes:
    data: dict[str, Any] = {
        "schema": 1,
        "query": results.query,
        "session_id": results.session_id,
        "cut_id": results.cut_id,
        "match": results.match,
        "hits": [
            {
                "session_id": h.session_id,
                "cut_id": h.cut_id,
                "uuid": h.uuid,
                "position": h.position,
                "role": h.role,
                "timestamp": h.timestamp,
                "snippet": h.snippet,
                "rank": h.rank,
                "chars": h.chars,
            }
            for h in results.hits
        ],
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def message_json(stored: Stored) -> bytes:
    data = {
        "schema": 1,
        "session_id": stored.session_id,
        "cut_id": stored.cut_id,
        "kind": stored.kind,
        "created": stored.created,
        "uuid": stored.uuid,
        "position": stored.position,
        "role": stored.role,
        "timestamp": stored.timestamp,
        "text": stored.text,
        "entry": orjson.loads(stored.entry),
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def error_json(error: KeepdError) -> bytes:
    """`{"schema": 1, "error": {"code", "message", "exit"}}`: what `recall --json` prints when
    it fails (the codes are those of the socket protocol)."""
    data = {
        "schema": 1,
        "error": {
            "code": error.title.replace(" ", "_"),
            "message": error.message,
            "exit": error.exit_code,
        },
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
