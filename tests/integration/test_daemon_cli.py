"""The daemon's commands: in-process without a daemon, over the socket with one, and the
daemon's own start-up, reload and refusal."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from keepd.cli.daemon import IN_PROCESS
from keepd.cli.main import main
from keepd.paths import daemon_state_file, example_session, project_slug
from tests.integration.daemon_kit import (
    EXAMPLE_ID,
    Daemon,
    PrivateBus,
    StandIn,
    Tree,
    append,
    assert_nothing_lost,
    curve,
    example_lines,
    fresh_report,
    make_tree,
    need,
    run_cli,
    running,
    wait_until,
)


def _install(home: Path) -> Path:
    folder = home / ".claude" / "projects" / project_slug("/w/invoicer")
    folder.mkdir(parents=True)
    target = folder / f"{EXAMPLE_ID}.jsonl"
    target.write_bytes(example_session().read_bytes())
    return target


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert IN_PROCESS in captured.err
    return orjson.loads(captured.out)


def test_without_a_daemon_every_command_computes_in_process(
    private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _install(private_home)
    status = _json(capsys, "status")
    assert status["daemon"] is False and status["sessions"] == 1 and status["active"] == 1
    [item] = _json(capsys, "sessions")
    assert item["state"] == "active" and item["offset"] == path.stat().st_size
    assert item["pick"] == fresh_report(path)["pick"] and item["grade"] == "●●●"
    shown = _json(capsys, "show", EXAMPLE_ID[:6])
    assert curve(shown) == curve(fresh_report(path))
    assert main(["show", EXAMPLE_ID[:6], "--width", "90"]) == 0
    assert "   → ↑" in capsys.readouterr().out
    muted = _json(capsys, "mute", EXAMPLE_ID[:6], "--for", "5")
    assert muted["session_id"] == EXAMPLE_ID and muted["until"] > time.time() + 250
    assert _json(capsys, "sessions")[0]["muted"] is True
    assert _json(capsys, "unmute", EXAMPLE_ID)["action"] == "unmute"
    assert _json(capsys, "sessions")[0]["muted"] is False
    assert _json(capsys, "pause")["until"] is None
    assert _json(capsys, "status")["paused"] is True
    _json(capsys, "resume")
    assert _json(capsys, "rescan")["sessions"] == 1
    assert daemon_state_file().is_file()
    assert main(["mute", EXAMPLE_ID, "--for", "-1"]) == 2
    assert main(["show", "nope"]) == 3


def test_text_output_without_a_daemon(
    private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _install(private_home)
    for argv in (["status"], ["sessions"], ["pause", "--for", "10"], ["resume"]):
        assert main(argv) == 0
    out = capsys.readouterr().out
    assert "no daemon running" in out and "invoicer" in out and "●●● Esc Esc ↑20" in out
    assert "notices paused until" in out and "notices resumed" in out


def test_bad_configuration_names_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[notify]\nthreshold = 2\n")
    assert main(["run", "--config", str(config)]) == 78
    assert "notify.threshold must be at most" in capsys.readouterr().err



def test_one_daemon_per_user_and_a_stale_socket_is_replaced(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False})
    stale = tree.runtime / "keepd" / "keepd.sock"
    stale.parent.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as old:
        old.bind(str(stale))
    path = tree.session()
    path.write_bytes(b"".join(example_lines()[:80]))
    with running(tree) as daemon:
        assert (stale.stat().st_mode & 0o777, stale.parent.stat().st_mode & 0o777) == (0o600, 0o700)
        second = run_cli(tree, "run", "--config", str(tree.config))
        assert second.returncode == 75 and b"already running" in second.stderr
        assert daemon.call("ping")["pong"] is True
        shown = run_cli(tree, "show", EXAMPLE_ID[:8])
        assert shown.returncode == 0 and shown.stderr == b"" and b"places to stop" in shown.stdout
        detail = daemon.call("session", {"name": EXAMPLE_ID, "detail": True})
        assert detail == fresh_report(path)
        note = daemon.call("note", {"name": EXAMPLE_ID[:8]})
        assert Path(note["path"]).is_file() and note["uri"].startswith("file://")
        assert_nothing_lost(daemon, path)
    assert not stale.exists()


def _notices(tree: Tree, bus: PrivateBus) -> StandIn:
    need("dbus-send")
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    return StandIn(bus, tree.base / "calls.jsonl")


def test_sighup_reloads_the_configuration(tmp_path: Path, bus: PrivateBus) -> None:
    tree = make_tree(tmp_path, notify={"threshold": 0.95, "urgent": 0.99})
    server = _notices(tree, bus)
    path = tree.session()
    try:
        with running(tree) as daemon:
            assert daemon.process is not None
            append(path, b"".join(example_lines()))
            assert_nothing_lost(daemon, path)
            time.sleep(0.8)
            assert server.calls() == []
            original = tree.config.read_text()
            tree.config.write_text("[notify]\nthreshold = 7\n")
            daemon.process.send_signal(signal.SIGHUP)
            wait_until(lambda: "configuration not reloaded" in daemon.output())
            tree.config.write_text(original.replace("0.95", "0.6"))
            daemon.process.send_signal(signal.SIGHUP)
            [notice] = wait_until(server.calls)
            assert "↑ 20 times" in notice["body"]
    finally:
        server.close()


def test_a_muted_session_waits_for_unmute(tmp_path: Path, bus: PrivateBus) -> None:
    tree = make_tree(tmp_path)
    server = _notices(tree, bus)
    path = tree.session()
    path.write_bytes(b"".join(example_lines()[:40]))
    try:
        with running(tree) as daemon:
            daemon.settled(path)
            muted = run_cli(tree, "mute", EXAMPLE_ID[:8], "--json")
            assert muted.returncode == 0 and orjson.loads(muted.stdout)["daemon"] is True
            append(path, b"".join(example_lines()[40:]))
            assert_nothing_lost(daemon, path)
            time.sleep(0.8)
            assert server.calls() == []
            assert run_cli(tree, "unmute", EXAMPLE_ID[:8]).returncode == 0
            wait_until(server.calls)
            paused = run_cli(tree, "pause", "--json")
            assert orjson.loads(paused.stdout)["action"] == "pause"
            assert daemon.call("status")["paused"] is True
    finally:
        server.close()


def test_the_socket_refuses_other_users(tmp_path: Path) -> None:
    system_python = Path("/usr/bin/python3")
    if os.geteuid() != 0 or not system_python.exists():
        pytest.skip("needs root and /usr/bin/python3 to connect as another user")
    tree = make_tree(tmp_path, notify={"enabled": False})
    with running(tree) as daemon:
        for folder in (daemon.socket.parent, daemon.socket.parent.parent):
            folder.chmod(0o755)
        daemon.socket.chmod(0o666)
        probe = (
            "import socket,sys\n"
            "s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
            "try:\n"
            '    s.sendall(b\'{"v":1,"method":"ping"}\\n\'); print(repr(s.recv(100)))\n'
            "except OSError: print('closed')\n"
        )
        done = subprocess.run(
            [str(system_python), "-c", probe, str(daemon.socket)],
            user=65534,
            capture_output=True,
            timeout=30,
            check=False,
        )
        assert done.stdout.strip() in (b"b''", b"closed"), done
        assert "refused a client of uid 65534" in daemon.output()
        assert daemon.call("ping")["pong"] is True


def test_systemd_readiness_status_and_watchdog(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False})
    tree.env["WATCHDOG_USEC"] = "200000"
    daemon = Daemon(tree)
    ready = daemon.start()
    try:
        assert ready.startswith("READY=1\nSTATUS=following 0 sessions")
        daemon.listener.settimeout(5)
        assert daemon.listener.recv(100) == b"WATCHDOG=1"
    finally:
        assert daemon.stop() == 0
