"""Counts tokens: what each message weighs (from `message.usage` where present) and context use."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from keepd.core.curve import FloatArray
from keepd.core.messages import Node
from keepd.core.tree import Tree

DEFAULT_WINDOW = 200_000
LARGE_WINDOW = 1_000_000


@dataclass(frozen=True, slots=True)
class ContextUse:
    """How full the model's context is now."""

    tokens: int | None
    window: int
    source: str  # "usage", "postTokens" or "none"

    @property
    def share(self) -> float | None:
        return None if self.tokens is None else self.tokens / self.window


def message_tokens(messages: list[Node]) -> tuple[FloatArray, bool]:
    """Tokens of each message, and whether they are only estimated (no usage at all).

    Between two API responses the growth of the context, from their usage (one count per
    `message.id`), is shared among the messages in between by their estimated size.
    """
    estimate = np.array([max(node.estimated_tokens, 1.0) for node in messages], dtype=np.float64)
    anchors = _anchors(messages)
    if len(anchors) < 2:
        return estimate, not anchors
    tokens = estimate.copy()
    for (start, before), (end, after) in pairwise(anchors):
        grown = after - before
        if grown > 0:
            part = estimate[start:end]
            tokens[start:end] = part * (grown / part.sum())
    return tokens, False


def _anchors(messages: list[Node]) -> list[tuple[int, int]]:
    """(message index, context size) at the first line of each API response with usage."""
    seen: set[str] = set()
    anchors: list[tuple[int, int]] = []
    for i, node in enumerate(messages):
        if node.context_tokens is None or node.msg_id in seen:
            continue
        if node.msg_id is not None:
            seen.add(node.msg_id)
        anchors.append((i, node.context_tokens))
    return anchors


def freed_shares(tokens: FloatArray, stops: list[int]) -> FloatArray:
    """For each stop, the share of the conversation's tokens that lies before it."""
    before = np.concatenate([[0.0], np.cumsum(tokens)])
    total = before[-1] or 1.0
    return np.asarray(before[stops] / total, dtype=np.float64)


def context_use(tree: Tree, boundary: Node | None, window: int | None = None) -> ContextUse:
    """Claude Code's own count: the newest real API response's input side (sessions.md)."""
    newest = tree.newest_usage
    tokens: int | None = None
    source = "none"
    if newest is not None and (boundary is None or newest.pos > boundary.pos):
        tokens, source = newest.context_tokens, "usage"
    elif boundary is not None and boundary.boundary is not None:
        post = boundary.boundary.post_tokens
        tokens, source = (post, "postTokens") if post is not None else (None, "none")
    if window is None:
        # usage above 200k anywhere in the session proves a 1M-context model (sessions.md)
        window = LARGE_WINDOW if tree.largest_usage > DEFAULT_WINDOW else DEFAULT_WINDOW
    return ContextUse(tokens=tokens, window=window, source=source)
