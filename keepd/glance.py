"""One session at a glance (context use and the pick): the record, its cache file, and the one
request that asks the daemon for it.

The status line imports this on every repaint of Claude Code's status bar, so it stays lean:
stdlib `json` rather than orjson and a `NamedTuple` rather than a dataclass, because importing
orjson (which loads dataclasses, uuid, datetime and platform) or dataclasses (which loads
inspect) costs more than half of the interpreter's own start (`scripts/bench_statusline.py`).
The request is protocol version 1 as `keepd.protocol` defines it; a unit test keeps the two in
step. The daemon writes the cache after each analysis; the status line reads it when no daemon
answers.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any, NamedTuple

from keepd.errors import DaemonUnavailableError, ProtocolError, RemoteError
from keepd.paths import runtime_dir, socket_path

VERSION = 1  # keepd.protocol.VERSION
METHOD = "glance"
REQUEST_ID = 1
MAX_REPLY_BYTES = 1 << 16
MAX_CACHE_BYTES = 1 << 16
THRESHOLD, URGENT = 0.60, 0.80  # the defaults of notify.threshold and notify.urgent
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


class Glance(NamedTuple):
    """What the status line shows of a session; `known` false: nobody follows it."""

    session_id: str
    known: bool = False
    analysed: bool = False  # the fields below come from an analysis
    offset: int = 0  # the bytes of the file that analysis read
    tokens: int | None = None
    window: int | None = None
    share: float | None = None
    pick: str | None = None
    grade: str | None = None  # the pick's grade; None when the stop is the trade's
    below: int | None = None
    frees: float | None = None
    threshold: float = THRESHOLD  # the daemon's notify.threshold and notify.urgent
    urgent: float = URGENT
    written: float | None = None  # when it was made, seconds since the epoch

    def to_dict(self) -> dict[str, Any]:
        return self._asdict()


_KINDS: dict[str, tuple[type, ...]] = {
    "known": (bool,),
    "analysed": (bool,),
    "offset": (int,),
    "tokens": (int,),
    "window": (int,),
    "share": (int, float),
    "pick": (str,),
    "grade": (str,),
    "below": (int,),
    "frees": (int, float),
    "threshold": (int, float),
    "urgent": (int, float),
    "written": (int, float),
}


def from_dict(data: Any) -> Glance | None:
    """The glance in a reply or a cache file; a field of the wrong type is left at its default.

    >>> glance = from_dict({"session_id": "ab", "known": True, "below": "7", "offset": True})
    >>> glance.session_id, glance.known, glance.below, glance.offset
    ('ab', True, None, 0)
    >>> from_dict([1, 2]) is None
    True
    """
    if not isinstance(data, dict) or not isinstance(data.get("session_id"), str):
        return None
    fields: dict[str, Any] = {"session_id": data["session_id"]}
    for name, kinds in _KINDS.items():
        value = data.get(name)
        if isinstance(value, kinds) and (kinds == (bool,) or not isinstance(value, bool)):
            fields[name] = value
    return Glance(**fields)


def from_summary(
    session_id: str,
    summary: dict[str, Any],
    *,
    offset: int,
    threshold: float,
    urgent: float,
    written: float | None = None,
) -> Glance:
    """A glance from `overview.pick_fields` (what an analysis found), for the daemon and offline."""
    context = summary.get("context") or {}
    fields = {
        "session_id": session_id,
        "known": True,
        "analysed": bool(summary),
        "offset": offset,
        "tokens": context.get("tokens"),
        "window": context.get("window"),
        "share": context.get("share"),
        "pick": summary.get("pick"),
        "grade": summary.get("grade"),
        "below": summary.get("below"),
        "frees": summary.get("frees"),
        "threshold": threshold,
        "urgent": urgent,
        "written": time.time() if written is None else written,
    }
    glance = from_dict(fields)
    assert glance is not None
    return glance


def valid_session_id(session_id: str) -> bool:
    """A name safe to make a file of: Claude Code's session ids are uuids.

    >>> valid_session_id("2bcaea32-dfa9-5e36-a665-ace49ee0d851"), valid_session_id("../x")
    (True, False)
    """
    return _SESSION_ID.fullmatch(session_id) is not None


def cache_dir() -> Path:
    """The daemon's glances, one small file per session, beside its socket."""
    return runtime_dir() / "glance"


def cache_file(session_id: str) -> Path | None:
    return cache_dir() / f"{session_id}.json" if valid_session_id(session_id) else None


def read_cached(session_id: str) -> Glance | None:
    """The glance the daemon last wrote for a session; None when there is none (or it is bad)."""
    path = cache_file(session_id)
    if path is None:
        return None
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CACHE_BYTES + 1)
        data = json.loads(raw) if len(raw) <= MAX_CACHE_BYTES else None
    except (OSError, ValueError):
        return None
    glance = from_dict(data)
    return glance if glance is not None and glance.session_id == session_id else None


def write_cached(glance: Glance) -> bool:
    """Replaces a session's cache file (0600 in a 0700 folder); False when the id is unsafe.

    Readers see the old file or the new one. A cache needs no fsync: after a crash the daemon
    writes it again with its next analysis.
    """
    path = cache_file(glance.session_id)
    if path is None:
        return False
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    data = json.dumps(glance.to_dict(), ensure_ascii=False, separators=(",", ":")).encode()
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(handle, data)
    finally:
        os.close(handle)
    temporary.replace(path)
    return True


def prune_cached(keep: set[str]) -> int:
    """Deletes the cache files of sessions not in `keep`; returns how many."""
    removed = 0
    try:
        entries = list(cache_dir().iterdir())
    except OSError:
        return 0
    for entry in entries:
        if entry.suffix == ".json" and entry.stem not in keep:
            try:
                entry.unlink()
            except OSError:
                continue
            removed += 1
    return removed


def ask_daemon(
    session_id: str, path: str | None = None, *, timeout: float = 0.15, target: Path | None = None
) -> Glance:
    """The daemon's glance of a session, all within `timeout` seconds.

    Raises `DaemonUnavailableError` when no daemon answers in time, `RemoteError` when it answers
    with an error, `ProtocolError` for a reply that is not version 1.
    """
    line = _exchange(request_line(session_id, path), target or socket_path(), timeout)
    return parse_reply(line)


def request_line(session_id: str, path: str | None = None) -> bytes:
    """The `glance` request, version 1, as one line."""
    params = {"session_id": session_id} | ({"path": path} if path else {})
    request = {"v": VERSION, "id": REQUEST_ID, "method": METHOD, "params": params}
    return json.dumps(request).encode() + b"\n"


def parse_reply(line: bytes) -> Glance:
    """The glance in the daemon's reply line; raises `RemoteError` or `ProtocolError`."""
    try:
        reply = json.loads(line)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_reply", "the daemon's reply is not JSON") from None
    if not isinstance(reply, dict) or reply.get("v") != VERSION or reply.get("id") != REQUEST_ID:
        raise ProtocolError("bad_reply", "not a version 1 reply to this request")
    if reply.get("ok") is not True:
        error = reply.get("error")
        error = error if isinstance(error, dict) else {}
        raise RemoteError(str(error.get("code", "internal")), str(error.get("message", "")), 1)
    glance = from_dict(reply.get("result"))
    if glance is None:
        raise ProtocolError("bad_reply", "the reply holds no glance")
    return glance


def _exchange(request: bytes, target: Path, timeout: float) -> bytes:
    """Sends one line and reads one line back before the deadline."""
    deadline = time.monotonic() + timeout
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(str(target))
        sock.sendall(request)
        return _read_line(sock, deadline)
    except (OSError, ValueError) as error:
        raise DaemonUnavailableError(f"no answer at {target}: {error}") from error
    finally:
        sock.close()


def _read_line(sock: socket.socket, deadline: float) -> bytes:
    parts: list[bytes] = []
    size = 0
    while size <= MAX_REPLY_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the daemon did not answer in time")
        sock.settimeout(left)
        chunk = sock.recv(1 << 14)
        if not chunk:
            raise ConnectionError("the daemon closed the connection without a reply")
        cut = chunk.find(b"\n")
        if cut >= 0:
            parts.append(chunk[:cut])
            return b"".join(parts)
        parts.append(chunk)
        size += len(chunk)
    raise ProtocolError("too_large", "the daemon's reply is too large")
