"""The registry names a compact boundary that appeared since a file was last read to its end:
appended, or written while the session was evicted; never an old one, however it is read."""

from __future__ import annotations

import uuid as uuidlib
from pathlib import Path

import orjson

from keepd.daemon.registry import Registry
from keepd.paths import example_session

LINES = example_session().read_bytes().splitlines(keepends=True)


def _boundary(parent: str) -> tuple[bytes, str]:
    uuid = str(uuidlib.uuid4())
    entry = {
        "type": "system",
        "parentUuid": None,
        "logicalParentUuid": parent,
        "subtype": "compact_boundary",
        "uuid": uuid,
        "compactMetadata": {"trigger": "auto", "preTokens": 1},
    }
    return orjson.dumps(entry) + b"\n", uuid


def _last_uuid(path: Path) -> str:
    return str(orjson.loads(path.read_bytes().splitlines()[-1])["uuid"])


def test_new_boundaries_are_named_once(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    path = root / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    old, _ = _boundary("x")
    path.write_bytes(b"".join(LINES[:40]) + old + b"".join(LINES[40:80]))
    registry = Registry(lambda: [root])
    assert registry.read(path, 1 << 20).boundary is None  # first read: an old boundary
    line, new = _boundary(_last_uuid(path))
    with path.open("ab") as handle:
        handle.write(line + LINES[80])
    assert registry.read(path, 1 << 20).boundary == new
    assert registry.read(path, 1 << 20).boundary is None
    registry.sessions[path].state = None  # evicted while idle
    line, newer = _boundary(_last_uuid(path))
    with path.open("ab") as handle:
        handle.write(line)
    assert registry.read(path, 1 << 20).boundary == newer  # read again from the start


def test_a_file_read_in_pieces_is_judged_at_its_end(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    path = root / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    first, _ = _boundary("x")
    second, _ = _boundary("y")
    path.write_bytes(first + b"".join(LINES[:100]) + second + b"".join(LINES[100:200]))
    registry = Registry(lambda: [root])
    results = []
    while True:
        result = registry.read(path, 4096)
        results.append(result.boundary)
        if not result.more:
            break
    assert len(results) > 10 and results == [None] * len(results)
