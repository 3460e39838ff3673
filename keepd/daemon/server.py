"""The local socket: newline-delimited JSON requests from the user's own processes only.

Each connection may send several requests, one line each, and gets one reply line per request.
A line longer than `request_bytes`, a client silent for `request_seconds`, or a peer of another
user ends that connection (after an error reply where one can be sent); nothing a client sends
reaches more than its own connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import struct
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from keepd.errors import KeepdError, ProtocolError
from keepd.protocol import Reply, decode_request, encode_reply, error_reply, request_id

log = logging.getLogger(__name__)
Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]
WRITE_SECONDS = 30.0
LINGER_SECONDS = 1.0


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


def bind_socket(path: Path) -> socket.socket:
    """A listening socket at `path`, in a 0700 folder, itself 0600; a stale one is replaced."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.parent.chmod(0o700)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old)
    path.chmod(0o600)
    sock.listen(128)
    return sock


class Server:
    """Serves requests with `handler(method, params)`, which the daemon backs with `Service`."""

    def __init__(
        self, handler: Handler, *, request_bytes: int, request_seconds: float, max_clients: int
    ) -> None:
        self.handler = handler
        self.request_bytes = request_bytes
        self.request_seconds = request_seconds
        self.max_clients = max_clients
        self.clients = 0
        self.served = 0
        self.rejected = 0
        self._server: asyncio.base_events.Server | None = None
        self._uid = os.getuid() if hasattr(os, "getuid") else None

    async def start(self, sock: socket.socket) -> None:
        self._server = await asyncio.start_unix_server(
            self._client, sock=sock, limit=self.request_bytes
        )

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.clients += 1
        try:
            if self._admit(writer):
                await self._serve(reader, writer)
            elif self.clients > self.max_clients:
                await self._fail(reader, writer, "busy", "too many clients; try again")
        except (ConnectionError, TimeoutError, OSError) as error:
            log.debug("client went away: %r", error)
        except Exception:
            log.exception("serving a client failed")
        finally:
            self.clients -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1.0)

    def _admit(self, writer: asyncio.StreamWriter) -> bool:
        sock = writer.get_extra_info("socket")
        uid = peer_uid(sock) if sock is not None else None
        if self._uid is not None and uid != self._uid:
            self.rejected += 1
            log.warning("refused a client of uid %s", uid)
            return False
        if self.clients > self.max_clients:
            self.rejected += 1
            log.info("%d clients at once: telling one to come back", self.clients)
            return False
        return True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                line = await asyncio.wait_for(reader.readuntil(b"\n"), self.request_seconds)
            except asyncio.IncompleteReadError:
                return
            except asyncio.LimitOverrunError:
                limit = f"requests are at most {self.request_bytes} bytes"
                await self._fail(reader, writer, "too_large", limit)
                return
            except TimeoutError:
                await self._fail(reader, writer, "timeout", "no complete request in time")
                return
            reply = await self._answer(line)
            writer.write(encode_reply(reply))
            await asyncio.wait_for(writer.drain(), WRITE_SECONDS)
            self.served += 1

    async def _answer(self, line: bytes) -> Reply:
        ident = None
        try:
            request = decode_request(line)
            ident = request.id
            result = await self.handler(request.method, request.params)
        except Exception as error:
            if ident is None:
                ident = request_id(line)
            if not isinstance(error, KeepdError):
                log.exception("request %r failed", line[:80])
            return error_reply(ident, error)
        return Reply(id=ident, ok=True, result=result)

    async def _fail(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, code: str, message: str
    ) -> None:
        """Replies with an error, then drops what the client still sends for a moment, so that
        closing does not reset the connection before the client has read the reply."""
        writer.write(encode_reply(error_reply(None, ProtocolError(code, message))))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer.drain(), 1.0)
            writer.write_eof()
            await asyncio.wait_for(_discard(reader), LINGER_SECONDS)


async def _discard(reader: asyncio.StreamReader) -> None:
    while await reader.read(1 << 16):
        pass
