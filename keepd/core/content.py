"""Reads what a message's content blocks hold: their string leaves, their length, an edit's change.

>>> text_length([{"type": "text", "text": "abc"}, {"type": "text", "text": "de"}])
5
>>> joined({"command": "ls -la", "description": "List", "id": "x"})
'ls -la List'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

NOT_TEXT_KEYS = frozenset({"type", "id", "tool_use_id", "signature"})


def blocks_of(content: Any) -> list[dict[str, Any]]:
    """A message's content as blocks: a string is one text block, what is not a dict is left out."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, dict)]
    return []


def edit_change(tool: Any, value: Any) -> int:
    """What an edit call says of its file's length: a Write's whole content, an edit's growth.

    >>> edit_change("Write", {"content": "ab"})
    2
    >>> edit_change("Edit", {"old_string": "ab", "new_string": ""})
    -2
    """
    if type(value) is not dict:
        return 0
    if tool == "Write":
        return len(text_or_none(value.get("content")) or "")
    if tool == "NotebookEdit":
        return len(text_or_none(value.get("new_source")) or "")
    edits = value.get("edits") if tool == "MultiEdit" else [value]
    return sum(
        len(text_or_none(one.get("new_string")) or "")
        - len(text_or_none(one.get("old_string")) or "")
        for one in (edits if type(edits) is list else [])
        if type(one) is dict
    )


def joined(value: Any) -> str:
    """The string leaves of a value, joined by spaces (a tool's input is mostly flat)."""
    if type(value) is not dict or value.get("type") == "image":
        return " ".join(strings(value))
    parts = []
    for key, item in value.items():
        kind = type(item)
        if kind is str:
            if key not in NOT_TEXT_KEYS:
                parts.append(item)
        elif kind is dict or kind is list:
            return " ".join(strings(value))
    return " ".join(parts)


def text_length(value: Any) -> int:
    """Characters of text in a block's value, without building the text: a string's, a list
    of plain text blocks' (a tool result's usual content), or the string leaves'."""
    if type(value) is str:
        return len(value)
    if type(value) is list:
        total = 0
        for item in value:
            if type(item) is not dict or len(item) != 2 or item.get("type") != "text":
                break
            text = item.get("text")
            if type(text) is not str:
                break
            total += len(text)
        else:
            return total
    return sum(map(len, strings(value)))


def cut(text: Any, cap: int) -> str:
    """`text` up to `cap` characters, or "" if it is not a string."""
    return text[:cap] if isinstance(text, str) else ""


def as_text(value: Any) -> str:
    """`str` of a block's id or name as orjson reads it, an integer past 64 bits being a float
    to it (the typed reader's msgspec keeps it an integer).

    >>> as_text("toolu_1"), as_text(7), as_text(2**64)
    ('toolu_1', '7', '1.8446744073709552e+19')
    """
    if type(value) is str:
        return value
    if type(value) is int and not -(2**63) <= value < 2**64:
        return str(float(value))
    return str(value)


def text_or_none(value: Any) -> str | None:
    return value if type(value) is str else None


def strings(value: Any) -> Iterable[str]:
    """The string leaves of a tool input or result, text blocks included, images left out."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        if value.get("type") == "image":
            return
        for key, item in value.items():
            if key not in NOT_TEXT_KEYS:
                yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
