"""systemd's datagrams and variables, and the watcher's overflow hook, without systemd."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path

from keepd.daemon import systemd
from keepd.daemon.notify import ensure_bus_address, in_app_bundle, opener
from keepd.daemon.watch import _Overflow


def test_notify_reaches_a_path_and_an_abstract_socket(tmp_path: Path) -> None:
    path = tmp_path / "n.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(path))
        assert systemd.notify("READY=1", {"NOTIFY_SOCKET": str(path)})
        assert listener.recv(100) == b"READY=1"
    name = f"keepd-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind("\0" + name)
        assert systemd.notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert listener.recv(100) == b"WATCHDOG=1"
    assert not systemd.notify("READY=1", {})
    assert not systemd.notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "none")})


def test_watchdog_interval_and_passed_sockets() -> None:
    pid = str(os.getpid())
    assert systemd.watchdog_seconds({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": pid}) == 15.0
    assert systemd.watchdog_seconds({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert systemd.watchdog_seconds({}) is None
    assert systemd.listening_socket({"LISTEN_PID": "1", "LISTEN_FDS": "1"}) is None
    assert systemd.listening_socket({}) is None


def test_the_bus_address_from_the_runtime_dir(tmp_path: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(tmp_path)}
    assert ensure_bus_address(env) is None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as bus:
        bus.bind(str(tmp_path / "bus"))
        assert ensure_bus_address(env) == f"unix:path={tmp_path / 'bus'}"
    kept = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/x", "XDG_RUNTIME_DIR": str(tmp_path)}
    assert ensure_bus_address(kept) == "unix:path=/x"


def test_platform_choices() -> None:
    assert in_app_bundle("/Applications/Keepd.app/Contents/MacOS/python3")
    assert not in_app_bundle("/usr/bin/python3")
    assert opener(Path("/n/a b.html"), "") in (["xdg-open", "/n/a b.html"], ["open", "/n/a b.html"])


def test_a_lost_events_warning_asks_for_a_rescan() -> None:
    lost: list[int] = []
    hook = _Overflow(lambda: lost.append(1))
    logger = logging.getLogger("watchdog.observers.inotify_c")
    logger.addHandler(hook)
    try:
        logger.warning("Inotify queue overflowed; filesystem events were lost")
        logger.warning("something else")
    finally:
        logger.removeHandler(hook)
    assert lost == [1]
