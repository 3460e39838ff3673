"""The daemon started by socket activation (`systemd-socket-activate`, as keepd.socket does):
it takes fd 3, tells our NOTIFY_SOCKET it is ready, and answers on the socket it was handed."""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from keepd.ops.client import Client
from tests.integration.daemon_kit import Tree, make_tree, need, wait_until

PASSED = (
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_RUNTIME_DIR",
    "CLAUDE_CONFIG_DIR",
    "NOTIFY_SOCKET",
    "PYTHONUNBUFFERED",
    "PYTHONPATH",
)


@contextlib.contextmanager
def activated(tree: Tree, listen: Path, notify: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`keepd run` behind systemd-socket-activate, which starts it on the first connection."""
    env = {**tree.env, "NOTIFY_SOCKET": str(notify)}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    passed = [arg for name in PASSED if name in env for arg in ("-E", name)]
    command = [sys.executable, "-m", "keepd", "-v", "run", "--config", str(tree.config)]
    log = (tree.base / "activated.log").open("wb")
    process = subprocess.Popen(
        ["systemd-socket-activate", "-l", str(listen), *passed, "--", *command],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(listen.exists, timeout=10)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        log.close()


def test_socket_activated_daemon_answers_and_says_ready(tmp_path: Path) -> None:
    need("systemd-socket-activate")
    tree = make_tree(tmp_path, notify={"enabled": False})
    folder = tree.runtime / "keepd"
    folder.mkdir(mode=0o700)
    listen = folder / "keepd.sock"
    notify = tree.runtime / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as ready:
        ready.bind(str(notify))
        ready.settimeout(30)
        with activated(tree, listen, notify) as process:
            client = Client(listen, timeout=30)
            pong = client.call("ping")  # this connection is what starts the daemon
            assert pong["pong"] is True
            message = ready.recv(4096).decode()
            assert message.startswith("READY=1\nSTATUS="), message
            status = client.call("status")
            assert status["daemon"] is True and status["pid"] == process.pid
            assert status["socket"] == str(listen)
            assert client.call("sessions") == []
            process.send_signal(signal.SIGTERM)
            assert process.wait(15) == 0
            assert ready.recv(4096) == b"STOPPING=1"
    log = (tmp_path / "activated.log").read_text(errors="replace")
    assert "Traceback" not in log, log
    assert listen.exists()  # the socket is systemd's (here: its stand-in's), not unlinked
