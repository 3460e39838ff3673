"""Counts tokens: what each message weighs (from `message.usage` where present) and context use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from keepd.core.curve import FloatArray
from keepd.core.index import Growable, IntArray, KeySet
from keepd.core.limits import DEFAULT_WINDOW, LARGE_WINDOW
from keepd.core.messages import IMAGE_TOKENS, Node
from keepd.core.tree import Tree

__all__ = ["DEFAULT_WINDOW", "LARGE_WINDOW", "ContextUse", "TokenLedger", "context_use"]


@dataclass(frozen=True, slots=True)
class ContextUse:
    """How full the model's context is now."""

    tokens: int | None
    window: int
    source: str  # "usage", "postTokens" or "none"

    @property
    def share(self) -> float | None:
        return None if self.tokens is None else self.tokens / self.window


class TokenLedger:
    """Tokens of each message of a branch, kept up to date as messages are appended.

    Between two API responses the growth of the context, from their usage (one count per
    `message.id`), is shared among the messages in between by their estimated size; with no
    usage at all every message keeps its estimate (text length / 4, images at a flat rate).
    Appending costs O(the new messages, and the span back to the previous response).
    """

    def __init__(self) -> None:
        self._estimate = Growable(np.float64)
        self._tokens = Growable(np.float64)
        self._before = Growable(np.float64)  # tokens of the messages before each message
        self._clean = 0  # `_before` is up to date below this index
        self._anchor: tuple[int, int] | None = None  # (message index, context size)
        self._responses = KeySet()  # hashes of the message ids already counted

    @property
    def tokens(self) -> FloatArray:
        return np.asarray(self._tokens.view(), dtype=np.float64)

    @property
    def estimated(self) -> bool:
        """True when no message carried usage: every figure is an estimate."""
        return self._anchor is None

    def extend(self, messages: Sequence[Node]) -> None:
        start = self._estimate.size
        # Each node's `estimated_tokens`, at least 1, over arrays: the same sums as the property.
        chars = np.array([node.chars for node in messages], dtype=np.int64)
        images = np.array([node.images for node in messages], dtype=np.int64)
        weights = np.maximum(chars / 4 + images * IMAGE_TOKENS, 1.0)
        self._estimate.append(weights)
        self._tokens.append(weights)
        self._before.grow(len(messages))
        # One settle per response is most of a cold build's cost here: the views are taken once.
        estimate, tokens = self._estimate.view(), self._tokens.view()
        for offset, node in enumerate(messages):
            if node.context_tokens is not None and self._first_line(node):
                self._settle(start + offset, node.context_tokens, estimate, tokens)

    def freed(self, stops: IntArray) -> FloatArray:
        """For each stop, the share of the branch's tokens that lies before it."""
        before = self.before(stops)
        tokens = self._tokens.view()
        total = float(self._before.view()[-1] + tokens[-1]) if len(tokens) else 0.0
        return np.asarray(before / (total or 1.0), dtype=np.float64)

    def before(self, stops: IntArray) -> FloatArray:
        """For each stop (a message index), the tokens of the branch's messages before it.

        The running sums are brought up to date from the first message that changed, so a
        refresh after appending costs O(the new messages), not O(the branch).
        """
        tokens, before = self._tokens.view(), self._before.view()
        if self._clean < len(tokens):
            start = max(self._clean, 1)
            if self._clean == 0 and len(tokens):
                before[0] = 0.0
            # One running sum from the last clean value on, added in the order a sum from the
            # first message adds: a refresh gives the very floats a read from scratch gives.
            np.cumsum(np.append(before[start - 1], tokens[start - 1 : -1]), out=before[start - 1 :])
            self._clean = len(tokens)
        return np.asarray(before[stops], dtype=np.float64)

    def _first_line(self, node: Node) -> bool:
        if node.msg_id is None:
            return True
        return self._responses.add(hash(node.msg_id))

    def _settle(self, at: int, context: int, estimate: FloatArray, tokens: FloatArray) -> None:
        """Shares the growth since the previous response among the messages in between."""
        if self._anchor is not None:
            start, before = self._anchor
            grown = context - before
            if grown > 0 and at > start:
                part = estimate[start:at]
                # part.sum() unwrapped, and the product written in place: no array between
                np.multiply(part, grown / np.add.reduce(part), out=tokens[start:at])
                self._clean = min(self._clean, start + 1)
        self._anchor = (at, context)


def message_tokens(messages: Sequence[Node]) -> tuple[FloatArray, bool]:
    """Tokens of each message, and whether they are only estimated (see TokenLedger)."""
    ledger = TokenLedger()
    ledger.extend(messages)
    return ledger.tokens.copy(), ledger.estimated


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
