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
        return self._add(self.reader.lines(data))

    def finish(self) -> int:
        """Takes a last line that has no newline (for a file at rest)."""
        return self._add(self.reader.last_lines())

    def add_nodes(self, nodes: list[Node]) -> None:
        """Takes nodes made elsewhere (plain texts, dialogue data sets)."""
        for node in nodes:
            self.tree.add(node)
        self._branch = None

    def _add(self, lines: list[bytes]) -> int:
        # Each entry becomes a node at once and its dict is dropped: holding every parsed
        # line of a large file alive costs more than parsing it.
        start = len(self.tree.nodes)
        parse, add, policy = self.reader.parse, self.tree.add, self.policy
        for line in lines:
            entry = parse(line)
            if entry is not None:
                add(make_node(entry, len(self.tree.nodes), policy))
        added = len(self.tree.nodes) - start
        if added:
            self._branch = None
        return added

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
        self.index.extend([node.take_words() for node in fresh])
        self.indexed.extend(fresh)
