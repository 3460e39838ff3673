"""Hostile and clumsy socket clients against one real daemon: each gets an error or a timeout,
nobody else notices, and the session it follows loses nothing."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from keepd.ops.client import connect as connect_to
from tests.integration.daemon_kit import (
    Daemon,
    append,
    assert_nothing_lost,
    example_lines,
    make_tree,
    running,
)

REQUEST_SECONDS = 2.0
GARBAGE = [
    (b"not json\n", "bad_json"),
    (b"\xff\xfe\x00\x01\n", "bad_json"),
    (b"[1, 2]\n", "bad_request"),
    (b'"ping"\n', "bad_request"),
    (b'{"v": 2, "method": "ping"}\n', "bad_version"),
    (b'{"method": "ping"}\n', "bad_version"),
    (b'{"v": 1, "method": "exec", "params": {"cmd": "rm"}}\n', "unknown_method"),
    (b'{"v": 1, "method": "__init__"}\n', "unknown_method"),
    (b'{"v": 1, "method": ["ping"]}\n', "unknown_method"),
    (b'{"v": 1, "method": "mute", "params": {"name": 7}}\n', "bad_params"),
    (b'{"v": 1, "method": "mute", "params": {"name": "x", "rm": 1}}\n', "bad_params"),
    (b'{"v": 1, "method": "mute"}\n', "bad_params"),
    (b'{"v": 1, "method": "pause", "params": {"minutes": true}}\n', "bad_params"),
    (b'{"v": 1, "method": "pause", "params": {"minutes": -5}}\n', "usage"),
    (b'{"v": 1, "method": "status", "params": []}\n', "bad_params"),
    (b'{"v": 1, "id": {"x": 1}, "method": "ping"}\n', "bad_request"),
    (b'{"v": 1, "method": "ping", "id": 1e999}\n', "bad_json"),
    (b'{"v": 1, "method": "session", "params": {"name": "no-such"}}\n', "no_such_session"),
    (b"[" * 60_000 + b"\n", "bad_json"),
    (b'{"v": 1, "method": "session", "params": {"name": "../../etc/passwd"}}\n', None),
]


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[Daemon, Path]]:
    tree = make_tree(
        tmp_path,
        notify={"enabled": False},
        socket={"request_seconds": REQUEST_SECONDS, "request_bytes": 65536},
    )
    path = tree.session()
    path.write_bytes(b"".join(example_lines()[:100]))
    with running(tree) as live:
        yield live, path


def connect(daemon: Daemon) -> socket.socket:
    """A connection made as keepd's clients make theirs (waiting for room in a full backlog)."""
    return connect_to(daemon.socket, 10.0)


def read_reply(sock: socket.socket) -> dict[str, Any]:
    buffer = b""
    while b"\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buffer += chunk
    data: dict[str, Any] = orjson.loads(buffer.split(b"\n", 1)[0])
    return data


def ping(sock: socket.socket, ident: int = 1) -> dict[str, Any]:
    sock.sendall(b'{"v": 1, "id": %d, "method": "ping"}\n' % ident)
    return read_reply(sock)


def test_garbage_gets_an_error_reply_and_the_connection_goes_on(
    daemon: tuple[Daemon, Path],
) -> None:
    live, path = daemon
    with connect(live) as sock:
        for payload, code in GARBAGE:
            sock.sendall(payload)
            reply = read_reply(sock)
            assert reply["v"] == 1 and reply["ok"] is False, payload[:40]
            if code is not None:
                assert reply["error"]["code"] == code, (payload[:40], reply)
            assert isinstance(reply["error"]["exit"], int)
        assert ping(sock)["result"]["pong"] is True
    append(path, b"".join(example_lines()[100:140]))
    assert_nothing_lost(live, path)


def test_ten_megabytes_without_a_newline(daemon: tuple[Daemon, Path]) -> None:
    live, path = daemon
    flood = connect(live)
    replies: list[bytes] = []

    def send() -> None:
        with contextlib.suppress(OSError):
            flood.sendall(b"x" * (10 << 20))

    sender = threading.Thread(target=send)
    sender.start()
    with connect(live) as other:
        assert ping(other)["ok"] is True
    try:
        replies.append(flood.recv(65536))
    except OSError:
        replies.append(b"")
    sender.join(30)
    flood.close()
    assert not sender.is_alive()
    assert orjson.loads(replies[0].split(b"\n")[0])["error"]["code"] == "too_large"
    append(path, b"".join(example_lines()[100:140]))
    assert_nothing_lost(live, path)


def test_a_silent_client_times_out_and_blocks_nobody(daemon: tuple[Daemon, Path]) -> None:
    live, path = daemon
    silent = connect(live)
    half = connect(live)
    half.sendall(b'{"v": 1, "method": "pi')
    with connect(live) as other:
        for n in range(20):
            assert ping(other, n)["ok"] is True
    for sock in (silent, half):
        sock.setblocking(False)
        with pytest.raises(BlockingIOError):
            sock.recv(1)  # served the others while these two were still waited for
        sock.settimeout(10 * REQUEST_SECONDS)
    for sock in (silent, half):
        reply = read_reply(sock)
        assert reply["error"]["code"] == "timeout"
        assert sock.recv(10) == b""
        sock.close()
    assert_nothing_lost(live, path)


def test_many_clients_at_once(daemon: tuple[Daemon, Path]) -> None:
    """200 clients, 48 at a time, while the session grows: every one is answered (a `busy`
    reply, well-formed, asks it to come back, as `keepd.ops.client` does)."""
    live, path = daemon
    name = str(path).encode()
    busy: list[int] = []

    def client(n: int) -> bool:
        for _ in range(100):
            with connect(live) as sock:
                first = ping(sock, n)
                if not first["ok"]:
                    assert first["error"]["code"] == "busy"
                    busy.append(n)
                    time.sleep(0.02)
                    continue
                sock.sendall(b'{"v": 1, "id": 2, "method": "sessions"}\n')
                listed = read_reply(sock)["result"][0]["path"] == str(path)
                sock.sendall(b'{"v":1,"id":3,"method":"session","params":{"name":"%s"}}\n' % name)
                return listed and int(read_reply(sock)["result"]["messages"]) > 0
        return False

    writer = threading.Thread(target=append, args=(path, b"".join(example_lines()[100:200])))
    with ThreadPoolExecutor(max_workers=48) as pool:
        futures = [pool.submit(client, n) for n in range(200)]
        writer.start()
        results = [future.result(timeout=60) for future in futures]
    writer.join()
    assert all(results)
    assert len(busy) < 200, "the daemon turned everybody away"
    assert_nothing_lost(live, path)
