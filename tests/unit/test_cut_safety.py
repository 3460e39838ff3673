"""Signs a session is in use, a file that changed, and the lock one writer holds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from keepd.cut.load import read_exact
from keepd.cut.safety import (
    busy_reason,
    holding_pids,
    locked,
    recent_write,
    refuse_if_busy,
    refuse_if_changed,
    registered_pid,
)
from keepd.errors import LockedError, SessionBusyError, SessionChangedError
from keepd.system.procs import pid_alive
from tests.cut_kit import age, holding_open, live_process, register


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "abc.jsonl"
    path.write_bytes(b'{"type":"user"}\n')
    age(path)
    return path


@pytest.fixture
def root(private_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = private_home / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_registry_with_a_live_pid_means_running(root: Path, session: Path) -> None:
    with live_process() as pid:
        register(root, pid, "abc")
        assert registered_pid({"abc"}) == pid
        assert registered_pid({"other"}) is None
        with pytest.raises(SessionBusyError, match=f"pid {pid}"):
            refuse_if_busy(session, {"abc"})
        refuse_if_busy(session, {"abc"}, force=True)


def test_stale_or_broken_registry_entries_are_ignored(root: Path, session: Path) -> None:
    register(root, _dead_pid(), "abc")
    (root / "sessions" / "junk.json").write_text("{not json")
    assert registered_pid({"abc"}) is None
    assert busy_reason(session, {"abc"}) is None


def test_pid_alive() -> None:
    assert pid_alive(1) and not pid_alive(0) and not pid_alive(_dead_pid())


def test_a_process_holding_the_file_open_is_seen(session: Path) -> None:
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc: open files cannot be seen")
    assert holding_pids(session) == []
    with holding_open(session) as process:
        assert holding_pids(session) == [process.pid]
        with pytest.raises(SessionBusyError, match=f"process {process.pid} holds"):
            refuse_if_busy(session, {"abc"})
    assert holding_pids(session) == []


def test_a_file_written_in_the_last_minute_is_busy(session: Path) -> None:
    assert recent_write(session) is None
    session.write_bytes(b"more\n")
    age_now = recent_write(session)
    assert age_now is not None and age_now < 5
    assert recent_write(session, own_mtime_ns=session.stat().st_mtime_ns) is None
    assert busy_reason(session, set()) is not None


def test_a_changed_file_is_refused(session: Path) -> None:
    _, analysed = read_exact(session)
    refuse_if_changed(analysed, read_exact(session)[1])
    session.write_bytes(b'{"type":"usex"}\n')  # same size, other bytes
    with pytest.raises(SessionChangedError):
        refuse_if_changed(analysed, read_exact(session)[1])


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    lock = tmp_path / "locks" / "lock"
    with locked(lock), pytest.raises(LockedError), locked(lock):
        pass
    with locked(lock):
        assert lock.stat().st_mode & 0o777 == 0o600
