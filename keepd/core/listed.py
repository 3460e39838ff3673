"""Says which of the person's entries the rewind picker lists as prompts (sessions.md, "The
rewind picker")."""

from __future__ import annotations

from typing import Any

from keepd.core.content import blocks_of
from keepd.core.entries import Entry

SYNTHETIC_PROMPTS = frozenset(
    {
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
        "No response requested.",
    }
)
NOT_PROMPT_MARKERS = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<tick>",
    "<teammate-message",
)


def is_prompt(entry: Entry, blocks: list[dict[str, Any]] | None = None) -> bool:
    """Whether the rewind picker lists `entry` (sessions.md, "The rewind picker")."""
    get = entry.get
    if get("type") != "user" or get("isSidechain") is True:
        return False
    if blocks is None:
        message = get("message")
        blocks = blocks_of(message.get("content") if isinstance(message, dict) else None)
    hidden = get("isMeta") is True or get("isCompactSummary") is True
    return not hidden and get("isVisibleInTranscriptOnly") is not True and shows_prompt(blocks)


def shows_prompt(blocks: list[dict[str, Any]]) -> bool:
    """Whether a visible person's entry with these content blocks is a prompt the picker lists."""
    # Tool results first: they are most of the user entries, and none is listed.
    if not blocks or blocks[0].get("type") == "tool_result":
        return False
    texts: list[str] = [
        text
        for block in blocks
        if block.get("type") == "text" and isinstance(text := block.get("text"), str)
    ]
    if not texts:
        return any(block.get("type") == "image" for block in blocks)
    if texts[0].strip() in SYNTHETIC_PROMPTS:
        return False
    last = texts[-1]  # every marker opens with "<": most prompts hold none
    return "<" not in last or not any(marker in last for marker in NOT_PROMPT_MARKERS)
