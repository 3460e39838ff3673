"""One session followed incrementally: bytes in, the current branch indexed message by message."""

from __future__ import annotations

from keepd.core.entries import EntryReader
from keepd.core.index import Index
from keepd.core.messages import DEFAULT_POLICY, Node, TextPolicy, make_node
from keepd.core.tree import Branch, Scope, Tree


class SessionState:
    """The reader, the tree and the index of one session file, fed appended bytes.

    The index covers the branch of `scope`. When new entries only extend that branch the
    index is appended to; a rewind or a compaction that changes earlier messages rebuilds it.
    """

    def __init__(
        self,
        scope: Scope = Scope.CURRENT,
        *,
        policy: TextPolicy = DEFAULT_POLICY,
        detail: bool = True,
    ) -> None:
        self.scope = scope
        self.policy = policy
        self.detail = detail
        self.reader = EntryReader()
        self.tree = Tree()
        self.index = Index(detail=detail)
        self.indexed: list[Node] = []
        self.rebuilds = 0
        self._branch: Branch | None = None

    def feed(self, data: bytes) -> int:
        """Takes appended bytes; returns how many entries they completed."""
        return self._add(self.reader.feed(data))

    def finish(self) -> int:
        """Takes a last line that has no newline (for a file at rest)."""
        return self._add(self.reader.finish())

    def add_nodes(self, nodes: list[Node]) -> None:
        """Takes nodes made elsewhere (plain texts, dialogue data sets)."""
        for node in nodes:
            self.tree.add(node)
        self._branch = None

    def _add(self, entries: list[dict[str, object]]) -> int:
        start = len(self.tree.nodes)
        for offset, entry in enumerate(entries):
            self.tree.add(make_node(entry, start + offset, self.policy))
        if entries:
            self._branch = None
        return len(entries)

    def branch(self) -> Branch:
        """The current branch, with the index brought up to date with it."""
        if self._branch is None:
            self._branch = self.tree.branch(self.scope)
            self._sync(self._branch.messages)
        return self._branch

    def _sync(self, messages: list[Node]) -> None:
        known = len(self.indexed)
        if len(messages) < known or any(
            a is not b for a, b in zip(messages[:known], self.indexed, strict=True)
        ):
            self.index = Index(detail=self.detail)
            self.indexed = []
            self.rebuilds += 1
            known = 0
        fresh = messages[known:]
        self.index.extend([node.words for node in fresh])
        self.indexed.extend(fresh)
