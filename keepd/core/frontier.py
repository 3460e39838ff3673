"""Where a followed branch can grow: the entries an appended line may hang under and still
only continue it, so that `SessionState` can append it without walking the tree again."""

from __future__ import annotations

from itertools import pairwise

from keepd.core.messages import Node


class Frontier:
    """Where a branch can grow: under its newest message, an entry hung under that, or any
    line of the newest API response and its tool results (parallel tool calls make those
    siblings, and the loader pulls them all in, in file order)."""

    def __init__(self, tip: Node, side: set[str], group: set[str], group_id: str | None) -> None:
        self.tip = tip
        self.side = side  # entries (not messages) hung under the tip
        self.group = group  # lines of the newest response and their tool results
        self.group_id = group_id

    @classmethod
    def of(cls, messages: list[Node], nodes: list[Node]) -> Frontier | None:
        if not messages:
            return None
        front = cls(messages[-1], set(), set(), None)
        for node in reversed(messages):
            if node.msg_id is not None:
                front.group_id = node.msg_id
                break
            if not node.tool_results:
                break
        recent = messages[-64:]
        if front.group_id is not None and _in_file_order(recent, front.group_id):
            lines = {n.uuid for n in recent if n.uuid and n.msg_id == front.group_id}
            results = {n.uuid for n in recent if n.uuid and n.parent in lines}
            front.group = lines | results
        for node in nodes[front.tip.pos + 1 :]:
            front.hang(node)
        return front

    def copy(self) -> Frontier:
        return Frontier(self.tip, set(self.side), set(self.group), self.group_id)

    def hang(self, node: Node) -> None:
        """Notes an entry that is not a message if it hangs under the tip."""
        hangs = node.parent == self.tip.uuid or node.parent in self.side
        if node.uuid is not None and node.parent is not None and hangs:
            self.side.add(node.uuid)

    def takes(self, node: Node) -> bool:
        """Moves the tip to `node` if it continues the branch."""
        parent = node.parent
        if parent is None:
            return False
        # Under a line of the newest response only if the tip belongs to it too: a tip
        # outside it (a result whose call is missing) is a dead end a walk would leave.
        in_group = parent in self.group and self.tip.uuid in self.group
        if parent != self.tip.uuid and parent not in self.side and not in_group:
            return False
        if node.msg_id is not None and node.msg_id != self.group_id:
            self.group, self.group_id = set(), node.msg_id
        if node.msg_id is not None or (node.tool_results and self.group_id is not None):
            self.group.add(node.uuid or "")
        else:
            self.group, self.group_id = set(), None
        self.tip, self.side = node, set()
        return True


def _in_file_order(recent: list[Node], group_id: str) -> bool:
    """Whether the branch from the response's first line on is in file order, each line after
    its parent. If not (a result linked to a call written after it), a line added under an
    earlier one makes the walk place them anew (core/parallel.py): the tree resolves it."""
    first = next((at for at, n in enumerate(recent) if n.msg_id == group_id), len(recent))
    tail = recent[first:]
    written = {n.uuid: n.pos for n in tail if n.uuid is not None}
    if any(written.get(n.parent or "", -1) > n.pos for n in tail):
        return False
    return all(a.pos < b.pos for a, b in pairwise(tail))
