"""What a session file says the model will see, set against what the real Claude Code sent.

Both sides are reduced to the same items, in order: each text block (prompt, reply, summary),
each tool call's id and each tool result's id. Items the file does not hold (system reminders
Claude Code adds, its own wrapping) are left out of the request's side, so what remains is the
conversation as Claude Code rebuilt it from the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.claude.fake_api import Request
from tests.cut_kit import context

Item = tuple[str, str]


def _items(content: Any) -> Iterator[Item]:
    # Texts compare without surrounding blanks: Claude Code sends a summary with a new line added.
    if isinstance(content, str):
        yield ("text", content.strip())
        return
    for block in content if isinstance(content, list) else []:
        kind = block.get("type")
        if kind == "text":
            yield ("text", str(block.get("text", "")).strip())
        elif kind == "tool_use":
            yield ("tool_use", block.get("id", ""))
        elif kind == "tool_result":
            yield ("tool_result", block.get("tool_use_id", ""))


def file_items(path: Path) -> dict[str, list[Item]]:
    """Each conversation entry's items, by uuid."""
    found: dict[str, list[Item]] = {}
    for raw in path.read_bytes().splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") in ("user", "assistant"):
            message = entry.get("message") or {}
            found[entry.get("uuid", "")] = list(_items(message.get("content")))
    return found


def sent_items(request: Request) -> list[Item]:
    """The request's items, in order."""
    return [item for m in request.body.get("messages", []) for item in _items(m.get("content"))]


def promised(path: Path, upto: str) -> list[Item]:
    """The items of the context keepd's reader rebuilds from `path`, up to entry `upto`
    (the prompt whose request is checked) included."""
    uuids = context(path)
    by_uuid = file_items(path)
    return [item for uuid in uuids[: uuids.index(upto) + 1] for item in by_uuid.get(uuid, [])]


def compare(path: Path, request: Request, upto: str) -> tuple[list[Item], list[Item]]:
    """(promised, sent): the request's items that the file holds, against keepd's promise."""
    known = {item for items in file_items(path).values() for item in items}
    sent = [item for item in sent_items(request) if item in known]
    return promised(path, upto), sent


def newest_prompt_uuid(path: Path, text: str) -> str:
    """The uuid of the newest user entry whose text is `text`."""
    found = ""
    for uuid, items in file_items(path).items():
        if ("text", text) in items:
            found = uuid
    assert found, f"no entry says {text!r} in {path}"
    return found


def unpaired(request: Request) -> list[str]:
    """Tool call ids in the request without a result, or results without a call."""
    items = sent_items(request)
    calls = {i for kind, i in items if kind == "tool_use"}
    results = {i for kind, i in items if kind == "tool_result"}
    return sorted(calls ^ results)
