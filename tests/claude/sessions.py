"""Sessions for the real Claude Code to resume: corpus files and made ones, placed in a world.

Claude Code finds `--resume ID` in `projects/<mangled cwd>/ID.jsonl`; placing a session rewrites
its `sessionId` and `cwd` to the world's and turns the builders' short ids into real UUIDs (the
client expects them), leaving everything else as it was.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.claude.client import World
from tests.unit.builders import Chain

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_NS = uuid.UUID("6c1b6b0e-3c55-4f57-9c43-5d6f3c1e0b11")
_LINKS = ("uuid", "parentUuid", "logicalParentUuid", "sourceToolAssistantUUID", "leafUuid")
TOPICS = (
    "parser tokens grammar lexer precedence recursion ast nodes",
    "database migration schema index columns postgres rollback",
    "frontend css layout flexbox buttons colors responsive theme",
    "deployment docker kubernetes pods ingress helm secrets",
)


def real_uuid(value: str) -> str:
    return value if _UUID.match(value) else str(uuid.uuid5(_NS, value))


def _relink(value: Any) -> Any:
    if isinstance(value, str):
        return real_uuid(value)
    if isinstance(value, list):
        return [_relink(item) for item in value]
    if isinstance(value, dict):
        return {key: _relink(item) for key, item in value.items()}
    return value


def _placed(entry: dict[str, Any], session_id: str, cwd: str) -> dict[str, Any]:
    for key in _LINKS:
        if isinstance(entry.get(key), str):
            entry[key] = real_uuid(entry[key])
    meta = entry.get("compactMetadata")
    if isinstance(meta, dict):
        for key in ("preservedMessages", "preservedSegment"):
            if isinstance(meta.get(key), dict):
                meta[key] = _relink(meta[key])
    if "sessionId" in entry:
        entry["sessionId"] = session_id
    if "cwd" in entry:
        entry["cwd"] = cwd
    return entry


def place(world: World, lines: Iterable[bytes], session_id: str | None = None) -> str:
    """Writes the session's lines into the world's project folder; its new session id."""
    session_id = session_id or str(uuid.uuid4())
    out: list[bytes] = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except ValueError:
            out.append(raw.rstrip(b"\n"))
            continue
        if isinstance(entry, dict):
            entry = _placed(entry, session_id, str(world.cwd))
        out.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode())
    world.transcript(session_id).write_bytes(b"\n".join(out) + b"\n")
    return session_id


def place_file(world: World, source: Path) -> str:
    with source.open("rb") as handle:
        return place(world, handle)


def made(prompts: int, *, tokens_per_turn: int = 2_400) -> Chain:
    """A session of `prompts` plain prompts in four topics, each answered, context growing."""
    chain = Chain(prefix="m")
    for number in range(prompts):
        topic = TOPICS[number * len(TOPICS) // max(prompts, 1)]
        chain.turn(
            f"Prompt {number + 1}: about {topic}, part {number + 1}",
            f"Answer {number + 1}: " + " ".join([topic] * 8),
            context=20_000 + tokens_per_turn * (number + 1),
        )
    return chain


def place_chain(world: World, chain: Chain) -> str:
    return place(world, chain.jsonl().splitlines())
