"""Starts the current context of a file at rest at its newest full compaction, as Claude Code
loads a large file, reading what comes before only for the facts the scope keeps.

The entries before a compaction that preserved nothing are not in the context the model
sees, so their text is never needed; only a few running facts are: the session id, the
largest usage (which proves a 1M window) and the API response ids a later line could share.
The folder comes from the newest message, after the boundary. Lines whose top-level type is
provably not `assistant` are passed over unparsed; the rest are parsed for those facts. If
anything read later still reaches into the part passed over (a parent, a preserved entry or
a sibling by response id), the tree says so (`Tree.reached_before`) and the caller reads
the whole file instead.
"""

from __future__ import annotations

from keepd.core.entries import Entry, EntryReader
from keepd.core.messages import CONVERSATION, usage_tokens
from keepd.core.tree import Tree

_NEEDLE = b'"subtype":"compact_boundary"'
_TYPE = b'"type":"'
# The names most lines carry, each with its closing quote: such a name needs no further check.
_PLAIN_KINDS = (b'progress"', b'user"', b'system"', b'file-history-snapshot"', b'queue-operation"')


def context_start(data: bytes) -> int:
    """The offset of the line of the newest compact boundary that preserved nothing, or 0.

    A boundary that keeps entries (`preservedMessages`, `preservedSegment`) needs those
    older entries, and a sub-agent's boundary does not start the main context: for those
    the answer is 0 (read everything). Candidates are found by their bytes and confirmed
    by parsing their line.

    >>> line = b'{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null}'
    >>> context_start(b'{"type":"user"}\\n' + line + b'\\n')
    16
    """
    end = len(data)
    reader = EntryReader()  # for its parse alone
    while (hit := data.rfind(_NEEDLE, 0, end)) >= 0:
        start = data.rfind(b"\n", 0, hit) + 1
        stop = data.find(b"\n", hit)
        entry = reader.parse(data[start : stop if stop >= 0 else len(data)])
        if entry is not None and _is_boundary(entry):
            return start if _starts_context(entry) else 0
        end = start
    return 0


def skim(tree: Tree, reader: EntryReader, data: bytes, start: int) -> None:
    """Reads `data[:start]`, the lines before the one `context_start` named, for `tree`'s
    facts.

    Every line is parsed until the first conversation entry (whose session id the tree
    keeps); after it, lines whose top-level type is known and not `assistant` are skipped.
    """
    tree.partial = True
    named = False
    view = memoryview(data)
    at = 0
    while at < start:
        end = data.find(b"\n", at, start)
        end = start if end < 0 else end
        if end > at and not (named and _plain_kind(data, at, end)):
            entry = reader.parse(view[at:end])
            if entry is not None and _note(tree, entry):
                named = tree.session_id is not None
        at = end + 1


def _plain_kind(data: bytes, start: int, end: int) -> bool:
    """Whether the line's top-level `type` comes before any nested object and is not
    `assistant`.

    A `"type":"` that no `{` but the line's own precedes cannot be inside a nested value,
    nor inside a string, whose quotes would be escaped. A name written with escapes is left
    for the parser to read.
    """
    head = min(end, start + 1024)
    nested = data.find(b"{", start + 1, head)
    at = data.find(_TYPE, start, head if nested < 0 else nested)
    if at < 0:
        return False
    value = at + len(_TYPE)
    if data.startswith(_PLAIN_KINDS, value, head):  # the usual names: no need to look closer
        return True
    close = data.find(b'"', value, head)
    if close < 0 or data.find(b"\\", value, close) >= 0:  # an escaped name: parse it
        return False
    return data[value:close] != b"assistant"


def _note(tree: Tree, entry: Entry) -> bool:
    """Gives the tree an entry's running facts, as `make_node` and `Tree.add` would read them;
    True for a conversation entry with a uuid."""
    kind = entry.get("type")
    if kind not in CONVERSATION:
        return False
    msg_id = tokens = None
    if kind == "assistant":
        message = entry.get("message")
        message = message if isinstance(message, dict) else {}
        msg_id = _text(message.get("id"))
        tokens = usage_tokens(entry, message)[0]
    uuid = entry.get("uuid")
    is_message = type(uuid) is str and uuid != ""
    sidechain = entry.get("isSidechain") is True
    tree.note_skimmed(msg_id, is_message, sidechain, _text(entry.get("sessionId")), tokens)
    return is_message


def _text(value: object) -> str | None:
    return value if type(value) is str else None


def _is_boundary(entry: Entry) -> bool:
    return entry.get("type") == "system" and entry.get("subtype") == "compact_boundary"


def _starts_context(entry: Entry) -> bool:
    meta = entry.get("compactMetadata")
    keeps = isinstance(meta, dict) and (
        meta.get("preservedMessages") is not None or meta.get("preservedSegment") is not None
    )
    return entry.get("isSidechain") is not True and not keeps and entry.get("uuid") is not None
