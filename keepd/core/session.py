"""One session followed incrementally: bytes in, the current branch indexed message by message."""

from __future__ import annotations

import bisect
import dataclasses

import numpy as np

from keepd.core.aftercut import FileTrail
from keepd.core.cues import CueTally, StopCues
from keepd.core.entries import BOOKKEEPING_LINE, EntryReader, Line
from keepd.core.events import EventCodes, events, signals
from keepd.core.frontier import Frontier
from keepd.core.index import Growable, Index, IntArray
from keepd.core.messages import DEFAULT_POLICY, Node, TextPolicy, make_node
from keepd.core.skim import ContextStart, context_start, skim
from keepd.core.tokens import TokenLedger
from keepd.core.tree import Branch, Scope, Tree
from keepd.core.typed import node_of
from keepd.core.wordkeys import word_keys

# Characters of text from which splitting a batch of messages at once is the cheaper way:
# below it numpy's cost per call outweighs what it saves per word (measured on the corpus's
# batches: about even at 5-10k characters, a third less time from 25k on).
BATCH_FROM = 8000
# 2.1.332 writes a snapshot of the files it tracks for each prompt, this head first
# (tests/claude/test_menu.py); the rewind menu offers to restore code only at a prompt that has one.
_SNAPSHOT = b'{"type":"file-history-snapshot","messageId":"'
_UUID_CHARS = 36


class SessionState:
    """The reader, the tree and the index of one session file, fed appended bytes.

    The index covers the branch of `scope`. Entries that only continue the branch (each
    one's parent is the branch's newest entry) are appended to it and to the index in
    O(their words); anything else (a rewind, parallel tool results, a compaction) resolves
    the branch from the tree again, and rebuilds the index if earlier messages changed.

    A `compact` state (for following many sessions at once) forgets the tree and the words
    once they are indexed and keeps only the branch's messages; when new entries do not
    just continue the branch it cannot resolve them, so it sets `stale` and keeps its last
    branch: its owner then reads the file again into a new state.
    """

    def __init__(
        self,
        scope: Scope = Scope.CURRENT,
        *,
        policy: TextPolicy = DEFAULT_POLICY,
        detail: bool = True,
        compact: bool = False,
    ) -> None:
        self.scope = scope
        self.policy = policy
        self.detail = detail and not compact
        self.compact = compact
        self.stale = False
        self.reader = EntryReader()
        self.tree = Tree()
        self.index = Index(detail=self.detail)
        self.ledger = TokenLedger()
        self.indexed: list[Node] = []
        self.rebuilds = 0
        self.resolves = 0
        self._branch: Branch | None = None
        self._resolved_nodes = 0  # tree nodes the branch accounts for
        self._front: Frontier | None = None
        self._thinned = 0  # messages before this index have been thinned (compact mode)
        self._stops = Growable()
        self._flags = Growable(np.int8)  # per stop (core/events.py)
        self._pauses = Growable(np.float64)
        self.cue_tally = CueTally()
        self._sidechain_only = True
        self._superseded = 0
        self._late_parents = 0
        self.checkpoints: set[str] = set()  # prompts Claude Code snapshotted the files for
        self.last_edit = -1  # the branch's newest message that edits a tracked file
        self.files = FileTrail()  # what its Read and edit calls showed of each file

    def feed(self, data: bytes, origin: int = 0) -> int:
        """Takes appended bytes (`data[origin:]`); returns how many entries they completed."""
        return self._add(self.reader.lines(data, origin))

    def finish(self) -> int:
        """Takes a last line that has no newline (for a file at rest)."""
        return self._add(self.reader.last_lines())

    def skim(self, data: bytes, start: ContextStart) -> None:
        """Takes the bytes before the newest compaction (`skim.context_start`) for their facts
        and the entries it preserved; then feed `data` from `start.offset`, and ask
        `needs_whole_file()`."""
        add, policy = self.tree.add, self.policy
        for entry in skim(self.tree, self.reader, data, start):
            add(make_node(entry, self.tree.total, policy))
        self._checkpoints_before(data, start.offset)

    def _checkpoints_before(self, data: bytes, end: int) -> None:
        """The snapshots' prompts among the lines a skim passes over (a preserved stop's own
        lies there), found by their head alone."""
        needle = b"\n" + _SNAPSHOT
        at = 0 if data.startswith(_SNAPSHOT) else data.find(needle, 0, end)
        while 0 <= at < end:
            head = at if at == 0 and data.startswith(_SNAPSHOT) else at + 1
            value = head + len(_SNAPSHOT)
            self._checkpoint(data[value : value + _UUID_CHARS])
            at = data.find(needle, value, end)

    def needs_whole_file(self) -> bool:
        """Whether a skimmed state's context is not the one the skim read for: read it all
        instead. It reached into the part passed over, or its walk does not start at the
        boundary the skim started at (the newest message hangs under no boundary, as a line
        written again after it with no parent does), so what came before may count."""
        if not self.tree.partial:
            return False
        branch = self.branch()
        tree = self.tree
        if tree.reached_before or branch.boundary is not tree.newest_boundary:
            return True
        return tree.sidechain_only or tree.leaf() is None or not tree.cwd

    def add_nodes(self, nodes: list[Node]) -> None:
        """Takes nodes made elsewhere (plain texts, dialogue data sets)."""
        for node in nodes:
            self.tree.add(node)

    def _add(self, lines: list[Line]) -> int:
        # Each entry becomes a node at once and its dict is dropped: holding every parsed
        # line of a large file alive costs more than parsing it.
        start = len(self.tree.nodes)
        parse, add, policy = self.reader.parse_lean, self.tree.add, self.policy
        bookkeeping = BOOKKEEPING_LINE.match
        for line in lines:
            if bookkeeping(line):  # no uuid: nothing hangs under it (entries.py)
                if line[:45] == _SNAPSHOT:
                    self._checkpoint(bytes(line[45 : 45 + _UUID_CHARS]))
                continue
            node = node_of(line, self.tree.total, policy, parse)
            if node is not None:
                add(node)
        return len(self.tree.nodes) - start

    def code_changed(self, uuid: str | None, index: int) -> bool:
        """Whether the rewind menu at the stop (its uuid, its message index) offers to restore
        code: Claude Code snapshotted the files at it and a tracked file was edited after it."""
        return uuid in self.checkpoints and self.last_edit > index

    def _checkpoint(self, uuid: bytes) -> None:
        if len(uuid) == _UUID_CHARS:
            self.checkpoints.add(uuid.decode("ascii", "replace"))

    def branch(self) -> Branch:
        """The current branch, with the index brought up to date with it."""
        if self._branch is None or not self._extend(self._branch):
            if self.compact and self._branch is not None:
                self.stale = True
                return self._branch
            self._resolve()
        assert self._branch is not None
        if self.compact:
            self._forget()
        return self._branch

    def stop_indices(self) -> IntArray:
        """The branch's stops as an array (message indices), kept as the branch grows."""
        self.branch()
        return np.asarray(self._stops.view(), dtype=np.int64)

    def stop_events(self, pause_seconds: float) -> EventCodes:
        """Each stop's event (core/events.py), from signals kept as the branch grows."""
        self.branch()
        return events(self._flags.view(), self._pauses.view(), pause_seconds)

    def stop_cues(self) -> StopCues:
        """Each stop's cues (core/cues.py), kept as the branch grows."""
        self.branch()
        cues = self.cue_tally.cues()
        words = self.index.uses_by_message[self.stop_indices()]
        pauses = np.array(self._pauses.view(), dtype=np.float64)  # the events' own, kept per stop
        return dataclasses.replace(cues, words=np.asarray(words, dtype=np.int64), pause=pauses)

    def _forget(self) -> None:
        """Keeps only what the analysis of an appended-to branch needs (compact mode)."""
        if self.stale:
            return
        self.tree.forget()
        self._resolved_nodes = 0

    def _extend(self, branch: Branch) -> bool:
        """Appends the new nodes if each continues the branch; False if one does not."""
        fresh = self.tree.nodes[self._resolved_nodes :]
        if not fresh:
            return True
        if self._front is None or self.tree.sidechain_only != self._sidechain_only:
            return False
        if self._relinked():
            return False
        front = self._front.copy()
        added: list[Node] = []
        for node in fresh:
            if node.boundary is not None:
                return False
            if node.sidechain != front.tip.sidechain:
                continue
            if node.is_message:
                if self._has_other_lines(node, front) or not front.takes(node):
                    return False
                added.append(node)
            else:
                front.hang(node)
        start = len(branch.messages)
        branch.messages.extend(added)
        stops = [start + i for i, node in enumerate(added) if node.is_prompt]
        known = len(branch.stops)
        branch.stops.extend(stops)
        self._stops.append(np.asarray(stops, dtype=np.int64))
        self._keep_signals(branch, known)
        self._commit(added, front, start)
        return True

    def _relinked(self) -> bool:
        """Whether a line was written again, or a parent after its child, since the branch
        was resolved: either changes the walk through what is already there."""
        tree = self.tree
        return tree.superseded != self._superseded or tree.late_parents != self._late_parents

    def _has_other_lines(self, node: Node, front: Frontier) -> bool:
        """Whether `node` opens a response that already has lines in the file: the walk
        pulls those in too (core/parallel.py), so only the tree can place them."""
        if node.msg_id is None or node.msg_id == front.group_id:
            return False
        return len(self.tree.by_msg_id.get(node.msg_id, ())) > 1

    def _resolve(self) -> None:
        self.resolves += 1
        branch = self.tree.branch(self.scope)
        self._branch = branch
        self._stops = Growable()
        self._stops.append(np.asarray(branch.stops, dtype=np.int64))
        self._flags, self._pauses = Growable(np.int8), Growable(np.float64)
        self._keep_signals(branch, 0)
        self._front = Frontier.of(branch.messages, self.tree.nodes)
        self._sync(branch.messages)
        self._resolved_nodes = len(self.tree.nodes)
        self._sidechain_only = self.tree.sidechain_only
        self._superseded = self.tree.superseded
        self._late_parents = self.tree.late_parents

    def _keep_signals(self, branch: Branch, start: int) -> None:
        """Before thinning: a stop's signals need the message before it and the stop before."""
        fresh = signals(branch, start)
        self._flags.append(np.asarray(fresh.flags, dtype=np.int8))
        self._pauses.append(np.asarray(fresh.pauses, dtype=np.float64))

    def _commit(self, added: list[Node], front: Frontier, first: int) -> None:
        self._index(added, first)
        self._resolved_nodes = len(self.tree.nodes)
        self._front = front

    def _sync(self, messages: list[Node]) -> None:
        known = len(self.indexed)
        if len(messages) < known or any(
            a is not b for a, b in zip(messages[:known], self.indexed, strict=True)
        ):
            self.index = Index(detail=self.detail)
            self.ledger = TokenLedger()
            self.indexed = []
            self.cue_tally = CueTally()
            self.last_edit = -1
            self.files = FileTrail()
            self.rebuilds += 1
            known = 0
        self._index(messages[known:], known)

    def _index(self, fresh: list[Node], first: int) -> None:
        """Indexes the branch's messages from the `first`-th on (`fresh`)."""
        stops = self._branch.stops if self._branch is not None else []
        at = set(stops[bisect.bisect_left(stops, first) :])  # the new ones: few
        is_stop = [first + i in at for i in range(len(fresh))]
        self._index_words(fresh, is_stop)
        self.cue_tally.add(fresh, is_stop)  # reads the prompts' words, given them just now
        self.ledger.extend(fresh)
        self.files.extend(first, fresh)
        edited = [i for i, node in enumerate(fresh) if node.edits]
        if edited:
            self.last_edit = first + edited[-1]
        if self.compact:
            self._thin()
        else:
            self.indexed.extend(fresh)

    def _index_words(self, fresh: list[Node], is_stop: list[bool]) -> None:
        """Gives the index the messages' words, and the prompts (`is_stop`) theirs for the
        cue tally: the texts split all at once (core/wordkeys.py) when there is enough text
        to pay for that, one message after another otherwise (`Node.take_words`); the same
        words either way. Messages split already (made from plain texts, or asked for their
        words) give their words."""
        texts = [node.text for node in fresh]
        if sum(map(len, texts)) < BATCH_FROM:
            self.index.extend([node.take_words() for node in fresh])
            return
        found = word_keys(texts)
        split = {i: node.words for i, node in enumerate(fresh) if node.words and not node.text}
        if split:
            found = found.with_split(split)
        counts = found.counts.tolist()
        starts = (found.counts.cumsum() - found.counts).tolist()
        for i, node in enumerate(fresh):
            if is_stop[i] and node.text:
                node.words = found.words_between(starts[i], starts[i] + counts[i])
        self.index.extend_keys(found.counts, found.keys, found.words_at)

    def _thin(self) -> None:
        """Replaces the indexed messages the picker does not list by one shared placeholder.

        Their words are in the index and their tokens in the ledger; the branch keeps only
        its length, the prompts, and its newest message (the frontier still needs it).
        """
        messages = self._branch.messages if self._branch is not None else []
        for at in range(self._thinned, len(messages) - 1):
            node = messages[at]
            node.words, node.text = (), ""
            if not node.is_prompt:
                messages[at] = GONE
        self._thinned = max(len(messages) - 1, 0)


def read_current(
    data: bytes,
    *,
    policy: TextPolicy = DEFAULT_POLICY,
    detail: bool = True,
    compact: bool = False,
    at_rest: bool = True,
) -> SessionState:
    """The current context of a whole file's bytes, skimming what precedes its newest
    compaction unless what follows reaches back (core/skim.py). A file `at_rest` may end
    without a newline; a file being written holds back its unfinished last line."""

    def fed(state: SessionState, origin: int) -> SessionState:
        state.feed(data, origin)
        if at_rest:
            state.finish()
        return state

    def fresh() -> SessionState:
        return SessionState(Scope.CURRENT, policy=policy, detail=detail, compact=compact)

    start = context_start(data)
    if start.offset > 0:
        state = fresh()
        state.skim(data, start)
        if not fed(state, start.offset).needs_whole_file():
            return state
    return fed(fresh(), 0)


GONE = Node(pos=-1, kind="gone")  # stands for a thinned message in a compact branch
