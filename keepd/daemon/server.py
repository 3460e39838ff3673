"""The local socket: newline-delimited JSON requests from the user's own processes only.

Each connection may send several requests, one line each, and gets one reply line per request.
A line longer than `request_bytes`, a client silent for `request_seconds`, or a peer of another
user ends that connection (after an error reply where one can be sent); nothing a client sends
reaches more than its own connection.

Idle clients cost a descriptor, never a turn: `max_clients` counts only requests being answered
in a thread (ping, status and the other quick methods are always answered), and at the budget
of open connections (`MAX_CONNECTIONS`, fewer where the descriptor limit is low: the daemon
keeps some for reading sessions) the connection idle the longest is closed to let a new one in.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from keepd.daemon.clients import Connection, StreamProtocol, peer_uid, socket_of, unread
from keepd.daemon.descriptors import connection_budget
from keepd.errors import KeepdError, ProtocolError
from keepd.ops.protocol import Reply, decode_request, encode_reply, error_reply, request_id
from keepd.system.atomic import make_folder

log = logging.getLogger(__name__)
Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]
WRITE_SECONDS = 30.0
LINGER_SECONDS = 1.0
# A short backlog: a client queued behind a flood of connections waits for fewer of them
# (keepd's clients wait in the kernel's queue for room in a full one: glance_io.connect_unix).
BACKLOG = 32
MAX_CONNECTIONS = 1024  # open at once (fewer if the descriptor limit is low)
ACCEPT_BATCH = 16  # connections accepted per turn of the loop, so that their requests are read
RETRY_SECONDS = 0.05  # accepting again after running out of descriptors or of idle connections
# A socket just accepted is not closed to make room for this long, so that its client has the
# turn to send its request (a loaded machine may hold it between connect and send): a flood
# of silent sockets then waits this long longer for room.
FRESH_SECONDS = 0.25
SHORT_OF_DESCRIPTORS = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


def bind_socket(path: Path) -> socket.socket:
    """A listening socket at `path`, in a 0700 folder, itself 0600; a stale one is replaced."""
    make_folder(path.parent)
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
    sock.listen(BACKLOG)
    return sock


def evictable(connection: Connection, fresh_after: float) -> bool:
    """Whether `connection` may be closed to make room: it is waited for, not closed already,
    and not a socket accepted after `fresh_after` that has sent nothing yet."""
    since = connection.idle_since
    if since is None or connection.evicted:
        return False
    return connection.sock is None or since <= fresh_after


class Server:
    """Serves requests with `handler(method, params)`, which the daemon backs with `Operations`;
    `quick` methods are answered on the loop at once and never told `busy`."""

    def __init__(
        self,
        handler: Handler,
        *,
        request_bytes: int,
        request_seconds: float,
        max_clients: int,
        max_connections: int = MAX_CONNECTIONS,
        quick: frozenset[str] = frozenset(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.handler = handler
        self.request_bytes = request_bytes
        self.request_seconds = request_seconds
        self.max_clients = max_clients
        self.quick = quick
        self.clock = clock
        self.budget = connection_budget(max_connections)
        self.connections: set[Connection] = set()
        self.answering = 0
        self.served = 0
        self.rejected = 0
        self.evicted = 0
        self._listener: socket.socket | None = None
        self._paused = self._short = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._uid = os.getuid() if hasattr(os, "getuid") else None

    @property
    def clients(self) -> int:
        return len(self.connections)

    async def start(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self._listener = sock
        asyncio.get_running_loop().add_reader(sock.fileno(), self._accept)

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            if not self._paused:
                asyncio.get_running_loop().remove_reader(listener.fileno())
            listener.close()
        for connection in list(self.connections):
            if connection.sock is not None:
                self._drop(connection, connection.sock)
            elif connection.writer is not None:
                connection.writer.transport.abort()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)

    def _accept(self) -> None:
        """Takes the waiting connections (a batch per turn), within the budget."""
        assert self._listener is not None
        for _ in range(ACCEPT_BATCH):
            if len(self.connections) >= self.budget:
                # Evicted streams count until their sockets are closed, then accepting resumes
                # (as it does when a connection turns idle, if none could be evicted).
                self._make_room(ACCEPT_BATCH)
                if len(self.connections) >= self.budget:
                    self._pause()
                    return
            try:
                sock, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                if error.errno in SHORT_OF_DESCRIPTORS:
                    log.warning("cannot accept a client: %s; trying again shortly", error)
                    self._pause(short=True)
                    return
                continue  # that client already went away
            self._watch(sock)

    def _pause(self, *, short: bool = False) -> None:
        """Stops accepting until a connection turns idle or closes (`short` of descriptors:
        until `RETRY_SECONDS` have passed)."""
        if self._listener is None or self._paused:
            return
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._listener.fileno())
        self._paused, self._short = True, short
        loop.call_later(RETRY_SECONDS, self._resume, True)

    def _resume(self, timer: bool = False) -> None:
        if self._listener is not None and self._paused and (timer or not self._short):
            self._paused = False
            asyncio.get_running_loop().add_reader(self._listener.fileno(), self._accept)

    def _idle(self, connection: Connection) -> None:
        """The connection waits on its client; accepting resumes if it waited for one."""
        connection.idle_since = self.clock()
        self._resume()

    def _make_room(self, wanted: int) -> None:
        """Closes up to `wanted` connections, those waited for the longest. Spared: one whose
        request has arrived but is not read yet, and a socket accepted within `FRESH_SECONDS`
        that has not sent anything yet (its client may not have had the turn to send its
        request: a flood must not close a real client's new connection; accepting waits)."""
        wanted -= sum(1 for connection in self.connections if connection.evicted)
        if wanted <= 0:
            return
        fresh_after = self.clock() - FRESH_SECONDS
        idle = [c for c in self.connections if evictable(c, fresh_after)]
        idle.sort(key=lambda connection: connection.idle_since or 0.0)
        for connection in idle:
            if wanted <= 0:
                break
            if connection.sock is not None and not unread(connection.sock):
                self._drop(connection, connection.sock, self._eviction())
                wanted -= 1
            elif connection.writer is not None and not unread(socket_of(connection.writer)):
                self._evict(connection, connection.writer)
                wanted -= 1

    def _eviction(self) -> bytes:
        self.evicted += 1
        message = f"closed to let another client in: {self.budget} connections at once"
        return encode_reply(error_reply(None, ProtocolError("timeout", message)))

    def _evict(self, connection: Connection, writer: asyncio.StreamWriter) -> None:
        connection.evicted = True
        if writer.transport.get_write_buffer_size():  # it does not read: drop what waits
            self.evicted += 1
            writer.transport.abort()
        else:
            writer.write(self._eviction())
            writer.close()

    def _watch(self, sock: socket.socket) -> None:
        """Holds a new connection as a bare socket until it sends something."""
        sock.setblocking(False)
        connection = Connection(sock=sock, idle_since=self.clock())
        self.connections.add(connection)
        loop = asyncio.get_running_loop()
        loop.add_reader(sock.fileno(), self._first_bytes, connection)
        connection.silence = loop.call_later(self.request_seconds, self._silent, connection)

    def _silent(self, connection: Connection) -> None:
        if connection.sock is not None:
            reply = error_reply(None, ProtocolError("timeout", "no complete request in time"))
            self._drop(connection, connection.sock, encode_reply(reply))

    def _drop(self, connection: Connection, sock: socket.socket, farewell: bytes = b"") -> None:
        """Closes a connection that never sent anything (its descriptor is free at once)."""
        asyncio.get_running_loop().remove_reader(sock.fileno())
        if connection.silence is not None:
            connection.silence.cancel()
        if farewell:
            with contextlib.suppress(OSError):
                sock.send(farewell)
        sock.close()
        connection.sock = None
        self._closed(connection)

    def _first_bytes(self, connection: Connection) -> None:
        """The client sent something (or closed): it gets a stream and a task."""
        sock = connection.sock
        if sock is None:
            return
        try:
            sent = sock.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            return
        except OSError:
            sent = b""
        if not sent:  # it went away without a word (a flood ending): no stream for that
            self._drop(connection, sock)
            return
        asyncio.get_running_loop().remove_reader(sock.fileno())
        if connection.silence is not None:
            connection.silence.cancel()
        connection.sock, connection.idle_since = None, None
        task = asyncio.get_running_loop().create_task(self._client(sock, connection))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _client(self, sock: socket.socket, connection: Connection) -> None:
        writer: asyncio.StreamWriter | None = None
        try:
            reader, writer = await self._streams(sock, connection)
            connection.writer = writer
            if self._admit(sock):
                await self._serve(connection, reader, writer)
        except (ConnectionError, TimeoutError, OSError) as error:
            log.debug("client went away: %r", error)
        except Exception:
            log.exception("serving a client failed")
        finally:
            if writer is None:
                sock.close()
                self._closed(connection)
            else:
                writer.close()  # the transport calls `_closed` as it closes the socket

    def _closed(self, connection: Connection) -> None:
        """The connection's descriptor is free: one more may be accepted."""
        self.connections.discard(connection)
        self._resume()

    async def _streams(
        self, sock: socket.socket, connection: Connection
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A stream over the socket, whose protocol marks the connection and reports its end."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=self.request_bytes, loop=loop)
        protocol = StreamProtocol(reader, connection, self._closed, loop)
        transport, _ = await loop.connect_accepted_socket(lambda: protocol, sock)
        return reader, asyncio.StreamWriter(transport, protocol, reader, loop)

    def _admit(self, sock: socket.socket) -> bool:
        uid = peer_uid(sock)
        if self._uid is not None and uid != self._uid:
            self.rejected += 1
            log.warning("refused a client of uid %s", uid)
            return False
        return True

    async def _serve(
        self, connection: Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while not connection.evicted:
            self._idle(connection)
            try:
                async with asyncio.timeout(self.request_seconds):
                    line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError:
                return
            except asyncio.LimitOverrunError:
                limit = f"requests are at most {self.request_bytes} bytes"
                await self._fail(reader, writer, "too_large", limit)
                return
            except TimeoutError:
                await self._fail(reader, writer, "timeout", "no complete request in time")
                return
            if connection.evicted:
                return
            connection.idle_since = None
            reply = await self._answer(line)
            writer.write(encode_reply(reply))
            self._idle(connection)  # until the client has read the reply
            async with asyncio.timeout(WRITE_SECONDS):
                await writer.drain()
            self.served += 1

    async def _answer(self, line: bytes) -> Reply:
        ident = None
        try:
            request = decode_request(line)
            ident = request.id
            if request.method not in self.quick and self.answering >= self.max_clients:
                self.rejected += 1
                raise ProtocolError("busy", f"{self.answering} requests at once; try again")
            self.answering += 1
            try:
                result = await self.handler(request.method, request.params)
            finally:
                self.answering -= 1
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
