"""Talks to a running daemon over its socket: one request, one reply, no heavy imports."""

from __future__ import annotations

import itertools
import socket
import time
from pathlib import Path
from typing import Any

from keepd.errors import DaemonUnavailableError, ProtocolError, RemoteError
from keepd.ops.glance_io import connect_unix, read_line
from keepd.ops.protocol import Request, decode_reply, encode_request
from keepd.paths import socket_path

MAX_REPLY_BYTES = 256 << 20
BUSY_RETRIES = (0.05, 0.1, 0.2, 0.4, None)
_ids = itertools.count(1)


class Client:
    """A connection per call to the daemon's socket (default: the per-user one)."""

    def __init__(self, path: Path | None = None, *, timeout: float = 30.0) -> None:
        self.path = path
        self.timeout = timeout

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The result of `method`; raises `DaemonUnavailableError` when nobody answers.

        A daemon serving too many clients says `busy`; the call is then tried again shortly.
        """
        for pause in BUSY_RETRIES:
            try:
                return self._call_once(method, params)
            except RemoteError as error:
                if error.title != "busy" or pause is None:
                    raise
            time.sleep(pause)
        raise AssertionError("unreachable")

    def _call_once(self, method: str, params: dict[str, Any] | None) -> Any:
        request = Request(method=method, params=params or {}, id=next(_ids))
        with self._connect() as sock:
            try:
                sock.sendall(encode_request(request))
                line = read_line(sock, time.monotonic() + self.timeout, MAX_REPLY_BYTES)
            except OSError as error:
                raise DaemonUnavailableError(f"the daemon stopped answering: {error}") from error
        reply = decode_reply(line)
        if reply.id != request.id:
            raise ProtocolError("bad_reply", "the reply answers another request")
        if not reply.ok:
            info = reply.error
            assert info is not None
            raise RemoteError(info.code.replace("_", " "), info.message, info.exit)
        return reply.result

    def _connect(self) -> socket.socket:
        target = self.path if self.path is not None else socket_path()
        try:
            return connect(target, self.timeout)
        except (OSError, ValueError) as error:
            raise DaemonUnavailableError(f"no daemon at {target}: {error}") from error


def connect(target: Path, timeout: float) -> socket.socket:
    """A connection to the socket at `target`, waiting for room in a full listen backlog (see
    `glance_io.connect_unix`); raises OSError when there is none within `timeout`."""
    sock = socket.socket(fileno=connect_unix(str(target), timeout).detach())
    sock.settimeout(timeout)
    return sock
