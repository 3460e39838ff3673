"""End to end under a real `systemd --user` (tests/integration/user_systemd.py): install, start,
query through the socket and the sandbox, restart on failure, socket activation, uninstall."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from keepd.ops.client import Client
from keepd.paths import project_slug
from tests.integration.daemon_kit import (
    EXAMPLE_ID,
    SessionBus,
    StandIn,
    example_lines,
    need,
    wait_until,
)
from tests.integration.user_systemd import (
    NOBODY,
    UserManager,
    pipx_like_keepd,
    unavailable,
    user_manager,
    venv_keepd,
)

WHY = unavailable()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"no private systemd --user: {WHY}")


@pytest.fixture
def manager() -> Iterator[UserManager]:
    with user_manager() as running:
        link, why = pipx_like_keepd(running)
        if link is None:
            pytest.skip(why)
        yield running


def keepd(manager: UserManager, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """This checkout's keepd, installed pipx-like in the manager's HOME, run by its user."""
    done = manager.run([str(manager.home / ".local" / "bin" / "keepd"), *args])
    if check:
        assert done.returncode == 0, f"keepd {' '.join(args)}: {done.stdout}\n{done.stderr}"
    return done


def show(manager: UserManager, *properties: str) -> dict[str, str]:
    done = manager.systemctl("show", "keepd.service", "--property=" + ",".join(properties))
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def main_pid(manager: UserManager) -> int:
    return int(show(manager, "MainPID")["MainPID"])


def write_session(manager: UserManager) -> None:
    folder = manager.home / ".claude" / "projects" / project_slug("/w/invoicer")
    folder.mkdir(parents=True)
    (folder / f"{EXAMPLE_ID}.jsonl").write_bytes(b"".join(example_lines()))
    for path in (manager.home / ".claude", *(manager.home / ".claude").rglob("*")):
        os.chown(path, manager.uid, manager.uid)


def test_install_start_query_restart_uninstall(manager: UserManager) -> None:
    write_session(manager)
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
    assert [note.name[: len(EXAMPLE_ID)] for note in notes] == [EXAMPLE_ID]  # the user's data stays
    assert "not installed" in keepd(manager, "service", "uninstall").stdout


def test_a_keepd_under_tmp_runs_when_given_with_command(manager: UserManager) -> None:
    """The advice of the refusal, followed under a real systemd: a keepd in a venv under /tmp
    is refused when found by itself, and runs as the service once given with --command (its
    unit shares /tmp, which a private /tmp would hide)."""
    where = Path(tempfile.mkdtemp(prefix="keepd-venv-", dir="/tmp"))
    try:
        script, why = venv_keepd(manager, where / "venv")
        if script is None:
            pytest.skip(why)
        refused = manager.run([str(script), "service", "install"])
        advice = f"`{script} service install --command {script}`"
        assert refused.returncode == 71 and advice in refused.stderr, refused.stderr
        given = manager.run(advice.strip("`").split())
        assert given.returncode == 0 and "is running" in given.stdout, given.stdout + given.stderr
        assert "stops working if /tmp is emptied" in given.stdout
        unit = manager.home / ".config" / "systemd" / "user" / "keepd.service"
        assert "PrivateTmp=no" in unit.read_text().splitlines()
        pid = main_pid(manager)
        client = Client(manager.runtime / "keepd" / "keepd.sock", timeout=30)
        assert client.call("status")["pid"] == pid
        doctor = manager.run([str(script), "doctor", "--json"])
        checks = {item["name"]: item for item in json.loads(doctor.stdout)["checks"]}
        assert checks["service"]["status"] == "ok", checks["service"]
        assert checks["command"]["status"] == "warn" and "/tmp" in checks["command"]["summary"]
        removed = manager.run([str(script), "service", "uninstall"])
        assert removed.returncode == 0 and not unit.exists(), removed.stdout + removed.stderr
    finally:
        shutil.rmtree(where, ignore_errors=True)


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
    assert "CapBnd:\t0000000000000000" in status  # CapabilityBoundingSet=
    network = Path(f"/proc/{pid}/ns/net").readlink()
    assert network != Path("/proc/self/ns/net").readlink()  # PrivateNetwork=
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
    runtime = Path(f"/run/user/{manager.uid}")
    assert mode(runtime) == "ro"  # ProtectHome= covers the runtime folders...
    assert mode(runtime / "keepd") == "rw"  # ...but for RuntimeDirectory=keepd
    assert any(f[4] == "/tmp" and "systemd-private-" in f[3] for f in mounts)  # PrivateTmp=


EXPOSURE_BOUND = 2.0


def test_the_tightened_sandbox_still_notifies_and_opens_the_note(manager: UserManager) -> None:
    """Under the unit's full hardening (PrivateNetwork=, no capabilities, ProtectProc=...,
    exposure at most 2.0 by `systemd-analyze security`), the daemon still reaches the session
    bus the manager runs (a notice to a notification server there), and a click on "Open note"
    still opens the note through `systemd-run --user`, outside the sandbox."""
    need("dbus-daemon", "dbus-send")
    bus = manager.runtime / "bus"  # dbus.socket of the manager (dbus-user-session)
    wait_until(bus.exists, timeout=30)
    server = StandIn(SessionBus(f"unix:path={bus}"), manager.home / "calls.jsonl")
    opened = manager.home / "opened.html"
    opener = f"systemd-run --user --collect --quiet sh -c 'cp \"$0\" {opened}'"
    config = manager.home / ".config" / "keepd" / "config.toml"
    config.parent.mkdir(parents=True)
    settings = {"debounce_seconds": 0.3, "retry_seconds": 0.5, "open_command": opener}
    lines = [f"{key} = {json.dumps(value)}\n" for key, value in settings.items()]
    config.write_text("[notify]\n" + "".join(lines))
    try:
        write_session(manager)
        keepd(manager, "service", "install")
        assert _exposure(manager) <= EXPOSURE_BOUND
        [notice] = wait_until(server.calls, timeout=60)
        assert notice["summary"].startswith("invoicer: context")
        server.press(notice["id"], "open-note")
        wait_until(opened.exists, timeout=30)  # a home the sandbox sees read-only
        assert EXAMPLE_ID in opened.read_text()
        keepd(manager, "service", "uninstall")
    finally:
        server.close()


def _exposure(manager: UserManager) -> float:
    """`systemd-analyze security --user keepd.service`: the overall exposure level."""
    done = manager.run(["systemd-analyze", "security", "--user", "--no-pager", "keepd.service"])
    found = [line for line in done.stdout.splitlines() if "Overall exposure level" in line]
    assert found, done.stdout + done.stderr
    return float(found[0].split(":")[1].split()[0])


def test_as_an_unprivileged_user() -> None:
    """The usual case: a user's own manager, without privileges, where the sandboxing needs
    user namespaces (systemd implies PrivateUsers=yes). Asked through the command line only:
    the daemon answers nobody but its own user."""
    with user_manager(NOBODY) as manager:
        link, why = pipx_like_keepd(manager)
        if link is None:
            pytest.skip(why)
        write_session(manager)
        installed = keepd(manager, "service", "install")
        assert f"runs {link} run" in installed.stdout and "is running" in installed.stdout
        pid = main_pid(manager)
        assert Path(f"/proc/{pid}/status").read_text().count(f"\t{NOBODY}") >= 4  # its uid
        assert "NoNewPrivs:\t1" in Path(f"/proc/{pid}/status").read_text()
        mapped = Path(f"/proc/{pid}/uid_map").read_text().split()
        assert mapped == [str(NOBODY), str(NOBODY), "1"]  # PrivateUsers=yes: itself alone
        _sandboxed(pid, manager)  # without PrivateUsers= systemd 252 would skip all of it
        status = json.loads(keepd(manager, "status", "--json").stdout)
        assert status["daemon"] is True and status["pid"] == pid
        wait_until(lambda: json.loads(keepd(manager, "sessions", "--json").stdout))
        shown = keepd(manager, "note", EXAMPLE_ID).stdout  # written by this process, not the daemon
        assert shown.startswith("file://")
        doctor = json.loads(keepd(manager, "doctor", "--json", check=False).stdout)
        checks = {item["name"]: item["status"] for item in doctor["checks"]}
        assert checks["service"] == checks["socket"] == checks["command"] == "ok", doctor
        keepd(manager, "service", "uninstall")
        assert manager.systemctl("is-active", "keepd.service").stdout.strip() == "inactive"
        assert not (manager.home / ".config" / "systemd" / "user" / "keepd.service").exists()
