"""One message line as the recall store keeps it: who wrote it, when, and its text in full."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import orjson

IMAGE = "[image]"


@dataclass(frozen=True, slots=True)
class Dropped:
    """A message left out of the context: its place among the dropped ones and its full text."""

    uuid: str
    position: int
    role: str  # "user", "assistant" or "tool" (a user line that only carries tool results)
    timestamp: str
    text: str
    entry: bytes  # the session file's line, as JSON


def dropped(entries: Iterable[dict[str, Any]]) -> list[Dropped]:
    """The stored form of message entries, numbered in the order given."""
    out = []
    for position, entry in enumerate(entries):
        uuid = entry.get("uuid")
        if not isinstance(uuid, str) or not uuid:
            continue
        stamp = entry.get("timestamp")
        out.append(
            Dropped(
                uuid=uuid,
                position=position,
                role=role(entry),
                timestamp=stamp if isinstance(stamp, str) else "",
                text=render(entry),
                entry=orjson.dumps(entry),
            )
        )
    return out


def blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def role(entry: dict[str, Any]) -> str:
    """`assistant`, `user`, or `tool` for a user line whose blocks are all tool results."""
    if entry.get("type") == "assistant":
        return "assistant"
    parts = blocks(entry)
    if parts and all(b.get("type") == "tool_result" for b in parts):
        return "tool"
    return "user"


def render(entry: dict[str, Any]) -> str:
    """The message's text, its tool calls (name and input) and tool results, nothing cut.

    Thinking is left out (it is not part of what the conversation showed); images are named.

    >>> render({"message": {"content": [{"type": "text", "text": "hi"},
    ...     {"type": "tool_use", "name": "Read", "input": {"file_path": "/a"}}]}})
    'hi\\n[tool call Read] file_path: /a'
    """
    return "\n".join(part for block in blocks(entry) if (part := _block(block)))


def _block(block: dict[str, Any]) -> str:
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    if kind == "tool_use":
        return f"[tool call {block.get('name')}] {arguments(block.get('input'))}"
    if kind == "tool_result":
        marker = "[tool error]" if block.get("is_error") else "[tool result]"
        return f"{marker} {result_text(block.get('content'))}".rstrip()
    if kind == "image":
        return IMAGE
    return ""


def arguments(value: object) -> str:
    """A tool call's input: one `key: value` line per argument, strings as they are (so the
    words of a file written or a command run are found as words), the rest as JSON.

    >>> print(arguments({"command": "ls -l", "timeout": 5}))
    command: ls -l
    timeout: 5
    """
    if not isinstance(value, dict):
        return orjson.dumps(value).decode()
    lines = []
    for key, item in value.items():
        text = item if isinstance(item, str) else orjson.dumps(item).decode()
        lines.append(f"{key}: {text}")
    return "\n".join(lines)


def result_text(content: object) -> str:
    """A tool result's content: a string, or text and image blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "text" and isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif kind == "image":
            parts.append(IMAGE)
    return "\n".join(parts)
