"""The texts of a session's stops (each prompt, the assistant's text of its turn) and plain
word-count distances between them, read by the evaluation's probability and its probes."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import orjson

from evaluation.score import Prepared
from keepd.api import load_state
from keepd.core.tree import Branch, Scope
from keepd.core.words import content_words

_TAG = re.compile(r"<[^>]{1,40}>")
PROMPT_CHARS, REPLY_CHARS = 4000, 8000


def stop_texts(prepared: Prepared) -> tuple[list[str], list[str]]:
    """Each stop's prompt text and the assistant's text of its turn, tags left out."""
    entries, branch = branch_entries(prepared)
    ends = [*branch.stops[1:], len(branch.messages)]
    prompts, replies = [], []
    for start, end in zip(branch.stops, ends, strict=True):
        prompts.append(
            _TAG.sub(" ", _text(entries.get(branch.messages[start].uuid or "")))[:PROMPT_CHARS]
        )
        turn = branch.messages[start:end]
        said = [_text(entries.get(m.uuid or "")) for m in turn if m.kind == "assistant"]
        replies.append(" ".join(said)[:REPLY_CHARS])
    return prompts, replies


def branch_entries(prepared: Prepared) -> tuple[dict[str, Any], Branch]:
    """The session file's entries by uuid, and the branch keepd reads of it (its stops those
    of `prepared`)."""
    path = prepared.case.path
    entries: dict[str, Any] = {}
    for line in path.read_bytes().splitlines():
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("uuid"), str):
            entries[entry["uuid"]] = entry
    branch = load_state(path, Scope.WHOLE).branch()
    assert tuple(branch.messages[i].uuid for i in branch.stops) == prepared.uuids, path
    return entries, branch


def _text(entry: Any) -> str:
    message = entry.get("message") if isinstance(entry, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "\n".join(
        b["text"]
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


def word_distances(prompts: Sequence[str], replies: Sequence[str]) -> list[list[float]]:
    """From the second stop on, the word-count distance of each turn's text to the turn
    before's, and of each prompt to the turn before's text."""
    words_p = [Counter(content_words(text)) for text in prompts]
    words_r = [Counter(content_words(text)) for text in replies]
    return [
        [word_distance(words_r[k], words_r[k - 1]) for k in range(1, len(prompts))],
        [word_distance(words_p[k], words_r[k - 1]) for k in range(1, len(prompts))],
    ]


def word_distance(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(count * b[word] for word, count in a.items())
    norms = math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
    return 1.0 - dot / norms
