"""A daemon that trickles its reply cannot hold the CLI's client or the status line past their
deadline: both read one line through `glance_io.read_line`, bounded as a whole, not per read."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from keepd.errors import DaemonUnavailableError
from keepd.ops.client import Client
from keepd.ops.glance_io import ask_daemon

TRICKLE_SECONDS = 20.0  # far past the clients' deadline below, so a reply in time is a bound


@pytest.fixture
def trickling(tmp_path: Path) -> Iterator[Path]:
    """A socket that accepts, reads the request, then sends one byte of a reply every 50 ms
    without ever ending the line."""
    path = tmp_path / "d.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.recv(1 << 16)
                ends = time.monotonic() + TRICKLE_SECONDS
                try:
                    while not stop.is_set() and time.monotonic() < ends:
                        conn.sendall(b" ")
                        time.sleep(0.05)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join(5)
    server.close()


def test_the_client_gives_up_at_its_deadline(trickling: Path) -> None:
    started = time.monotonic()
    with pytest.raises(DaemonUnavailableError, match="stopped answering"):
        Client(trickling, timeout=0.5).call("status")
    assert time.monotonic() - started < TRICKLE_SECONDS / 2


def test_the_status_lines_ask_gives_up_at_its_deadline(trickling: Path) -> None:
    started = time.monotonic()
    with pytest.raises(DaemonUnavailableError):
        ask_daemon("a-session", target=str(trickling), timeout=0.5)
    assert time.monotonic() - started < TRICKLE_SECONDS / 2
