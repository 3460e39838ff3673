"""systemd's side channels, without libsystemd: readiness and watchdog datagrams, passed sockets.

All of them are no-ops unless systemd (or a test standing in for it) set the variables.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)
FIRST_FD = 3


def notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Sends `READY=1`, `STATUS=...`, `WATCHDOG=1` or `STOPPING=1` to `$NOTIFY_SOCKET`."""
    env = os.environ if environ is None else environ
    target = env.get("NOTIFY_SOCKET", "")
    if not target:
        return False
    if target.startswith("@"):
        target = "\0" + target[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(target)
            sock.sendall(message.encode())
    except OSError as error:
        log.warning("sd_notify %r failed: %s", message, error)
        return False
    return True


def watchdog_seconds(environ: Mapping[str, str] | None = None) -> float | None:
    """How often to send `WATCHDOG=1` (half of `WatchdogSec=`), if systemd asks for it."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) <= 0 or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2e6


def listening_socket(environ: Mapping[str, str] | None = None) -> socket.socket | None:
    """The socket systemd passed (`LISTEN_FDS`, `keepd.socket`), if it passed one to us."""
    env = os.environ if environ is None else environ
    if env.get("LISTEN_PID") != str(os.getpid()) or not env.get("LISTEN_FDS", "").isdigit():
        return None
    if int(env["LISTEN_FDS"]) < 1:
        return None
    sock = socket.socket(fileno=FIRST_FD)
    if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
        log.warning("the passed socket is not a Unix stream socket; binding our own")
        sock.detach()
        return None
    os.set_inheritable(FIRST_FD, False)
    return sock
