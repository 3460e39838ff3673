"""At the connection budget the server closes the connections idle the longest, but a client's
socket it has just accepted, which has not had the turn to send its request yet, goes last."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from keepd.daemon.server import FRESH_SECONDS, Server, bind_socket

BUDGET = 24  # above the accept batch (16), so one round of making room closes only some
HALF_REQUEST = b'{"v": 1, "id": 1, "method": "pi'


class Clock:
    """The server's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def answer(method: str, params: dict[str, Any]) -> Any:
    return {"pong": True}


async def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.005)


async def opened(path: Path, opening: bytes = b"") -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, str(path))
    if opening:
        await asyncio.get_running_loop().sock_sendall(sock, opening)
    return sock


def waiting_streams(server: Server) -> int:
    """Connections that sent part of a request and are waited for."""
    return sum(1 for c in server.connections if c.writer is not None and c.idle_since)


async def a_flood_spares_a_client_that_just_connected(path: Path) -> dict[str, Any]:
    clock = Clock()
    server = Server(
        answer,
        request_bytes=4096,
        request_seconds=60.0,
        max_clients=4,
        max_connections=BUDGET,
        quick=frozenset({"ping"}),
        clock=clock,
    )
    await server.start(bind_socket(path))
    held: list[socket.socket] = []
    try:
        client = await opened(path)  # connected; its request is not sent yet
        await until(lambda: server.clients == 1)
        clock.now += FRESH_SECONDS / 4  # the flood comes just after it
        for _ in range(BUDGET - 1):
            held.append(await opened(path, HALF_REQUEST))
        await until(lambda: waiting_streams(server) == BUDGET - 1)
        held.append(await opened(path))  # over the budget: room is made
        await until(lambda: server.evicted > 0 and server.clients <= BUDGET)
        loop = asyncio.get_running_loop()
        await loop.sock_sendall(client, b'{"v": 1, "id": 7, "method": "ping"}\n')
        async with asyncio.timeout(10):
            line = await loop.sock_recv(client, 4096)
        client.close()
        return dict(orjson.loads(line.split(b"\n")[0]))
    finally:
        for sock in held:
            sock.close()
        await server.close()


def test_a_flood_spares_a_client_that_just_connected(tmp_path: Path) -> None:
    reply = asyncio.run(a_flood_spares_a_client_that_just_connected(tmp_path / "d.sock"))
    assert reply["ok"] is True and reply["id"] == 7, reply
