"""Rebuilds the conversation the model sees from the entry tree: branches, compactions, gaps."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from keepd.core.messages import Boundary, Node
from keepd.core.parallel import pull_in

AWAITED_FORGETS = 32  # how many forgets a missing parent is watched for


class Scope(StrEnum):
    """What to analyse: the context the model sees now, or the whole history uncompacted."""

    CURRENT = "current"
    WHOLE = "whole"


@dataclass(frozen=True, slots=True)
class Branch:
    """The messages of one scope, oldest first, and which of them the picker lists."""

    messages: list[Node]
    stops: list[int]  # indices into messages
    boundary: Node | None  # the compact boundary the current context starts at
    compacted: list[int] = field(default_factory=list)  # messages that follow a compaction
    # File positions of the entries the newest boundary preserved: a resumed session's picker
    # lists the prompts among them as well as those after the boundary.
    kept: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class _Relink:
    """The newest boundary's relinking: preserved entries chained under its anchor."""

    boundary: Node | None = None
    anchor: Node | None = None
    links: dict[str, str] = field(default_factory=dict)
    kept: frozenset[int] = frozenset()
    landing: Node | None = None  # the last preserved entry: the anchor's children follow it

    def escapes(self, parent: Node) -> bool:
        """A walk that reaches an older entry that was not kept is taken to the anchor."""
        if self.boundary is None or self.landing is None:
            return False
        return parent.pos < self.boundary.pos and parent.pos not in self.kept

    def start(self, leaf: Node) -> Node:
        """Where the walk starts: the leaf, unless the relinked context ends below it.

        With nothing written after a partial compaction yet, the newest message is the
        anchor (a summary first) or an entry from before the boundary: one it left out, or
        one it kept but not last (a kept entry written again, later in the file than the
        entry kept after it); the context then ends at the last preserved entry, or at the
        anchor when none was preserved.
        """
        if self.landing is None or self.boundary is None:
            return leaf
        if leaf is self.anchor or leaf.pos < self.boundary.pos:
            return self.landing
        return leaf


class Tree:
    """All nodes of one session file, in file order, linked by uuid.

    Besides the nodes it keeps a few running facts (the newest message, the newest and the
    largest usage, the session id and folder) that survive `forget`, so a follower that
    only appends can drop the nodes it no longer needs.
    """

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.by_uuid: dict[str, Node] = {}
        self.by_msg_id: dict[str, list[Node]] = {}
        self.children: dict[str, list[Node]] = {}
        self.total = 0  # nodes ever added: the next node's position in the file
        self.sidechain_only = True
        self.newest_usage: Node | None = None
        self.newest_boundary: Node | None = None
        self.largest_usage = 0
        self.model: str | None = None  # the newest real response's `message.model`
        self.auto_compacted: int | None = None  # preTokens of the newest, if automatic
        self.session_id: str | None = None
        self.cwd: str | None = None
        self._newest: Node | None = None
        self._newest_sidechain: Node | None = None
        # A tree of what follows a full compaction (skim.py) knows the entries before it
        # only by these facts, and notes when a lookup wanted one of them.
        self.partial = False
        self.skimmed_msg_ids: set[str] = set()
        self.reached_before = False
        self.superseded = 0  # lines replaced by a later one with the same uuid
        self.late_parents = 0  # entries written after a line that names them as its parent
        # Parents named but not read yet, kept through `forget` (by the forget that noted them)
        # so that a late parent is still noticed; a late line comes within the same turn.
        self.awaited: dict[str, int] = {}
        self.forgets = 0
        # Counted text of the person's attachments (messages.py) waiting, by the uuid of the
        # last entry on their chain, for the message that follows them.
        self.carried: dict[str, tuple[str, int]] = {}

    def add(self, node: Node) -> None:
        self.nodes.append(node)
        self.total += 1
        if node.uuid is not None:
            if node.uuid in self.children or self.awaited.pop(node.uuid, None) is not None:
                self.late_parents += 1  # a walk through its children now goes through it
            earlier = self.by_uuid.get(node.uuid)
            if earlier is not None:
                self._supersede(earlier)
            self.by_uuid[node.uuid] = node
        if node.parent is not None:
            self.children.setdefault(node.parent, []).append(node)
        if node.msg_id is not None:
            self.by_msg_id.setdefault(node.msg_id, []).append(node)
            if node.msg_id in self.skimmed_msg_ids:
                self.reached_before = True  # its siblings before the boundary join the branch
        if node.is_message and node.uuid:
            self._take_carried(node)
            self._note_message(node)
        elif node.boundary is not None and not node.sidechain:
            self.newest_boundary = node
            self._note_compaction(node.boundary)
        elif node.uuid is not None and (node.chars or node.parent in self.carried):
            self._carry(node)

    def _carry(self, node: Node) -> None:
        """An entry between messages (an attachment) passes its own and its parent's counted
        text on to whatever hangs under it."""
        text, chars = self.carried.get(node.parent or "", ("", 0))
        joined = f"{text} {node.text}" if text and node.text else text or node.text
        self.carried[node.uuid or ""] = (joined, chars + node.chars)

    def _take_carried(self, node: Node) -> None:
        """A message takes the person's text its chain brought since the message before: it was
        written in this turn, before this message."""
        if node.parent is None or node.parent not in self.carried:
            return
        text, chars = self.carried[node.parent]
        node.text = f"{text} {node.text}" if node.text else text
        node.chars += chars

    def _supersede(self, earlier: Node) -> None:
        """A later line with the same uuid replaces an earlier one, as Claude Code's loader
        keys entries by uuid: the earlier copy is nobody's child or sibling any more."""
        self.superseded += 1
        if earlier.parent is not None:
            kin = self.children.get(earlier.parent, [])
            self.children[earlier.parent] = [n for n in kin if n is not earlier]
        if earlier.msg_id is not None:
            kin = self.by_msg_id.get(earlier.msg_id, [])
            self.by_msg_id[earlier.msg_id] = [n for n in kin if n is not earlier]

    def _note_message(self, node: Node) -> None:
        self.session_id = self.session_id or node.session_id
        self.cwd = node.cwd or self.cwd
        if node.sidechain:
            self._newest_sidechain = node
            return
        self.sidechain_only = False
        self._newest = node
        if node.context_tokens is not None:
            self.newest_usage = node
            self.largest_usage = max(self.largest_usage, node.context_tokens)
            self.model = node.model or self.model

    def _note_compaction(self, boundary: Boundary) -> None:
        """The newest compaction, if Claude Code made it by itself, shows where it compacts
        this session (only the newest: a reader that starts at it knows no older one)."""
        pre = boundary.pre_tokens
        automatic = boundary.automatic and pre is not None and pre > 0
        self.auto_compacted = pre if automatic else None

    def note_skimmed(
        self,
        msg_id: str | None,
        is_message: bool,
        sidechain: bool,
        session_id: str | None,
        context_tokens: int | None,
        *,
        model: str | None = None,
    ) -> None:
        """Keeps the running facts of an entry from before the boundary a partial tree starts
        at (core/skim.py); `is_message` for a conversation entry with a uuid."""
        if msg_id is not None:
            self.skimmed_msg_ids.add(msg_id)
        if not is_message:
            return
        self.session_id = self.session_id or session_id
        if not sidechain:
            self.sidechain_only = False
            if context_tokens is not None:
                self.largest_usage = max(self.largest_usage, context_tokens)
                self.model = model if type(model) is str else self.model

    def leaf(self) -> Node | None:
        """The newest conversation entry (a sub-agent file's own, if that is all there is)."""
        return self._newest_sidechain if self.sidechain_only else self._newest

    def forget(self) -> None:
        """Drops the nodes and links; the running facts and the position count stay.

        Nothing read since the last forget: nothing to drop, and a missing parent's watch
        counts forgets of read lines (an analysis asks for the branch several times)."""
        if not self.nodes and not self.children:
            return
        self.forgets += 1
        for parent in self.children:
            if parent not in self.by_uuid:
                self.awaited.setdefault(parent, self.forgets)
        self.awaited = {
            uuid: at for uuid, at in self.awaited.items() if self.forgets - at < AWAITED_FORGETS
        }
        self.nodes = []
        self.by_uuid = {}
        self.by_msg_id = {}
        self.children = {}

    def branch(self, scope: Scope = Scope.CURRENT) -> Branch:
        leaf = self.leaf()
        if leaf is None:
            return Branch(messages=[], stops=[], boundary=None)
        relink = self._relink_plan()
        if scope is Scope.WHOLE:
            chain = self._walk(leaf, _Relink(), through_boundaries=True)
            history = [n for n in self._pull_in(chain) if not n.is_compact_summary]
            return _branch(history, None, relink.kept)
        chain = self._walk(relink.start(leaf), relink, through_boundaries=False)
        boundary = chain[0] if chain[0].boundary is not None else None
        inside = [node.pos in relink.kept for node in chain]
        if not any(inside):
            return _branch(self._pull_in(chain), boundary, relink.kept)
        first = inside.index(True)
        last = len(inside) - inside[::-1].index(True)
        head, middle, tail = chain[:first], chain[first:last], chain[last:]
        context = [*self._pull_in(head), *middle, *self._pull_in(tail)]
        return _branch(context, boundary, relink.kept)

    def _relink_plan(self) -> _Relink:
        """How the loader relinks parents for the newest boundary's preserved entries."""
        boundary = self.newest_boundary
        if boundary is None or boundary.boundary is None or boundary.uuid is None:
            return _Relink()
        preserved = self._preserved(boundary.boundary)
        if preserved is None:
            return _Relink(boundary=boundary)
        anchor = boundary.boundary.anchor or boundary.uuid
        if not preserved:  # an empty context: what follows hangs under the anchor itself
            node = self._find(anchor)
            return _Relink(boundary, node, {}, frozenset(), node)
        previous = [anchor, *(node.uuid for node in preserved[:-1])]
        links = {
            node.uuid: prev
            for node, prev in zip(preserved, previous, strict=True)
            if node.uuid is not None and prev is not None
        }
        last = preserved[-1].uuid
        for child in self.children.get(anchor, ()):
            if child.uuid is not None and child.uuid not in links and last is not None:
                links[child.uuid] = last
        kept = frozenset(node.pos for node in preserved)
        return _Relink(boundary, self._find(anchor), links, kept, preserved[-1])

    def _walk(self, leaf: Node, relink: _Relink, *, through_boundaries: bool) -> list[Node]:
        """Parent links from the leaf up, oldest first; gaps bridged by file order.

        A parent written after its child is followed, as Claude Code's loader follows it
        (2.1.168 wrote a tool result's line before its call's); only a parent that is
        missing or already walked (a loop) is bridged.
        """
        chain: list[Node] = []
        seen: set[int] = set()
        node: Node | None = leaf
        # Most entries name a parent that is there and not yet walked, with no relinking in
        # the way: that step is taken here, and `_parent_of` takes every other.
        by_uuid, links = self.by_uuid, relink.links
        guarded = relink.boundary is not None and relink.landing is not None
        while node is not None and node.pos not in seen:
            seen.add(node.pos)
            chain.append(node)
            link = node.parent
            parent = by_uuid.get(link) if link is not None and node.uuid not in links else None
            if parent is not None and parent.pos not in seen:
                node = relink.landing if guarded and relink.escapes(parent) else parent
            else:
                node = self._parent_of(node, relink, through_boundaries, seen)
        chain.reverse()
        return chain

    def _parent_of(
        self, node: Node, relink: _Relink, through_boundaries: bool, seen: set[int]
    ) -> Node | None:
        moved = relink.links.get(node.uuid) if node.uuid is not None else None
        if moved is not None:
            return self._find(moved)
        link = node.parent
        if link is None and node.boundary is not None and through_boundaries:
            link = self._before_boundary(node.boundary) or node.logical_parent or ""
        if link is None:
            return None
        parent = self._find(link)
        if parent is None or parent.pos in seen:
            parent = self._previous_in_file(node, seen)
        if parent is not None and relink.escapes(parent):
            return relink.landing
        return parent

    def _before_boundary(self, info: Boundary) -> str | None:
        """Where the whole history goes on past a boundary that preserved entries: from the
        last of them, whose own parents lead back through them to older history. Its logical
        parent is not always that: "Summarize up to here" names the entry before the first
        preserved one."""
        preserved = self._preserved(info)
        return preserved[-1].uuid if preserved else None

    def _previous_in_file(self, node: Node, seen: set[int]) -> Node | None:
        """The newest entry written before `node` on its side that the walk has not passed
        (the loader bridges a gap with the newest such entry by time)."""
        for pos in range(node.pos - 1, -1, -1):
            candidate = self.nodes[pos]
            current = candidate.uuid and self.by_uuid.get(candidate.uuid) is candidate
            if current and candidate.sidechain == node.sidechain and pos not in seen:
                return candidate  # not a superseded copy
        return None

    def _preserved(self, info: Boundary) -> list[Node] | None:
        """The preserved entries, or None when one is missing (the loader then gives up)."""
        if info.preserved is None and info.segment is not None:
            return self._segment(*info.segment)
        if info.preserved is None:
            return None
        found = [self._find(uuid) for uuid in info.preserved]
        if any(node is None for node in found):
            return None
        return [node for node in found if node is not None]

    def _segment(self, head: str, tail: str) -> list[Node] | None:
        end = self._find(tail)
        if end is None or self._find(head) is None:
            return None
        span: list[Node] = []
        node: Node | None = end
        while node is not None and len(span) <= len(self.nodes):
            span.append(node)
            if node.uuid == head:
                span.reverse()
                return span
            node = self._find(node.parent) if node.parent else None
        return None

    def _find(self, uuid: str) -> Node | None:
        node = self.by_uuid.get(uuid)
        if node is None and self.partial:
            self.reached_before = True
        return node

    def _pull_in(self, chain: list[Node]) -> list[Node]:
        """Adds the parallel tool calls and results a parent walk misses, as the loader does."""
        return pull_in(chain, self._siblings, self._children)

    def _siblings(self, msg_id: str) -> list[Node]:
        return self.by_msg_id.get(msg_id, [])

    def _children(self, uuid: str) -> list[Node]:
        """The entries under `uuid`. In a partial tree, those of an entry from before the
        boundary (one it preserved) may be among the lines passed over, which the skim did
        not read: asking for them reaches before, as a lookup by uuid does (`_find`)."""
        if self.partial:
            node, boundary = self.by_uuid.get(uuid), self.newest_boundary
            if node is not None and boundary is not None and node.pos < boundary.pos:
                self.reached_before = True
        return self.children.get(uuid, [])


def _branch(context: list[Node], boundary: Node | None, kept: frozenset[int]) -> Branch:
    """The messages of `context`; its stops are the prompts after `boundary` and those the
    newest boundary preserved (`kept`), which Claude Code relinks after its summary."""
    messages: list[Node] = []
    compacted: list[int] = []
    for node in context:
        if node.is_message:
            messages.append(node)
        elif node.boundary is not None and not node.sidechain:
            compacted.append(len(messages))
    after = boundary.pos if boundary is not None else -1
    stops = [
        i
        for i, node in enumerate(messages)
        if node.is_prompt and (node.pos > after or node.pos in kept)
    ]
    return Branch(messages, stops, boundary, compacted, kept)
