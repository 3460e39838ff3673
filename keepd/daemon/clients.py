"""A client of the daemon's socket: its state while it is waited for or answered, the stream
protocol that keeps that state, and who it is (the peer's credentials)."""

from __future__ import annotations

import array
import asyncio
import fcntl
import logging
import socket
import struct
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(eq=False, slots=True)
class Connection:
    """One client; `idle_since` is set while it is waited for (its next request line, or its
    reading of a reply), None while its request is answered. Until it sends its first bytes it
    is a bare socket (`sock`) the loop watches: a flood of silent ones costs a descriptor each
    and no stream, and closing one frees its descriptor at once."""

    sock: socket.socket | None = None
    silence: asyncio.TimerHandle | None = None  # ends a bare socket after `request_seconds`
    writer: asyncio.StreamWriter | None = None
    idle_since: float | None = None
    evicted: bool = False


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end (Linux `SO_PEERCRED`, BSD/macOS xucred)."""
    try:
        if hasattr(socket, "SO_PEERCRED"):
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            return int(struct.unpack("3i", raw)[1])
        if sys.platform == "darwin" or "bsd" in sys.platform:
            local_peercred, sol_local = 0x001, 0
            raw = sock.getsockopt(sol_local, local_peercred, struct.calcsize("IiH16I"))
            return int(struct.unpack_from("Ii", raw)[1])
    except OSError as error:
        log.warning("cannot read the peer's credentials: %s", error)
    return None


class StreamProtocol(asyncio.StreamReaderProtocol):
    """Marks its connection busy as soon as a whole request line has arrived, before the
    server's task gets to it, so that it is never taken for an idle one; tells the server when
    the socket is closed."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        connection: Connection,
        closed: Callable[[Connection], None],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        super().__init__(reader, loop=loop)
        self._connection = connection
        self._on_closed = closed

    def data_received(self, data: bytes) -> None:
        if b"\n" in data:
            self._connection.idle_since = None
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._on_closed(self._connection)


def socket_of(writer: asyncio.StreamWriter) -> Any:
    return writer.get_extra_info("socket")


def unread(sock: Any) -> bool:
    """Whether bytes wait in the kernel for this connection (FIONREAD)."""
    if sock is None:
        return False
    pending = array.array("i", [0])
    try:
        fcntl.ioctl(sock.fileno(), termios.FIONREAD, pending)
    except OSError:
        return False
    return pending[0] > 0
