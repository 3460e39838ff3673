"""The registry on real files with an injected clock: active, idle, evicted, running, found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from keepd.api import analyse_file
from keepd.core.analysis import Analysis
from keepd.daemon.registry import Registry
from keepd.errors import AmbiguousSessionError
from keepd.paths import example_session
from keepd.system.settings import setup_for

NOW = 2_000_000_000.0
LINES = example_session().read_bytes().splitlines(keepends=True)


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def _session(root: Path, session_id: str, lines: list[bytes], age: float = 0.0) -> Path:
    path = root / "projects" / "-w-app" / f"{session_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(lines))
    os.utime(path, (NOW - age, NOW - age))
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "claude"


def test_which_paths_are_sessions(root: Path) -> None:
    registry = Registry(lambda: [root])
    assert registry.is_session_path(root / "projects" / "-w" / "abc.jsonl")
    assert not registry.is_session_path(root / "projects" / "-w" / "agent-1.jsonl")
    assert not registry.is_session_path(root / "projects" / "-w" / "abc" / "subagents" / "a.jsonl")
    assert not registry.is_session_path(root / "projects" / "-w" / "abc.json")
    assert not registry.is_session_path(root / "history.jsonl")
    assert not registry.is_session_path(root.parent / "other" / "projects" / "-w" / "abc.jsonl")


def test_only_active_sessions_are_loaded_and_idle_ones_evicted(root: Path) -> None:
    clock = Clock()
    registry = Registry(lambda: [root], clock=clock, active_seconds=600)
    fresh = _session(root, "fresh", LINES[:100], age=10)
    _session(root, "stale", LINES[:100], age=3600)
    assert registry.scan() == [fresh]
    registry.read(fresh, 1 << 20)
    live = registry.analyse(fresh)
    assert live is not None and _same_marks(live, registry.full(fresh))
    full = registry.full(fresh)
    assert full is not None and full.to_dict() == _fresh_without_detail(fresh)
    assert len(registry.sessions) == 2
    clock.now += 700
    assert registry.evict() == 1 and registry.sessions[fresh].state is None
    info = registry.info(registry.sessions[fresh], None, False)
    assert info.state == "idle" and info.pick == live.pick
    with fresh.open("ab") as handle:
        handle.write(b"".join(LINES[100:150]))
    result = registry.read(fresh, 1 << 20)
    assert result.changed
    again = registry.full(fresh)
    assert again is not None and again.to_dict() == _fresh_without_detail(fresh)


def _same_marks(live: Analysis, full: Analysis | None) -> bool:
    """The per-burst analysis holds the marked stops of the full one, and the same verdict."""
    assert full is not None
    by_uuid = {stop.uuid: stop for stop in full.stops}
    keys = ("pick", "trade", "zones", "context", "stop_count")
    same = all(live.to_dict()[key] == full.to_dict()[key] for key in keys)
    return same and all(stop == by_uuid[stop.uuid] for stop in live.stops)


def _fresh_without_detail(path: Path) -> dict[str, object]:
    # The registry asks the disk, as every front end does, for the files a cut reads back.
    data = analyse_file(path, setup=setup_for(path)).to_dict()
    data["blocks"], data["borrowed_words"] = [], []
    return data


def test_vanished_files_are_forgotten(root: Path) -> None:
    registry = Registry(lambda: [root], clock=Clock())
    path = _session(root, "gone", LINES[:20])
    registry.read(path, 1 << 20)
    path.unlink()
    assert registry.read(path, 1 << 20).gone and path not in registry.sessions
    _session(root, "gone2", LINES[:20])
    registry.scan()
    (root / "projects" / "-w-app" / "gone2.jsonl").unlink()
    registry.scan()
    assert not registry.sessions


def test_running_sessions_need_a_live_pid(root: Path) -> None:
    registry = Registry(lambda: [root], clock=Clock(), active_seconds=1)
    path = _session(root, "alive", LINES[:20], age=9999)
    folder = root / "sessions"
    folder.mkdir(parents=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True
    )
    entries = {
        "1.json": {"pid": os.getpid(), "sessionId": "alive"},
        "2.json": {"pid": int(dead.stdout), "sessionId": "dead"},
        "3.json": {"pid": "x", "sessionId": "odd"},
    }
    for name, entry in entries.items():
        (folder / name).write_text(json.dumps(entry))
    (folder / "4.json").write_bytes(b"\xff")
    assert registry.scan() == [path]
    assert registry.running == {"alive"}


def test_find_by_path_id_or_prefix(root: Path) -> None:
    registry = Registry(lambda: [root], clock=Clock())
    a = _session(root, "abc111", LINES[:5])
    _session(root, "abc222", LINES[:5])
    registry.scan()
    assert registry.find(str(a)) is registry.sessions[a]
    assert registry.find("abc111") is registry.sessions[a]
    assert registry.find("abc1") is registry.sessions[a]
    assert registry.find("zzz") is None
    with pytest.raises(AmbiguousSessionError):
        registry.find("abc")


def test_an_unreadable_file_is_reported_and_kept(root: Path) -> None:
    registry = Registry(lambda: [root], clock=Clock())
    folder = root / "projects" / "-w-app" / "odd.jsonl"
    folder.mkdir(parents=True)
    assert not registry.read(folder, 1 << 20).changed
    info = registry.info(registry.sessions[folder], None, False)
    assert info.state == "unreadable" and info.error
