"""One session followed incrementally: bytes in, the current branch indexed message by message."""

from __future__ import annotations

from keepd.core.entries import EntryReader
from keepd.core.index import Index
from keepd.core.messages import DEFAULT_POLICY, Node, TextPolicy, make_node
from keepd.core.tree import Branch, Scope, Tree


class SessionState:
    """The reader, the tree and the index of one session file, fed appended bytes.

    The index covers the branch of `scope`. Entries that only continue the branch (each
    one's parent is the branch's newest entry) are appended to it and to the index in
    O(their words); anything else (a rewind, parallel tool results, a compaction) resolves
    the branch from the tree again, and rebuilds the index if earlier messages changed.
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
        self.resolves = 0
        self._branch: Branch | None = None
        self._resolved_nodes = 0  # tree nodes the branch accounts for
        self._tip: Node | None = None  # the branch's newest message
        self._side: set[str] = set()  # entries hung under the tip (progress, system lines)
        self._sidechain_only = True

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

    def _add(self, lines: list[bytes]) -> int:
        # Each entry becomes a node at once and its dict is dropped: holding every parsed
        # line of a large file alive costs more than parsing it.
        start = len(self.tree.nodes)
        parse, add, policy = self.reader.parse, self.tree.add, self.policy
        for line in lines:
            entry = parse(line)
            if entry is not None:
                add(make_node(entry, len(self.tree.nodes), policy))
        return len(self.tree.nodes) - start

    def branch(self) -> Branch:
        """The current branch, with the index brought up to date with it."""
        if self._branch is None or not self._extend(self._branch):
            self._resolve()
        assert self._branch is not None
        return self._branch

    def _extend(self, branch: Branch) -> bool:
        """Appends the new nodes if each continues the branch; False if one does not."""
        fresh = self.tree.nodes[self._resolved_nodes :]
        if not fresh:
            return True
        if self._tip is None or self.tree.sidechain_only != self._sidechain_only:
            return False
        tip, side = self._tip, set(self._side)
        added: list[Node] = []
        for node in fresh:
            if node.boundary is not None:
                return False
            if node.sidechain != tip.sidechain:
                continue
            hangs = node.parent is not None and (node.parent == tip.uuid or node.parent in side)
            if node.is_message:
                if not hangs:
                    return False
                tip, side = node, set()
                added.append(node)
            elif hangs and node.uuid is not None:
                side.add(node.uuid)
        start = len(branch.messages)
        branch.messages.extend(added)
        branch.stops.extend(start + i for i, node in enumerate(added) if node.is_prompt)
        self._commit(added, tip, side)
        return True

    def _resolve(self) -> None:
        self.resolves += 1
        branch = self.tree.branch(self.scope)
        self._branch = branch
        self._sync(branch.messages)
        self._resolved_nodes = len(self.tree.nodes)
        self._sidechain_only = self.tree.sidechain_only
        self._tip = branch.messages[-1] if branch.messages else None
        self._side = self._hung_under(self._tip)

    def _hung_under(self, tip: Node | None) -> set[str]:
        """Uuids of the entries (not messages) that hang, directly or not, under `tip`."""
        side: set[str] = set()
        if tip is None:
            return side
        for node in self.tree.nodes[tip.pos + 1 :]:
            if node.is_message or node.uuid is None or node.parent is None:
                continue
            if node.parent == tip.uuid or node.parent in side:
                side.add(node.uuid)
        return side

    def _commit(self, added: list[Node], tip: Node, side: set[str]) -> None:
        self.index.extend([node.take_words() for node in added])
        self.indexed.extend(added)
        self._resolved_nodes = len(self.tree.nodes)
        self._tip, self._side = tip, side

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
