"""Reads a line straight into the few fields keepd keeps (msgspec), or declines it for the
dict path (`entries.EntryReader.parse_lean` and `messages.make_node`), which gives the same node.

A line is decoded into structs that declare only the fields `make_node` reads, each with the
type it accepts, so the rest of the line (a tool result's copy, a response's bookkeeping) is
passed over without building anything. A field of another type fails the decode, as does a
line that is not a JSON object: such a line is declined and read as before, and so is an
attachment's or a compact boundary's, whose nodes read more. A message's content is
decoded too, as a string or a list of objects (what `blocks_of` keeps whole; any other shape
is declined), into the values orjson gives: where they can differ, a node reads them as
orjson's (`content.as_text`: an integer past 64 bits is a float to orjson), or the line is
declined (msgspec nests less deep, even in a value it passes over). One difference is left:
msgspec checks neither the bytes of a value it passes over nor an integer's size, so a line
whose unread field holds invalid UTF-8 or a number past a float's range, or whose content
holds such an integer, which orjson refuses whole, is read (as the lean parse already reads
one whose `toolUseResult` holds them).

>>> node = typed_node(b'{"type":"user","uuid":"u","message":{"content":"hi"}}', 0)
>>> node is not None and (node.kind, node.uuid, node.is_prompt, node.text)
('user', 'u', True, 'hi')
>>> typed_node(b'{"type":"user","uuid":7}', 0) is None  # not a string: the dict path's
True
"""

from __future__ import annotations

from collections.abc import Callable
from sys import intern
from typing import Annotated, Any

import msgspec

from keepd.core.content import blocks_of
from keepd.core.entries import Entry, Line
from keepd.core.listed import shows_prompt
from keepd.core.messages import (
    CONVERSATION,
    DEFAULT_POLICY,
    Node,
    TextPolicy,
    count_blocks,
    make_node,
    mark_prompt,
)

# Integers orjson reads as such (it reads those past 64 bits as floats, which no count takes);
# those between 2**63 and 2**64 are left to the dict path, msgspec's bounds stopping at 64 bits.
_Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Usage(msgspec.Struct):
    input_tokens: _Int | None = None
    cache_creation_input_tokens: _Int | None = None
    cache_read_input_tokens: _Int | None = None
    output_tokens: _Int | None = None


class _Reply(msgspec.Struct):
    """What the skim reads of a message: a response's id, model and usage."""

    id: str | None = None
    model: str | None = None
    usage: _Usage | None = None


class _Message(_Reply):
    """What a node reads of a message: the skim's fields and the content, in the shapes
    `blocks_of` keeps whole (another shape, a list holding a non-object, is declined)."""

    content: str | list[dict[str, Any]] | None = None


class _Entry(msgspec.Struct):
    type: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None
    logicalParentUuid: str | None = None
    isSidechain: bool | None = None
    timestamp: str | None = None
    sessionId: str | None = None
    cwd: str | None = None
    gitBranch: str | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    isVisibleInTranscriptOnly: bool | None = None
    isApiErrorMessage: bool | None = None
    subtype: str | None = None
    message: _Message | None = None


_decode = msgspec.json.Decoder(_Entry).decode


def typed_node(line: Line, pos: int, policy: TextPolicy = DEFAULT_POLICY) -> Node | None:
    """The node `make_node` makes of the entry on `line` (the `pos`-th of its file), or None
    when the line is not one this reader takes: read it through the dict path then."""
    try:
        entry = _decode(line)
    except (msgspec.DecodeError, RecursionError):  # it nests less deep than orjson
        return None
    kind = entry.type
    if kind == "attachment" or (kind == "system" and entry.subtype == "compact_boundary"):
        return None  # their nodes read more than the struct holds: the dict path makes them
    uuid, parent = entry.uuid, entry.parentUuid
    node = Node(
        pos,
        "unknown" if kind is None else intern(kind),
        None if uuid is None else intern(uuid),
        None if parent is None else intern(parent),
        entry.logicalParentUuid,
        entry.isSidechain is True,
    )
    if kind in CONVERSATION:
        _fill(node, entry, policy)
    return node


def _fill(node: Node, entry: _Entry, policy: TextPolicy) -> None:
    """`make_node`'s reading of a message."""
    message = entry.message
    content = None if message is None else message.content
    blocks = content if type(content) is list else blocks_of(content)
    timestamp, session_id, cwd = entry.timestamp, entry.sessionId, entry.cwd
    node.timestamp = "" if timestamp is None else timestamp
    node.session_id = None if session_id is None else intern(session_id)
    node.cwd = None if cwd is None else intern(cwd)
    if node.kind == "assistant":
        count_blocks(node, blocks, "reply", policy)
        if message is not None:
            _fill_reply(node, entry, message)
        return
    meta, summary = entry.isMeta is True, entry.isCompactSummary is True
    node.meta = meta
    count_blocks(node, blocks, "injected" if meta or summary else "prompt", policy)
    node.is_compact_summary = summary
    hidden = meta or summary or entry.isVisibleInTranscriptOnly is True
    node.is_prompt = not (hidden or node.sidechain) and shows_prompt(blocks)
    if node.is_prompt:
        branch = entry.gitBranch
        node.git_branch = None if branch is None else intern(branch)
        mark_prompt(node, blocks)


def _fill_reply(node: Node, entry: _Entry, message: _Message) -> None:
    """A response's id, its usage and its model."""
    node.msg_id = message.id
    node.context_tokens, node.output_tokens = _usage(entry.isApiErrorMessage, message)
    if node.context_tokens is not None:
        model = message.model
        node.model = None if model is None else intern(model)


def _usage(error: bool | None, message: _Reply) -> tuple[int | None, int]:
    """`messages.usage_tokens`: the context a response saw and its output tokens."""
    usage = message.usage
    if usage is None or message.model == "<synthetic>" or error is True:
        return None, 0
    fresh, written = usage.input_tokens, usage.cache_creation_input_tokens
    cached = usage.cache_read_input_tokens
    context = None
    if fresh is not None and written is not None and cached is not None:
        context = fresh + written + cached
    return context, usage.output_tokens or 0


class _Facts(msgspec.Struct):
    type: str | None = None
    uuid: str | None = None
    isSidechain: bool | None = None
    sessionId: str | None = None
    isApiErrorMessage: bool | None = None
    message: _Reply | None = None


_decode_facts = msgspec.json.Decoder(_Facts).decode
# (response id, is a message, on a sidechain, session id, context tokens, model)
Facts = tuple[str | None, bool, bool, str | None, int | None, str | None]
NO_FACTS: Facts = (None, False, False, None, None, None)  # an entry that is no message


def skimmed_facts(line: Line) -> Facts | None:
    """What `skim._note` reads of the entry on `line` for `Tree.note_skimmed`, its content
    passed over; None when the line is not one this reader takes."""
    try:
        entry = _decode_facts(line)
    except (msgspec.DecodeError, RecursionError):
        return None
    kind = entry.type
    if kind not in CONVERSATION:
        return NO_FACTS
    msg_id = tokens = model = None
    message = entry.message
    if kind == "assistant" and message is not None:
        msg_id = message.id
        tokens = _usage(entry.isApiErrorMessage, message)[0]
        model = message.model
    uuid = entry.uuid
    is_message = uuid is not None and uuid != ""
    return msg_id, is_message, entry.isSidechain is True, entry.sessionId, tokens, model


def node_of(
    line: Line, pos: int, policy: TextPolicy, parse: Callable[[Line], Entry | None]
) -> Node | None:
    """The node of `line` by the typed reader, else by `parse` (a dict or None) and
    `make_node`; None for a line that holds no entry."""
    node = typed_node(line, pos, policy)
    if node is not None:
        return node
    entry = parse(line)
    return None if entry is None else make_node(entry, pos, policy)
