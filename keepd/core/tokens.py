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
        if len(messages) < _MANY:  # an append: its few responses settled one by one
            for offset, node in enumerate(messages):
                if node.context_tokens is not None and self._first_line(node):
                    self._settle_one(start + offset, node.context_tokens)
            return
        # The responses are settled all at once: a call per response was most of a cold
        # build's cost here.
        first_line = self._first_line
        at = [i for i, node in enumerate(messages) if node.context_tokens is not None]
        at = [start + i for i in at if first_line(messages[i])]
        contexts = [messages[i - start].context_tokens or 0 for i in at]
        self._settle(at, contexts)

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

    def _settle(self, at: list[int], contexts: list[int]) -> None:
        """Shares the growth between each response (its message index in `at`, its context in
        `contexts`) and the one before among the messages in between, by their estimates:
        one by one for a few, all at once for many.

        Each span's estimates are summed as `np.add.reduce` sums them, to the bit: one after
        another for spans of up to `_SHORT` messages (almost all of them), with numpy's own
        sum for longer ones.
        """
        if len(at) < _MANY:
            for one, context in zip(at, contexts, strict=True):
                self._settle_one(one, context)
            return
        if self._anchor is not None:
            at, contexts = [self._anchor[0], *at], [self._anchor[1], *contexts]
        self._anchor = (at[-1], contexts[-1])
        ends, reached = np.array(at, dtype=np.int64), np.array(contexts, dtype=np.int64)
        starts, ends, grown = ends[:-1], ends[1:], reached[1:] - reached[:-1]
        grows = ((grown > 0) & (ends > starts)).nonzero()[0]
        if not len(grows):
            return
        starts, ends, grown = starts[grows], ends[grows], grown[grows]
        estimate, tokens = self._estimate.view(), self._tokens.view()
        sizes = ends - starts
        sums = np.zeros(len(sizes), dtype=np.float64)
        for step in range(min(int(sizes.max()), _SHORT)):
            longer = (sizes > step).nonzero()[0]
            sums[longer] += estimate[starts[longer] + step]
        for one in (sizes > _SHORT).nonzero()[0].tolist():
            sums[one] = np.add.reduce(estimate[starts[one] : ends[one]])
        spans = np.arange(int(sizes.sum())) - np.repeat(sizes.cumsum() - sizes, sizes)
        where = np.repeat(starts, sizes) + spans
        tokens[where] = estimate[where] * np.repeat(grown / sums, sizes)
        self._clean = min(self._clean, int(starts[0]) + 1)

    def _settle_one(self, at: int, context: int) -> None:
        """`_settle` for one response: an append's few are settled one by one."""
        if self._anchor is not None:
            start, before = self._anchor
            grown = context - before
            if grown > 0 and at > start:
                part = self._estimate.view()[start:at]
                # part.sum() unwrapped, and the product written in place: no array between
                np.multiply(part, grown / np.add.reduce(part), out=self._tokens.view()[start:at])
                self._clean = min(self._clean, start + 1)
        self._anchor = (at, context)


_MANY = 8  # messages, or responses, from which settling them at once is the cheaper way
# `np.add.reduce` adds up to this many float64 one after another; longer runs pairwise.
_SHORT = 7


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
