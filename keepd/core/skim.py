"""Starts the current context of a file at rest at its newest compaction, as Claude Code
loads a large file, reading what comes before only for the facts the scope keeps and for the
entries the compaction preserved.

The entries before a compaction are not in the context the model sees, except those its
boundary preserved (`preservedMessages`, `preservedSegment`: Claude Code relinks them after
its summary), so the text of the others is never needed; only a few running facts are: the
session id, the largest usage (which proves a 1M window) and the API response ids a later
line could share. The preserved entries' lines are found by their uuid, scanning back from
the boundary, and read whole. The folder comes from the newest message, after the boundary.
Lines whose top-level type is provably not `assistant` are passed over unparsed; the rest
are parsed for those facts. If anything read later still reaches into the part passed over
(a parent, a preserved entry or a sibling by response id), the tree says so
(`Tree.reached_before`) and the caller reads the whole file instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from keepd.core.entries import BOOKKEEPING_LINE, Entry, EntryReader, Line
from keepd.core.messages import CONVERSATION, is_queued_prompt, kind_of, usage_tokens
from keepd.core.tree import Tree
from keepd.core.typed import skimmed_facts

_NEEDLE = b'"subtype":"compact_boundary"'
_TYPE = b'"type":"'
_TYPE_FIRST = b'{"type":"'
_UUID = b'"uuid":"'
_ATTACHMENT_KEY = b'"attachment":'
# The names most lines carry, each with its closing quote: such a name needs no further check.
_PLAIN_KINDS = (b'progress"', b'user"', b'system"', b'file-history-snapshot"', b'queue-operation"')
# Heads of lines the skim passes over, told in one match: a bookkeeping line, a plain kind's
# type first, or 2.1.332's head of a user, system or progress line (its type before any
# nested object) or of an attachment. Each implies what `BOOKKEEPING_LINE` or `_plain_kind`
# would answer (their strings hold no quote, brace or backslash, so no type or brace hides
# in them); any other head is left to those two.
_PASSED_OVER = re.compile(
    rb"(?:" + BOOKKEEPING_LINE.pattern + rb")"
    rb'|\{"type":"(?:progress|user|system|file-history-snapshot|queue-operation)"'
    rb'|\{"parentUuid":(?:null|"[^"{\\]{0,100}"),"isSidechain":(?:true|false),'
    rb'(?:"promptId":"[^"{\\]{0,100}",)?(?:"type":"(?:user|system|progress)"|"attachment":\{)'
)


@dataclass(frozen=True, slots=True)
class ContextStart:
    """Where the current context starts: the newest main compact boundary's line (0: read
    everything), and the lines before it that hold the entries it preserved, in file order."""

    offset: int = 0
    # (start, end) of each line, its newline left out: the preserved entries' and those of the
    # entries between messages they hang under (`_carriers`)
    kept: tuple[tuple[int, int], ...] = ()


def context_start(data: bytes) -> ContextStart:
    """The newest compact boundary a reader can start at, with the lines it preserved.

    Candidates are found by their bytes and confirmed by parsing their line. A sub-agent's
    boundary does not start the main context, and a boundary whose preserved entries are not
    all found before it (the loader would give up on it) is not started at: for those the
    answer is offset 0 (read everything).

    >>> line = b'{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null}'
    >>> context_start(b'{"type":"user"}\\n' + line + b'\\n')
    ContextStart(offset=16, kept=())
    """
    end = len(data)
    reader = EntryReader()  # for its parse alone
    for hit in newest_first(data, _NEEDLE):
        if hit >= end:
            continue  # on a line already judged
        start = data.rfind(b"\n", 0, hit) + 1
        stop = data.find(b"\n", hit)
        entry = reader.parse(data[start : stop if stop >= 0 else len(data)])
        if entry is not None and _is_boundary(entry):
            if entry.get("isSidechain") is True or entry.get("uuid") is None:
                return ContextStart()
            if data.find(b'"uuid":"%s"' % str(entry["uuid"]).encode(), 0, start) >= 0:
                return ContextStart()  # a boundary written twice: the whole read decides
            kept = _preserved_lines(data, start, entry.get("compactMetadata"), reader)
            return ContextStart() if kept is None else ContextStart(start, kept)
        end = start
    return ContextStart()


def newest_first(data: bytes, needle: bytes, block: int = 1 << 16) -> Iterator[int]:
    """Where `needle` occurs in `data`, newest first.

    Found by forward searches through blocks taken from the end: `bytes.rfind` takes about
    twice as long a byte as `find` on a session's bytes, and blocks keep a boundary near the
    end of a large file from costing a scan of all of it. A block's bytes before the newest
    hit are searched for nothing: 64 kB blocks waste less of that than 256 kB ones did
    (the 30-turn 2.1.332 session: 0.20 -> 0.17 ms), with calls still few.

    >>> list(newest_first(b"ab-ab-ab", b"ab", block=3))
    [6, 3, 0]
    """
    end = len(data)
    while end >= len(needle):
        low = max(0, end - block)
        hits = []
        at = data.find(needle, low, end)
        while at >= 0:
            hits.append(at)
            at = data.find(needle, at + len(needle), end)
        yield from reversed(hits)
        if low == 0:
            return
        end = low + len(needle) - 1  # the next block still holds a hit that starts before low


def _preserved_lines(
    data: bytes, start: int, meta: Any, reader: EntryReader
) -> tuple[tuple[int, int], ...] | None:
    """The lines before `start` of the entries a boundary preserved, read as `make_node` reads
    its metadata (a `preservedMessages` list first, else a `preservedSegment`), and of the
    entries between messages they hang under; None when a preserved one is not found."""
    meta = meta if isinstance(meta, dict) else {}
    listed, segment = meta.get("preservedMessages"), meta.get("preservedSegment")
    kept: list[_Line] | None = []
    if isinstance(listed, dict):
        uuids = listed.get("uuids")
        wanted = [u for u in uuids if isinstance(u, str)] if isinstance(uuids, list) else []
        kept = _listed(data, start, wanted, reader)
    elif isinstance(segment, dict):
        head, tail = segment.get("headUuid"), segment.get("tailUuid")
        if isinstance(head, str) and head and isinstance(tail, str) and tail:
            kept = _segment(data, start, head, tail, reader)
    if kept is None:
        return None
    lines = [(first, stop) for _, first, stop in kept]
    return tuple(sorted(lines + _carriers(data, kept, reader)))


_Line = tuple[Entry, int, int]  # an entry and the (start, end) of its line


def _listed(data: bytes, start: int, uuids: list[str], reader: EntryReader) -> list[_Line] | None:
    """The newest line before `start` of each uuid (a later copy replaces an earlier one, as in
    the tree), found in one pass back from the boundary."""
    pending = {uuid.encode() for uuid in uuids}
    found: list[_Line] = []
    for line in _lines_of(data, start, reader, pending.__contains__):
        pending.discard(str(line[0].get("uuid")).encode())
        found.append(line)
        if not pending:
            break
    return None if pending else found


def _segment(
    data: bytes, start: int, head: str, tail: str, reader: EntryReader
) -> list[_Line] | None:
    """The lines of the parent walk from `tail` up to `head`, found in one pass back."""
    wanted = [tail.encode()]
    found: list[_Line] = []
    for line in _lines_of(data, start, reader, lambda uuid: uuid == wanted[0]):
        found.append(line)
        entry = line[0]
        if entry.get("uuid") == head:
            return found
        parent = entry.get("parentUuid")
        if not isinstance(parent, str) or len(found) > len(data):
            return None
        wanted[0] = parent.encode()
    return None


def _carriers(data: bytes, kept: list[_Line], reader: EntryReader) -> list[tuple[int, int]]:
    """The lines of the entries between messages (attachments, progress) that a preserved
    entry hangs under, up to the message above them: as the tree is built in file order, each
    hands the person's text it carries (`Tree.add`) to what is added under it, a preserved
    entry too. Each is the newest line of its uuid before the entry under it, as when that
    entry was added (a parent written later had carried nothing to it yet); all are found in
    one pass back, so parents that are missing cost one scan, not one each."""
    known = {entry.get("uuid") for entry, _, _ in kept}
    pending: dict[bytes, int] = {}  # a parent's uuid -> the line start it must come before

    def want(parent: object, before: int) -> None:
        if isinstance(parent, str) and parent not in known:
            key = parent.encode()
            pending[key] = max(pending.get(key, -1), before)

    for entry, first, _ in kept:
        want(entry.get("parentUuid"), first)
    found: list[tuple[int, int]] = []
    at = max(pending.values(), default=0)
    for entry, first, stop in _lines_of(data, at, reader, pending.__contains__):
        key = str(entry.get("uuid")).encode()
        if first >= pending[key]:
            continue  # a copy written after the entry under it
        del pending[key]
        if _between_messages(entry):
            known.add(entry.get("uuid"))
            found.append((first, stop))
            want(entry.get("parentUuid"), first)
        if not pending:
            break
    return found


def _between_messages(entry: Entry) -> bool:
    """Whether an entry is neither a message nor a boundary: one `Tree.add` carries text by."""
    kind = kind_of(entry)
    return kind not in CONVERSATION and not is_queued_prompt(entry) and not _is_boundary(entry)


def _lines_of(
    data: bytes, end: int, reader: EntryReader, wanted: Callable[[bytes], bool]
) -> Iterator[tuple[Entry, int, int]]:
    """(entry, start, end) of the lines before `end` whose own uuid is `wanted`, newest first,
    each line once.

    Uuids are found by their bytes, `"uuid":"...`; only a wanted one's line is parsed, and an
    occurrence inside a nested value (the line's own uuid differs) is passed over.
    """
    view = memoryview(data)
    at = end
    while (hit := data.rfind(_UUID, 0, at)) >= 0:
        at = hit
        value = hit + len(_UUID)
        close = data.find(b'"', value, value + 128)
        if close < 0 or not wanted(data[value:close]):
            continue
        first = data.rfind(b"\n", 0, hit) + 1
        stop = data.find(b"\n", hit, end)
        stop = end if stop < 0 else stop
        entry = reader.parse(view[first:stop])
        if entry is None or entry.get("uuid") != data[value:close].decode(errors="replace"):
            continue
        at = first
        yield entry, first, stop


def skim(tree: Tree, reader: EntryReader, data: bytes, start: ContextStart) -> list[Entry]:
    """Reads the lines before the boundary `context_start` named for `tree`'s facts; returns
    the entries it preserved, in file order, for the caller to add to the tree first.

    Every line is parsed until the first conversation entry (whose session id the tree
    keeps); after it, lines whose top-level type is known and not `assistant` are skipped.
    A preserved entry's response id is not noted: its line joins the tree itself.
    """
    tree.partial = True
    named = False
    view = memoryview(data)
    kept = dict(start.kept)
    preserved: list[Entry] = []
    at = 0
    passed = _PASSED_OVER.match  # the quick answer for most lines
    while at < start.offset:
        end = data.find(b"\n", at, start.offset)
        end = start.offset if end < 0 else end
        is_kept = at in kept
        # the checks asked in the order that answers most lines at once: Claude Code 2.1's
        # heads name the type before any nested value, which `_plain_kind` sees at once
        passed_over = named and (_plain_kind(data, at, end) or passed(data, at, end) is not None)
        read = is_kept or (end > at and not passed_over)
        if read and _read(tree, reader, view[at:end], preserved if is_kept else None):
            named = tree.session_id is not None
        at = end + 1
    return preserved


def _read(tree: Tree, reader: EntryReader, line: Line, preserved: list[Entry] | None) -> bool:
    """Gives the tree the running facts of the entry on `line` (`_note`), read by the typed
    reader unless the entry is a preserved one, which joins `preserved` whole; True for a
    conversation entry with a uuid."""
    if preserved is None:
        facts = skimmed_facts(line)
        if facts is not None:
            msg_id, is_message, sidechain, session_id, tokens, model = facts
            tree.note_skimmed(msg_id, is_message, sidechain, session_id, tokens, model=model)
            return is_message
    entry = reader.parse(line)
    if entry is None:
        return False
    if preserved is not None:
        preserved.append(entry)
    return _note(tree, entry, response=preserved is None)


def _plain_kind(data: bytes, start: int, end: int) -> bool:
    """Whether the line's top-level `type` comes before any nested object and is not
    `assistant`, or the line is an attachment's.

    A `"type":"` that no `{` but the line's own precedes cannot be inside a nested value,
    nor inside a string, whose quotes would be escaped. A name written with escapes is left
    for the parser to read.
    """
    head = min(end, start + 1024)
    if data.startswith(_TYPE_FIRST, start):  # most bookkeeping lines: the type comes first
        value = start + len(_TYPE_FIRST)
    else:
        nested = data.find(b"{", start + 1, head)
        at = data.find(_TYPE, start, head if nested < 0 else nested)
        if at < 0:
            # 2.1.332 writes an attachment's object before its type: a line whose first
            # nested value is its top-level `attachment` is an attachment (no other entry
            # has that key).
            return nested > 0 and data.startswith(_ATTACHMENT_KEY, nested - len(_ATTACHMENT_KEY))
        value = at + len(_TYPE)
    if data.startswith(_PLAIN_KINDS, value, head):  # the usual names: no need to look closer
        return True
    close = data.find(b'"', value, head)
    if close < 0 or data.find(b"\\", value, close) >= 0:  # an escaped name: parse it
        return False
    return data[value:close] != b"assistant"


def _note(tree: Tree, entry: Entry, *, response: bool = True) -> bool:
    """Gives the tree an entry's running facts, as `make_node` and `Tree.add` would read them
    (its response id only if `response`); True for a conversation entry with a uuid."""
    kind = kind_of(entry)
    if kind not in CONVERSATION:
        return False
    msg_id = tokens = model = None
    if kind == "assistant":
        message = entry.get("message")
        message = message if isinstance(message, dict) else {}
        msg_id = _text(message.get("id")) if response else None
        tokens = usage_tokens(entry, message)[0]
        model = _text(message.get("model"))
    uuid = entry.get("uuid")
    is_message = type(uuid) is str and uuid != ""
    sidechain = entry.get("isSidechain") is True
    session_id = _text(entry.get("sessionId"))
    tree.note_skimmed(msg_id, is_message, sidechain, session_id, tokens, model=model)
    return is_message


def _text(value: object) -> str | None:
    return value if type(value) is str else None


def _is_boundary(entry: Entry) -> bool:
    return entry.get("type") == "system" and entry.get("subtype") == "compact_boundary"
