"""The daemon's memory file: round trip, privacy, corruption, expiry."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from keepd.errors import UsageError
from keepd.ops.memory import MAX_SESSIONS, Memory, load_memory, save_memory, until


def test_round_trip_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "daemon.json"
    memory = Memory()
    memory.remember("s1", "break:u1")
    memory.remember("s1", "break:u1")
    memory.mute("s2", 100.0)
    memory.mute("s3", None)
    memory.pause(200.0)
    save_memory(path, memory)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    loaded = load_memory(path)
    assert loaded == memory and loaded.notified == {"s1": ["break:u1"]}
    assert [p.name for p in path.parent.iterdir()] == ["daemon.json"]


def test_missing_or_corrupt_means_empty(tmp_path: Path) -> None:
    path = tmp_path / "daemon.json"
    assert load_memory(path) == Memory()
    path.write_bytes(b'{"format": 1, "notified": [1]}')
    assert load_memory(path) == Memory()
    assert (tmp_path / "daemon.json.bad").exists() and not path.exists()
    path.write_bytes(b"\x00garbage")
    assert load_memory(path) == Memory()


def test_expiry() -> None:
    memory = Memory()
    memory.mute("a", 10.0)
    memory.mute("b", None)
    memory.pause(10.0)
    assert memory.muted("a", 5.0) and memory.is_paused(5.0)
    memory.expire(11.0)
    assert not memory.muted("a", 11.0) and memory.muted("b", 11.0)
    assert not memory.is_paused(11.0)
    assert memory.unmute("b") and not memory.unmute("b")


def test_until() -> None:
    assert until(1.5, 0.0) == 90.0 and until(None, 5.0) is None
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(UsageError):
            until(bad, 0.0)


def test_the_notified_set_is_bounded() -> None:
    memory = Memory()
    for n in range(MAX_SESSIONS + 10):
        memory.remember(f"s{n}", "break:x")
    assert len(memory.notified) == MAX_SESSIONS and "s0" not in memory.notified
