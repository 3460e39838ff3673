"""End to end under a real `systemd --user` (tests/integration/user_systemd.py): install, start,
query through the socket and the sandbox, restart on failure, socket activation, uninstall."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from keepd.client import Client
from keepd.paths import project_slug
from tests.integration.daemon_kit import EXAMPLE_ID, example_lines, wait_until
from tests.integration.user_systemd import UserManager, unavailable, user_manager

WHY = unavailable()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"no private systemd --user: {WHY}")


@pytest.fixture
def manager() -> Iterator[UserManager]:
    with user_manager() as running:
        yield running


def keepd(manager: UserManager, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """The keepd command of this checkout, as the user of the private manager runs it."""
    script = Path(sys.executable).parent / "keepd"
    done = subprocess.run(
        [str(script), *args],
        env=manager.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if check:
        assert done.returncode == 0, f"keepd {' '.join(args)}: {done.stdout}\n{done.stderr}"
    return done


def show(manager: UserManager, *properties: str) -> dict[str, str]:
    done = manager.systemctl("show", "keepd.service", "--property=" + ",".join(properties))
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def main_pid(manager: UserManager) -> int:
    return int(show(manager, "MainPID")["MainPID"])


def test_install_start_query_restart_uninstall(manager: UserManager) -> None:
    session = manager.home / ".claude" / "projects" / project_slug("/w/invoicer")
    session.mkdir(parents=True)
    (session / f"{EXAMPLE_ID}.jsonl").write_bytes(b"".join(example_lines()))
    socket_file = manager.runtime / "keepd" / "keepd.sock"
    client = Client(socket_file, timeout=30)

    installed = keepd(manager, "service", "install")
    assert "is running" in installed.stdout, installed.stdout
    pid = main_pid(manager)
    assert pid > 0 and show(manager, "ActiveState")["ActiveState"] == "active"
    assert client.call("ping")["pong"] is True
    _query(manager, client, pid)
    _sandboxed(pid, manager)

    again = keepd(manager, "service", "install")
    assert "unchanged" in again.stdout and main_pid(manager) == pid  # idempotent, no restart

    os.kill(pid, signal.SIGKILL)  # Restart=on-failure brings it back after RestartSec
    restarted = wait_until(lambda: (main_pid(manager) or 0) not in (0, pid) and main_pid(manager))
    wait_until(lambda: client.call("ping")["pong"], timeout=20)
    assert int(restarted) != pid

    stopped = manager.systemctl("stop", "keepd.service")
    assert stopped.returncode == 0 and main_pid(manager) == 0
    status = json.loads(keepd(manager, "status", "--json").stdout)  # starts it: keepd.socket
    assert status["daemon"] is True and main_pid(manager) == status["pid"]

    removed = keepd(manager, "service", "uninstall")
    assert "notes: " in removed.stdout, removed.stdout
    assert manager.systemctl("is-active", "keepd.service").stdout.strip() == "inactive"
    assert not (manager.home / ".config" / "systemd" / "user" / "keepd.service").exists()
    assert not socket_file.exists()
    notes = list((manager.home / ".local" / "share" / "keepd" / "notes").iterdir())
    assert [note.name for note in notes] == [f"{EXAMPLE_ID}.html"]  # the user's data stays
    assert "not installed" in keepd(manager, "service", "uninstall").stdout


def _query(manager: UserManager, client: Client, pid: int) -> None:
    """The daemon follows the session, writes a note through its sandbox, and doctor agrees."""
    status = client.call("status")
    assert status["daemon"] is True and status["pid"] == pid
    follows = wait_until(lambda: client.call("sessions", {"name": EXAMPLE_ID}))
    assert follows[0]["session_id"] == EXAMPLE_ID
    note = Path(client.call("note", {"name": EXAMPLE_ID})["path"])
    assert note.is_file() and note.is_relative_to(manager.home / ".local" / "share" / "keepd")
    doctor = keepd(manager, "doctor", "--json", check=False)
    checks: dict[str, Any] = {item["name"]: item for item in json.loads(doctor.stdout)["checks"]}
    for name in ("service", "socket", "command", "claude roots", "session format"):
        assert checks[name]["status"] == "ok", checks[name]
    text = keepd(manager, "service", "status").stdout
    assert f"pid {pid}" in text and "start at login: yes" in text


def _sandboxed(pid: int, manager: UserManager) -> None:
    """The hardening took effect: no new privileges, a read-only home but keepd's folders."""
    status = Path(f"/proc/{pid}/status").read_text()
    assert "NoNewPrivs:\t1" in status
    mounts = [line.split() for line in Path(f"/proc/{pid}/mountinfo").read_text().splitlines()]

    def mode(path: Path) -> str:
        """rw or ro of the mount that holds `path` as the daemon sees it (the last one wins)."""
        holding = [f for f in mounts if path == Path(f[4]) or path.is_relative_to(f[4])]
        deepest = max(len(Path(f[4]).parts) for f in holding)
        return [f for f in holding if len(Path(f[4]).parts) == deepest][-1][5].split(",")[0]

    home = manager.home
    assert mode(home) == "ro" and mode(home / ".config") == "ro"  # ProtectHome=read-only
    assert mode(home / ".local" / "share" / "keepd" / "notes") == "rw"  # ReadWritePaths=
    assert mode(home / ".claude" / "projects") == "rw"
    assert mode(Path("/usr")) == "ro"  # ProtectSystem=strict
    assert mode(Path("/run/user/0")) == "ro"  # ProtectHome= covers the runtime folders...
    assert mode(Path("/run/user/0/keepd")) == "rw"  # ...but for RuntimeDirectory=keepd
    assert any(f[4] == "/tmp" and "systemd-private-" in f[3] for f in mounts)  # PrivateTmp=
