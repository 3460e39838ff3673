"""keepd's own summary of a dropped part, written without a model: its requests, the files it
touched, how each piece of it ended, and the words the kept part still borrows from it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import PurePath
from typing import Any

import orjson

from keepd.core.analysis import Analysis
from keepd.cut.load import Loaded
from keepd.report.instructions import group_text, short, word_groups

PROMPTS_SHOWN = 40
FILES_SHOWN = 25
EARLIER_SUMMARY_CHARS = 4000
ENDING_CHARS = 500
CHANGING_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_PATH_KEYS = ("file_path", "notebook_path")


def analysis_at(loaded: Loaded, index: int) -> Analysis:
    """The analysis with its blocks and borrowed words measured at message `index`."""
    from keepd.core.analysis import guidance_at

    base = loaded.analysis
    stop = next((s for s in base.stops if s.index == index), None)
    blocks, words = guidance_at(loaded.state, index)
    pick = stop.uuid if stop else None
    return replace(base, pick=pick, trade=[], blocks=blocks, borrowed_words=words)


def gist(loaded: Loaded, end: int) -> str:
    """The extractive summary of messages 0..end-1 of the context."""
    at = analysis_at(loaded, end)
    parts = [
        "(keepd's extractive gist: no model wrote this. It quotes the earlier requests, lists "
        "the files they touched and how each piece of the work ended.)",
        *_earlier_summaries(loaded, range(end)),
        _requests(loaded, range(end)),
        _files(loaded, range(end)),
        _endings(loaded, at),
        _words(at),
    ]
    return "\n\n".join(part for part in parts if part)


def notes(loaded: Loaded, dropped: list[int]) -> str:
    """A short notes message for a prune: the left-out turns' requests and files."""
    parts = [
        "(keepd pruned this conversation: some earlier turns were left out of the context. "
        "Notes on them, without a model:)",
        _requests(loaded, dropped, title="Requests of the turns left out"),
        _files(loaded, dropped),
    ]
    return "\n\n".join(part for part in parts if part)


def _earlier_summaries(loaded: Loaded, indexes: Iterable[int]) -> list[str]:
    found = []
    for i in indexes:
        if loaded.branch.messages[i].is_compact_summary:
            text = " ".join(_texts(loaded.entry(i).blocks))
            cut = text[:EARLIER_SUMMARY_CHARS] + ("…" if len(text) > EARLIER_SUMMARY_CHARS else "")
            found.append(f"An earlier summary (message {i}) said:\n{cut}")
    return found


def _requests(loaded: Loaded, indexes: Iterable[int], title: str = "Earlier requests") -> str:
    prompts = [(i, node.quote) for i in indexes if (node := loaded.branch.messages[i]).is_prompt]
    if not prompts:
        return ""
    shown = prompts
    if len(prompts) > PROMPTS_SHOWN:
        head = PROMPTS_SHOWN // 4
        shown = [*prompts[:head], (-1, ""), *prompts[head - PROMPTS_SHOWN :]]
    more = f"- … {len(prompts) - PROMPTS_SHOWN} more …"
    lines = [f"- message {i}: “{short(quote, 240)}”" if i >= 0 else more for i, quote in shown]
    return f"{title}, in order:\n" + "\n".join(lines)


def _files(loaded: Loaded, indexes: Iterable[int]) -> str:
    changed: dict[str, None] = {}
    read: dict[str, None] = {}
    for i in indexes:
        for block in loaded.entry(i).blocks:
            path = _tool_path(block)
            if path is None:
                continue
            target = changed if block.get("name") in CHANGING_TOOLS else read
            target[_relative(path, loaded.analysis.project)] = None
    read = {path: None for path in read if path not in changed}
    groups = (("changed", changed), ("read", read))
    lines = [f"- {verb}: {_listed(paths)}" for verb, paths in groups if paths]
    return "Files touched:\n" + "\n".join(lines) if changed or read else ""


def _tool_path(block: dict[str, Any]) -> str | None:
    if block.get("type") != "tool_use" or not isinstance(block.get("input"), dict):
        return None
    arguments = block["input"]
    return next((v for k in _PATH_KEYS if isinstance(v := arguments.get(k), str) and v), None)


def _relative(path: str, project: str | None) -> str:
    if project and path.startswith(project.rstrip("/") + "/"):
        return str(PurePath(path).relative_to(project))
    return path


def _listed(paths: dict[str, None]) -> str:
    names = list(paths)
    more = len(names) - FILES_SHOWN
    return ", ".join(names[:FILES_SHOWN]) + (f" and {more} more" if more > 0 else "")


def _endings(loaded: Loaded, at: Analysis) -> str:
    lines = []
    for block in at.blocks:
        where = f"messages {block.first}-{block.last}"
        if block.side_trip:
            lines.append(f"- {where}: a side trip; nothing kept refers back to it")
            continue
        reply = _last_reply(loaded, block.first, block.last)
        if reply:
            lines.append(f"- {where} ended with: “{short(reply, ENDING_CHARS)}”")
    return "How each piece of the work ended:\n" + "\n".join(lines) if lines else ""


def _last_reply(loaded: Loaded, first: int, last: int) -> str:
    for i in range(last, first - 1, -1):
        raw = loaded.entry(i)
        if raw.kind == "assistant" and (text := " ".join(_texts(raw.blocks)).strip()):
            return text
    return ""


def _words(at: Analysis) -> str:
    if not at.borrowed_words:
        return ""
    lines = [group_text(turn, words) for turn, words in word_groups(at)]
    return "Words the kept part still uses from here (uses; where they came from):\n" + "\n".join(
        lines
    )


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    return [b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)]


def transcript(loaded: Loaded, indexes: Iterable[int], budget: int = 200_000) -> str:
    """The messages as plain text for a summarizer, tool traffic cut short, within `budget`."""
    lines = [line for i in indexes for line in _rendered(loaded, i)]
    total = sum(len(line) + 1 for line in lines)
    if total <= budget:
        return "\n".join(lines)
    head, tail, room = [], [], budget // 4
    for line in lines:
        if room - len(line) < 0:
            break
        head.append(line)
        room -= len(line) + 1
    room = budget - budget // 4
    for line in reversed(lines[len(head) :]):
        if room - len(line) < 0:
            break
        tail.append(line)
        room -= len(line) + 1
    return "\n".join([*head, "[… the middle is left out for length …]", *reversed(tail)])


def _rendered(loaded: Loaded, i: int) -> list[str]:
    raw = loaded.entry(i)
    who = "Assistant" if raw.kind == "assistant" else "User"
    out = []
    for block in raw.blocks:
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            out.append(f"[{i}] {who}: {block['text']}")
        elif kind == "tool_use":
            arguments = orjson.dumps(block.get("input")).decode()
            out.append(f"[{i}] Assistant calls {block.get('name')}: {short(arguments, 400)}")
        elif kind == "tool_result":
            out.append(f"[{i}] Tool result: {short(_result_text(block.get('content')), 400)}")
    return out


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(_texts([b for b in content if isinstance(b, dict)]))
    return ""
