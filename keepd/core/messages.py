"""Turns one entry into a slim node: its links, whether the picker lists it, its words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from sys import intern
from typing import Any

from keepd.core.content import (
    as_text,
    blocks_of,
    cut,
    edit_change,
    joined,
    text_length,
    text_or_none,
)
from keepd.core.cues import message_marks, named_numbers, prompt_marks
from keepd.core.entries import Entry
from keepd.core.listed import is_prompt
from keepd.core.quote import QUOTE_CHARS, raw, shown
from keepd.core.words import content_words

CONVERSATION = frozenset({"user", "assistant"})
# 2.1.332 keeps the system reminders it puts before the model with the attachment that caused
# them (`rendered`). Most are Claude Code's own and the same in every session (environment,
# date, model, skill and agent listings, tool lists, prompt snapshots, plan-mode and to-do
# reminders, hook output): counting them would make every part of every session "borrow"
# them. Files re-read for the model after a compaction (`file`, `already_read_file`) are tool
# results in another form, which the measure leaves out too. What the person typed or
# pointed at while Claude worked is their own work, and counts as prompt text: a message
# queued mid-turn, lines selected in the IDE, a file they edited themselves.
PERSONS_ATTACHMENTS = frozenset({"queued_command", "selected_lines_in_ide", "edited_text_file"})
CATEGORIES = ("prompt", "reply", "tool_call", "tool_result", "thinking", "injected")
IMAGE_TOKENS = 1600
# The tools whose changes Claude Code's file history tracks: after a call of one, the rewind
# menu of every earlier stop offers to restore code (core/steps.py, tests/claude/test_menu.py).
# A file changed by a Bash command is not tracked.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOL = "Read"  # with EDIT_TOOLS, what puts a file in the client's read-file state


@dataclass(frozen=True, slots=True)
class TextPolicy:
    """Which text counts toward the measure (see README, "What counts")."""

    counted: frozenset[str] = frozenset({"prompt", "reply", "tool_call", "injected"})
    block_cap: int = 4000


DEFAULT_POLICY = TextPolicy()


@dataclass(slots=True)
class Boundary:
    """A compact boundary's instructions for rebuilding the context."""

    anchor: str | None
    preserved: list[str] | None
    segment: tuple[str, str] | None  # (head, tail) of a preserved segment
    post_tokens: int | None = None
    pre_tokens: int | None = None  # the context when it compacted
    automatic: bool = False  # Claude Code compacted by itself (`trigger: auto`)


@dataclass(slots=True)
class Node:
    """What keepd keeps of one entry: links, flags, size, and the words it uses."""

    pos: int
    kind: str
    uuid: str | None = None
    parent: str | None = None
    logical_parent: str | None = None
    sidechain: bool = False
    msg_id: str | None = None
    is_prompt: bool = False
    is_compact_summary: bool = False
    meta: bool = False  # a user entry Claude Code marked isMeta (core/parallel.py)
    boundary: Boundary | None = None
    context_tokens: int | None = None
    output_tokens: int = 0
    chars: int = 0
    images: int = 0
    timestamp: str = ""
    session_id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None  # a prompt's (core/events.py)
    model: str | None = None  # the model that wrote a reply (`message.model`)
    quote: str = ""  # as the rewind picker shows it (core/quote.py)
    raw_quote: str = ""  # the same text, tags and all
    tool_results: tuple[str, ...] = ()  # ids of the tool calls this message answers
    tool_calls: tuple[str, ...] = ()  # ids of the tool calls this message makes
    words: Sequence[str] = ()
    text: str = ""  # counted text not yet split into words
    marks: int = 0  # what its tool calls or prompt say about work (core/cues.py)
    files: tuple[str, ...] = ()  # files its tool calls touch
    numbers: tuple[str, ...] = ()  # issue and pull request numbers a prompt names
    edits: bool = False  # one of its tool calls changes a file Claude Code tracks (EDIT_TOOLS)
    # (call id, tool, path, chars): its Read and edit calls, with what each says of the file's
    # length (a Write's content, an edit's change; a Read's is its result's)
    file_calls: tuple[tuple[str, str, str, int], ...] = ()

    def take_words(self) -> Sequence[str]:
        """The content words, split from the counted text the first time they are needed.

        Splitting waits until the message enters an index, so the messages a scope never
        reaches (before a compaction, on abandoned branches) are never tokenized. An index
        that splits a batch of messages at once (core/wordkeys.py) leaves the text in place.
        """
        if self.text:
            self.words = content_words(self.text)
            self.text = ""
        return self.words

    @property
    def is_message(self) -> bool:
        """A conversation entry, or a prompt queued while Claude worked (the picker lists it)."""
        return self.kind in CONVERSATION or self.is_prompt

    @property
    def estimated_tokens(self) -> float:
        return self.chars / 4 + self.images * IMAGE_TOKENS


def make_node(entry: Entry, pos: int, policy: TextPolicy = DEFAULT_POLICY) -> Node:
    """The node of `entry`, the `pos`-th entry of its file."""
    get = entry.get
    kind = kind_of(entry)
    uuid, parent, logical = get("uuid"), get("parentUuid"), get("logicalParentUuid")
    node = Node(
        pos,
        "unknown" if kind is None else intern(kind),  # one "user", not one a node
        intern(uuid) if type(uuid) is str else None,
        intern(parent) if type(parent) is str else None,
        logical if type(logical) is str else None,
        get("isSidechain") is True,
    )
    if kind in CONVERSATION:
        timestamp, session_id, cwd = get("timestamp"), get("sessionId"), get("cwd")
        node.timestamp = timestamp if type(timestamp) is str else ""
        node.session_id = intern(session_id) if type(session_id) is str else None
        node.cwd = intern(cwd) if type(cwd) is str else None
        _fill_message(node, entry, policy)
    elif kind == "system" and get("subtype") == "compact_boundary":
        node.boundary = _boundary(entry)
    elif kind == "attachment" and is_queued_prompt(entry):
        _fill_queued_prompt(node, entry, policy)
    elif kind == "attachment" and "prompt" in policy.counted:
        _fill_attachment(node, entry, policy)
    return node


def kind_of(entry: Entry) -> str | None:
    """An entry's `type` if it is a string: a list there would break every set lookup."""
    kind = entry.get("type")
    return kind if type(kind) is str else None


def is_queued_prompt(entry: Entry) -> bool:
    """Whether `entry` is a prompt the person queued while Claude worked, which 2.1.332's
    rewind picker lists as a row of its own (tests/claude/test_picker.py)."""
    attached = entry.get("attachment")
    if type(attached) is not dict or entry.get("isSidechain") is True:
        return False
    origin = attached.get("origin")
    typed = attached.get("type") == "queued_command" and attached.get("commandMode") == "prompt"
    human = type(origin) is dict and origin.get("kind") == "human"
    return typed and human and attached.get("isMeta") is not True


def _fill_queued_prompt(node: Node, entry: Entry, policy: TextPolicy) -> None:
    """A queued prompt is a stop: its text counts as prompt text of its own, its quote is
    the first line of what was queued, as for a typed prompt."""
    get = entry.get
    node.timestamp = text_or_none(get("timestamp")) or ""
    node.session_id = _interned(get("sessionId"))
    node.cwd = _interned(get("cwd"))
    node.git_branch = _interned(get("gitBranch"))
    node.is_prompt = True
    attached = get("attachment")
    blocks = blocks_of(attached.get("prompt") if type(attached) is dict else None)
    count_blocks(node, blocks, "prompt", policy)
    mark_prompt(node, blocks)


def _fill_attachment(node: Node, entry: Entry, policy: TextPolicy) -> None:
    """The counted text of an attachment that is the person's own (`PERSONS_ATTACHMENTS`); the
    tree hands it to the next message on the chain (`Tree.add`)."""
    attached, rendered = entry.get("attachment"), entry.get("rendered")
    if type(rendered) is not list or type(attached) is not dict:
        return
    if kind_of(attached) not in PERSONS_ATTACHMENTS:
        return
    texts = [
        _REMINDER.sub(" ", item["content"])
        for item in rendered
        if type(item) is dict and type(item.get("content")) is str
    ]
    text = " ".join(texts)
    node.chars = len(text)
    node.text = text[: policy.block_cap]


_REMINDER = re.compile(r"</?system-reminder>")


def _interned(value: Any) -> str | None:
    """Strings repeated across lines (ids, parents, folders) are stored once per process."""
    return intern(value) if type(value) is str else None


def _boundary(entry: Entry) -> Boundary:
    meta = entry.get("compactMetadata")
    meta = meta if isinstance(meta, dict) else {}
    kept = meta.get("preservedMessages")
    segment = meta.get("preservedSegment")
    anchor = None
    preserved = None
    span = None
    if isinstance(kept, dict):
        anchor = text_or_none(kept.get("anchorUuid"))
        uuids = kept.get("uuids")
        preserved = [u for u in uuids if isinstance(u, str)] if isinstance(uuids, list) else []
    elif isinstance(segment, dict):
        anchor = text_or_none(segment.get("anchorUuid"))
        head, tail = text_or_none(segment.get("headUuid")), text_or_none(segment.get("tailUuid"))
        span = (head, tail) if head and tail else None
    post, pre = meta.get("postTokens"), meta.get("preTokens")
    return Boundary(
        anchor=anchor,
        preserved=preserved,
        segment=span,
        post_tokens=post if type(post) is int else None,
        pre_tokens=pre if type(pre) is int else None,
        automatic=meta.get("trigger") == "auto",
    )


def _fill_message(node: Node, entry: Entry, policy: TextPolicy) -> None:
    message = entry.get("message")
    message = message if isinstance(message, dict) else {}
    blocks = blocks_of(message.get("content"))
    if node.kind == "assistant":
        category = "reply"
    elif entry.get("isMeta") is True:
        node.meta = True
        category = "injected"
    elif entry.get("isCompactSummary") is True:
        category = "injected"
    else:
        category = "prompt"
    count_blocks(node, blocks, category, policy)
    if node.kind == "assistant":
        _fill_assistant(node, entry, message)
    else:
        node.is_compact_summary = entry.get("isCompactSummary") is True
        node.is_prompt = is_prompt(entry, blocks)
        if node.is_prompt:
            node.git_branch = _interned(entry.get("gitBranch"))  # events compare stops only
            mark_prompt(node, blocks)


def count_blocks(
    node: Node, blocks: list[dict[str, Any]], text_category: str, policy: TextPolicy
) -> None:
    """Adds each block's size, ids and counted text to its message's node.

    The node itself is the tally, and the blocks are read in this one loop: most messages
    hold a single block, and a collector object or a call for each block was measurably
    slower.
    """
    counts, cap = policy.counted, policy.block_cap
    counted: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_use":
            _call(node, block)
            category, value = "tool_call", block.get("input")
        elif kind == "tool_result":
            node.tool_results += (as_text(block.get("tool_use_id")),)
            category, value = "tool_result", block.get("content")
        elif kind == "text":
            category, value = text_category, block.get("text")
        elif kind == "thinking":
            category, value = "thinking", block.get("thinking")
        else:
            if kind == "image":
                node.images += 1
            continue
        if category in counts:
            text = value if type(value) is str else joined(value)
            node.chars += len(text)
            counted.append(text[:cap])
        else:
            node.chars += text_length(value)
    if counted:
        node.text = " ".join(counted)


def _call(node: Node, block: dict[str, Any]) -> None:
    """A tool call's id, its marks (core/cues.py), the files it touches and how."""
    node.tool_calls += (as_text(block.get("id")),)
    name, value = block.get("name"), block.get("input")
    marks, files = message_marks(name, value)
    node.marks |= marks
    if name in EDIT_TOOLS:
        node.edits = True
    if files and (name in EDIT_TOOLS or name == READ_TOOL):
        call = (as_text(block.get("id")), as_text(name), files[0], edit_change(name, value))
        node.file_calls += (call,)
    if files:
        node.files += files


def mark_prompt(node: Node, blocks: list[dict[str, Any]]) -> None:
    """A prompt's quote (core/quote.py) and cues (core/cues.py), from its text up to the
    quote's reading cap."""
    texts = _texts(blocks)
    node.quote, node.raw_quote = shown(texts), raw(texts)
    text = " ".join(
        cut(block.get("text"), QUOTE_CHARS * 16) for block in blocks if block.get("type") == "text"
    )
    node.marks = prompt_marks(text)
    node.numbers = named_numbers(text)


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    """A prompt's text blocks, each cut to what a quote can use."""
    return [
        cut(block.get("text"), QUOTE_CHARS * 4) for block in blocks if block.get("type") == "text"
    ]


def _fill_assistant(node: Node, entry: Entry, message: dict[str, Any]) -> None:
    node.msg_id = text_or_none(message.get("id"))
    node.context_tokens, node.output_tokens = usage_tokens(entry, message)
    if node.context_tokens is not None:  # a real response: its model is the session's
        node.model = _interned(message.get("model"))


def usage_tokens(entry: Entry, message: dict[str, Any]) -> tuple[int | None, int]:
    """The context an API response saw (its fresh, cache-written and cache-read input
    tokens) and its output tokens; (None, 0) for a synthetic response or an API error."""
    usage = message.get("usage")
    if type(usage) is not dict or message.get("model") == "<synthetic>":
        return None, 0
    if entry.get("isApiErrorMessage") is True:
        return None, 0
    fresh = usage.get("input_tokens")
    written = usage.get("cache_creation_input_tokens")
    cached = usage.get("cache_read_input_tokens")
    context = None
    if isinstance(fresh, int) and isinstance(written, int) and isinstance(cached, int):
        context = fresh + written + cached
    output = usage.get("output_tokens")
    return context, output if isinstance(output, int) else 0
