"""Helpers for the tests of cuts: session copies, what a file rebuilds, processes that hold it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from keepd.api import load_state
from keepd.core.tree import Scope
from keepd.cut.validate import PROBE_UUID, probe_line

HOUR = 3600.0


def quiet_copy(source: Path, target: Path) -> Path:
    """A copy of a session, last written an hour ago (so no "just written" refusal)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    age(target)
    return target


def age(path: Path, seconds: float = HOUR) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def context(path: Path) -> list[str]:
    """The uuids of the messages keepd's reader rebuilds from the file as it is."""
    state = load_state(path, Scope.CURRENT)
    return [node.uuid or "" for node in state.branch().messages]


def continued(path: Path, tail: str) -> list[str]:
    """The context once Claude Code appends the next turn under `tail` (the turn left out)."""
    state = load_state(path, Scope.CURRENT)
    state.feed(probe_line(tail, "probe"))
    uuids = [node.uuid or "" for node in state.branch().messages]
    assert uuids[-1] == PROBE_UUID
    return uuids[:-1]


def entries(data: bytes) -> list[dict[str, Any]]:
    found = []
    for line in data.split(b"\n"):
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def by_uuid(path: Path) -> dict[str, dict[str, Any]]:
    return {e["uuid"]: e for e in entries(path.read_bytes()) if isinstance(e.get("uuid"), str)}


def unpaired(path: Path, uuids: list[str]) -> set[str]:
    """Tool ids that appear in the context as a call without its result, or the reverse."""
    lines = by_uuid(path)
    calls: set[str] = set()
    results: set[str] = set()
    for uuid in uuids:
        content = lines[uuid].get("message", {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use":
                calls.add(block["id"])
            elif block.get("type") == "tool_result":
                results.add(block["tool_use_id"])
    return calls ^ results


@contextmanager
def holding_open(path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A real process that holds `path` open until the block ends."""
    code = "import sys, time\nf = open(sys.argv[1])\nprint('open', flush=True)\ntime.sleep(120)"
    process = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"open\n"
        yield process
    finally:
        process.kill()
        process.wait()


@contextmanager
def live_process() -> Iterator[int]:
    """The pid of a real process that lives until the block ends."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def register(root: Path, pid: int, session_id: str) -> Path:
    """Claude Code's running-session registry entry, `<root>/sessions/<pid>.json`."""
    folder = root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    entry = folder / f"{pid}.json"
    data = {"pid": pid, "sessionId": session_id, "cwd": "/w", "startedAt": 1}
    entry.write_bytes(orjson.dumps(data))
    return entry
