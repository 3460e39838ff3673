"""Small session fixtures for the unit tests: entry dicts shaped like Claude Code's, and JSONL.

Functions build one entry each with explicit links; `Chain` builds a linear conversation,
giving each entry a uuid and the previous entry as its parent unless told otherwise.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

from keepd.core.messages import Node, make_node
from keepd.core.tree import Tree

Entry = dict[str, Any]
Block = dict[str, Any]
Content = str | list[Block]

SESSION_ID = "sess-0001"
CWD = "/home/dev/project"
MODEL = "claude-opus-4-5"
SUMMARY_TEXT = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The conversation is summarized below: the user asked for a parser."
)


def _base(kind: str, uuid: str | None, parent: str | None, extra: dict[str, Any]) -> Entry:
    entry: Entry = {"type": kind}
    if uuid is not None:
        entry["uuid"] = uuid
    entry["parentUuid"] = parent
    entry.update(
        {
            "isSidechain": False,
            "sessionId": SESSION_ID,
            "cwd": CWD,
            "version": "2.1.100",
            "userType": "external",
            "timestamp": "2025-06-01T12:00:00.000Z",
        }
    )
    entry.update(extra)
    return entry


# Content blocks


def text(value: str) -> Block:
    return {"type": "text", "text": value}


def image() -> Block:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
    }


def thinking(value: str) -> Block:
    return {"type": "thinking", "thinking": value, "signature": "c2lnbmF0dXJl"}


def tool_use_block(tool_id: str, name: str = "Bash", **arguments: Any) -> Block:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": dict(arguments)}


def tool_result_block(tool_use_id: str, content: Any = "ok", *, is_error: bool = False) -> Block:
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": content,
        "is_error": is_error,
    }


def usage(
    input_tokens: int,
    cache_creation: int = 0,
    cache_read: int = 0,
    output: int = 0,
) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation,
        "cache_read_input_tokens": cache_read,
        "output_tokens": output,
    }


# Entries


def user(uuid: str, parent: str | None, content: Content, **extra: Any) -> Entry:
    """A `user` entry (a prompt unless its content or flags say otherwise)."""
    return _base("user", uuid, parent, {"message": {"role": "user", "content": content}, **extra})


def assistant(
    uuid: str,
    parent: str | None,
    content: Content,
    *,
    msg_id: str,
    usage_: dict[str, int] | None = None,
    model: str = MODEL,
    **extra: Any,
) -> Entry:
    """One line of an API response (a response spans several lines sharing `msg_id`)."""
    if isinstance(content, str):
        content = [text(content)]
    message: dict[str, Any] = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
    }
    if usage_ is not None:
        message["usage"] = usage_
    return _base("assistant", uuid, parent, {"message": message, **extra})


def tool_result(uuid: str, parent: str, tool_use_id: str, content: Any = "ok") -> Entry:
    """The user entry carrying one tool's result; its parent is the tool call's line."""
    return user(
        uuid,
        parent,
        [tool_result_block(tool_use_id, content)],
        toolUseResult={"stdout": "ok"},
        sourceToolAssistantUUID=parent,
    )


def system(uuid: str, parent: str | None, subtype: str | None = None, **extra: Any) -> Entry:
    fields: dict[str, Any] = {"content": "", "level": "info", **extra}
    if subtype is not None:
        fields["subtype"] = subtype
    return _base("system", uuid, parent, fields)


def progress(uuid: str, parent: str | None) -> Entry:
    return _base(
        "progress",
        uuid,
        parent,
        {"data": {"type": "hook_progress", "hookEvent": "PostToolUse"}, "toolUseID": "toolu_x"},
    )


def compact_boundary(
    uuid: str,
    logical_parent: str | None,
    *,
    pre_tokens: int = 160_000,
    post_tokens: int | None = None,
    preserved: tuple[str, Sequence[str]] | None = None,
    segment: tuple[str, str, str] | None = None,
    trigger: str = "auto",
) -> Entry:
    """A `compact_boundary`: `preserved` is (anchorUuid, uuids), `segment` (head, anchor, tail)."""
    meta: dict[str, Any] = {"trigger": trigger, "preTokens": pre_tokens}
    if post_tokens is not None:
        meta["postTokens"] = post_tokens
    if preserved is not None:
        anchor, uuids = preserved
        meta["preservedMessages"] = {"anchorUuid": anchor, "uuids": list(uuids)}
    if segment is not None:
        head, anchor, tail = segment
        meta["preservedSegment"] = {"headUuid": head, "anchorUuid": anchor, "tailUuid": tail}
    return system(
        uuid,
        None,
        "compact_boundary",
        content="Conversation compacted",
        logicalParentUuid=logical_parent,
        compactMetadata=meta,
    )


def compact_summary(
    uuid: str, parent: str, body: str = SUMMARY_TEXT, *, full: bool = True
) -> Entry:
    """The summary after a boundary (full compaction also hides it from the model's view)."""
    flags: dict[str, Any] = {"isCompactSummary": True}
    if full:
        flags["isVisibleInTranscriptOnly"] = True
    return user(uuid, parent, body, **flags)


def attachment(
    uuid: str, parent: str, kind: str, rendered: str | None = None, **fields: Any
) -> Entry:
    """A 2.1.332 `attachment` line: its object written before its type, then the
    system-reminder text it put before the model (`rendered`), if any."""
    entry: Entry = {
        "parentUuid": parent,
        "isSidechain": False,
        "attachment": {"type": kind, **fields},
        "type": "attachment",
        "uuid": uuid,
        "timestamp": "2025-06-01T12:00:00.000Z",
    }
    if rendered is not None:
        entry["rendered"] = [{"content": f"<system-reminder>\n{rendered}\n</system-reminder>"}]
        entry["renderedRole"] = "system"
    return {**entry, "sessionId": SESSION_ID, "cwd": CWD, "version": "2.1.332"}


def bookkeeping(kind: str, **fields: Any) -> Entry:
    """A 2.1.332 line of a type its loader keeps off the conversation (`api-request`, ...)."""
    return {"type": kind, "sessionId": SESSION_ID, **fields}


def summarized_up_to(
    boundary: str, summary: str, before: str, kept: Sequence[str], body: str = SUMMARY_TEXT
) -> list[Entry]:
    """The lines Claude Code 2.1.332's "Summarize up to here" writes: a boundary that keeps
    `kept` (oldest first) after its summary, naming the entry `before` them as its logical
    parent, and the summary, flagged `summarizeMetadata {direction: "up_to"}`."""
    cut = compact_boundary(
        boundary,
        before,
        preserved=(summary, kept),
        segment=(kept[0], summary, kept[-1]),
        trigger="manual",
    )
    cut["compactMetadata"]["preservedMessages"]["allUuids"] = list(kept)
    cut["compactMetadata"]["messagesSummarized"] = 10
    note = compact_summary(summary, boundary, body, full=False)
    note["summarizeMetadata"] = {"messagesSummarized": 10, "direction": "up_to"}
    return [cut, note]


def old_summary(leaf_uuid: str, body: str = "Parser work") -> Entry:
    """A 1.0.x `summary` line: no uuid, it only names a leaf."""
    return {"type": "summary", "summary": body, "leafUuid": leaf_uuid}


def sidechain(entry: Entry) -> Entry:
    """The same entry as a sub-agent's."""
    return {**entry, "isSidechain": True}


# Files, nodes, trees


def line(entry: Entry) -> bytes:
    """One compact JSON line, `type` first, with its newline."""
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def jsonl(entries: Iterable[Entry]) -> bytes:
    return b"".join(line(entry) for entry in entries)


def nodes_of(entries: Sequence[Entry]) -> list[Node]:
    return [make_node(entry, pos) for pos, entry in enumerate(entries)]


def tree_of(entries: Sequence[Entry]) -> Tree:
    tree = Tree()
    for node in nodes_of(entries):
        tree.add(node)
    return tree


class Chain:
    """A linear conversation under construction: each entry's parent is the previous one."""

    def __init__(self, prefix: str = "u") -> None:
        self.entries: list[Entry] = []
        self.prefix = prefix
        self.last: str | None = None
        self._count = 0
        self._responses = 0

    def _uuid(self) -> str:
        self._count += 1
        return f"{self.prefix}{self._count:03d}"

    def add(self, entry: Entry) -> str:
        self.entries.append(entry)
        if isinstance(entry.get("uuid"), str):
            self.last = entry["uuid"]
        return str(entry.get("uuid"))

    def prompt(self, content: Content, **extra: Any) -> str:
        return self.add(user(self._uuid(), self.last, content, **extra))

    def reply(self, content: Content, *, context: int | None = None, **extra: Any) -> str:
        self._responses += 1
        tokens = usage(context, output=50) if context is not None else None
        msg_id = f"msg_{self.prefix}{self._responses:03d}"
        return self.add(
            assistant(self._uuid(), self.last, content, msg_id=msg_id, usage_=tokens, **extra)
        )

    def tool_call(self, command: str, result: str, *, context: int | None = None) -> str:
        """An assistant tool call and its result; returns the result's uuid."""
        tool_id = f"toolu_{self.prefix}{self._count + 1:03d}"
        self.reply([tool_use_block(tool_id, command=command)], context=context)
        call = self.last
        assert call is not None
        return self.add(tool_result(self._uuid(), call, tool_id, result))

    def turn(self, prompt: str, answer: str, *, context: int | None = None) -> str:
        """A prompt and its answer; returns the prompt's uuid."""
        asked = self.prompt(prompt)
        self.reply(answer, context=context)
        return asked

    def jsonl(self) -> bytes:
        return jsonl(self.entries)


def damaged(data: bytes, rng: random.Random, *, boundaries: bool = False) -> bytes:
    """A session file with a few lines dropped, written twice or cut short, as damaged files
    are; with `boundaries`, some stray compact boundaries (a sub-agent's among them) too."""
    lines = data.split(b"\n")
    for _ in range(rng.randint(1, 6)):
        k, op = rng.randrange(len(lines)), rng.random()
        if op < 0.3:
            lines.pop(k)
        elif op < 0.6:
            lines.insert(k, lines[rng.randrange(len(lines))])
        elif op < 0.85 or not boundaries:
            lines[k] = lines[k][: rng.randrange(len(lines[k]) + 1)]
        else:
            stray = compact_boundary(f"stray{k}", None)
            lines.insert(k, line(stray if rng.random() < 0.8 else sidechain(stray)).strip())
    return b"\n".join(lines)
