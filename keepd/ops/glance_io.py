"""Reads and writes glances where the status line needs them fast: the daemon's `glance` request
and reply, and the daemon's cache file per session, as checked plain dicts.

`keepd statusline` runs once per repaint of Claude Code's status bar, and in an interpreter
without an editable install's start-up imports, `python -c pass` takes 13 ms while importing
`typing`, `pathlib`, `json` or `socket` adds 8-11 ms each (they load `re`, `enum`, `collections`).
So this module imports only what the interpreter has already loaded, plus the C modules
`_json` and `_socket` that `json` and `socket` are built on. The request is protocol version 1
as `keepd.ops.protocol` defines it, and the paths are those of `keepd.paths`; unit tests keep them
in step.
"""

from __future__ import annotations

import _json
import _socket
import os
import sys
import time

from keepd.errors import DaemonUnavailableError, ProtocolError, RemoteError

VERSION = 1  # keepd.ops.protocol.VERSION
METHOD = "glance"
REQUEST_ID = 1
MAX_REPLY_BYTES = 1 << 16
MAX_CACHE_BYTES = 1 << 16
THRESHOLD, URGENT = 0.60, 0.80  # the defaults of notify.threshold and notify.urgent
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_WHITESPACE = " \t\n\r"
# A compact boundary's own bytes, as Claude Code and `keepd cut` write it (`keepd.core.skim`'s
# needle): inside any JSON string its quotes would be escaped, so a prompt that quotes one
# does not match.
BOUNDARY = b'"subtype":"compact_boundary"'
SCAN_BYTES = 1 << 20  # read at a time when looking for a boundary written since a glance
MAX_SCAN_BYTES = 16 << 20  # a daemon further behind than this: only the newest bytes are read

# Every field of a glance and the types it may have; `checked` drops anything else.
KINDS: dict[str, tuple[type, ...]] = {
    "session_id": (str,),
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
    "code_changed": (bool,),
    "after": (int,),
    "threshold": (int, float),
    "urgent": (int, float),
    "written": (int, float),
}


def checked(data: object) -> dict[str, object] | None:
    """The well-typed fields of a glance (None without a `session_id`).

    >>> checked({"session_id": "ab", "below": 7, "frees": "x", "known": 1, "offset": True})
    {'session_id': 'ab', 'below': 7}
    >>> checked([1]) is None
    True
    """
    if not isinstance(data, dict) or not isinstance(data.get("session_id"), str):
        return None
    out: dict[str, object] = {}
    for name, kinds in KINDS.items():
        value = data.get(name)
        if isinstance(value, kinds) and (kinds == (bool,) or not isinstance(value, bool)):
            out[name] = value
    return out


def valid_session_id(session_id: str) -> bool:
    """A name safe to make a file of: Claude Code's session ids are uuids.

    >>> valid_session_id("2bcaea32-dfa9-5e36-a665-ace49ee0d851"), valid_session_id("../x")
    (True, False)
    """
    return (
        0 < len(session_id) <= 128
        and session_id[0] not in "._-"
        and all(char in _ID_CHARS for char in session_id)
    )


class _Context:
    """What `_json.make_scanner` reads from a `json.JSONDecoder`."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


_scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # any object with its attributes


def loads(raw: bytes) -> object:
    """One JSON document, as `json.loads` reads it; `ValueError` for anything else.

    >>> loads(b' {"a": [1, 2.5, "\\\\u00e9", null, true]} ')
    {'a': [1, 2.5, 'é', None, True]}
    """
    text = raw.decode("utf-8").strip(_WHITESPACE)
    try:
        value, end = _scan(text, 0)
    except Exception:  # `_json` reports most errors through json.decoder (without it loaded,
        return _slowly(text)  # as SystemError): let json itself say what is wrong
    if end != len(text):
        raise ValueError("extra data after the JSON document")
    return value


def _slowly(text: str) -> object:
    """`json.loads`, for input the fast scanner did not take: it names the error."""
    import json

    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def request_line(
    session_id: str,
    path: str | None = None,
    window: int | None = None,
    share: float | None = None,
) -> bytes:
    """The `glance` request, version 1, as one line, with the window and the share Claude
    Code's status line named (the daemon keeps them for the session).

    >>> request_line("ab")
    b'{"v": 1, "id": 1, "method": "glance", "params": {"session_id": "ab"}}\\n'
    >>> request_line("ab", window=1000000, share=0.04)[-55:]
    b'"session_id": "ab", "window": 1000000, "share": 0.04}}\\n'
    """
    params = '"session_id": ' + _json.encode_basestring_ascii(session_id)
    if path:
        params += ', "path": ' + _json.encode_basestring_ascii(path)
    if window is not None and window > 0:
        params += f', "window": {int(window)}'
        if share is not None and 0 <= share <= 1:
            params += f', "share": {float(share)!r}'
    line = f'{{"v": {VERSION}, "id": {REQUEST_ID}, "method": "{METHOD}", "params": {{{params}}}}}'
    return line.encode("ascii") + b"\n"


def parse_reply(line: bytes) -> dict[str, object]:
    """The glance in the daemon's reply line; raises `RemoteError` or `ProtocolError`."""
    try:
        reply = loads(line)
    except ValueError:
        raise ProtocolError("bad_reply", "the daemon's reply is not JSON") from None
    if not isinstance(reply, dict) or reply.get("v") != VERSION or reply.get("id") != REQUEST_ID:
        raise ProtocolError("bad_reply", "not a version 1 reply to this request")
    if reply.get("ok") is not True:
        error = reply.get("error")
        error = error if isinstance(error, dict) else {}
        raise RemoteError(str(error.get("code", "internal")), str(error.get("message", "")), 1)
    glance = checked(reply.get("result"))
    if glance is None:
        raise ProtocolError("bad_reply", "the reply holds no glance")
    return glance


def ask_daemon(
    session_id: str,
    path: str | None = None,
    *,
    timeout: float = 0.15,
    target: str | None = None,
    window: int | None = None,
    share: float | None = None,
) -> dict[str, object]:
    """The daemon's glance of a session, all within `timeout` seconds.

    Raises `DaemonUnavailableError` when no daemon answers in time, `RemoteError` when it answers
    with an error, `ProtocolError` for a reply that is not version 1.
    """
    where = target or socket_file()
    line = _exchange(request_line(session_id, path, window, share), where, timeout)
    return parse_reply(line)


def _exchange(request: bytes, target: str, timeout: float) -> bytes:
    """Sends one line and reads one line back before the deadline."""
    deadline = time.monotonic() + timeout
    try:
        sock = connect_unix(target, timeout)
    except (OSError, ValueError) as error:
        raise DaemonUnavailableError(f"no answer at {target}: {error}") from error
    try:
        sock.sendall(request)
        return read_line(sock, deadline, MAX_REPLY_BYTES)
    except (OSError, ValueError) as error:
        raise DaemonUnavailableError(f"no answer at {target}: {error}") from error
    finally:
        sock.close()


def connect_unix(target: str, timeout: float) -> _socket.socket:
    """A stream connection to `target`, with `timeout` set for what follows. The connect itself
    blocks, bounded by SO_SNDTIMEO: on Linux a client finding the daemon's listen backlog full
    (a burst of connections) waits in the kernel's queue and is let in, in turn, as the daemon
    accepts, where a non-blocking one would fail at once or race the burst for each free slot."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.setsockopt(_socket.SOL_SOCKET, _socket.SO_SNDTIMEO, _timeval(timeout))
        sock.connect(target)
        sock.settimeout(timeout)
    except BaseException:
        sock.close()
        raise
    return sock


def _timeval(seconds: float) -> bytes:
    """A C `struct timeval` (two native longs; `struct` itself would cost an import here)."""
    whole, part = divmod(max(seconds, 0.001), 1.0)
    size = 8 if sys.maxsize > 1 << 32 else 4
    return int(whole).to_bytes(size, sys.byteorder) + int(part * 1e6).to_bytes(size, sys.byteorder)


def read_line(sock: _socket.socket, deadline: float, limit: int) -> bytes:
    """One reply line (without its newline) read before `deadline` (`time.monotonic()`): a
    daemon that trickles its reply cannot hold a client past it. Raises OSError subclasses
    for a timeout or a closed connection, `ProtocolError` past `limit` bytes."""
    parts: list[bytes] = []
    size = 0
    while size <= limit:
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


def boundary_since(path: str, offset: int) -> bool:
    """Whether the transcript at `path` changed under a glance of its first `offset` bytes in
    a way that makes its pick wrong: a compaction (a compact boundary) written after them, as
    Claude Code's "Summarize up to here", `/compact` and `keepd cut` append, or a file shorter
    than what was read (replaced, as `keepd undo` does). False when it cannot be read.

    >>> import os, tempfile
    >>> handle, name = tempfile.mkstemp()
    >>> _ = os.write(handle, b'{"type":"user"}\\n' + BOUNDARY + b'\\n'); os.close(handle)
    >>> boundary_since(name, 0), boundary_since(name, 16), boundary_since(name, 45)
    (True, True, False)
    >>> boundary_since(name, 10_000), boundary_since(name + ".gone", 0)
    (True, False)
    >>> os.remove(name)
    """
    try:
        with open(path, "rb") as handle:  # noqa: PTH123 - no pathlib here
            size = os.fstat(handle.fileno()).st_size
            if size < offset:
                return True
            handle.seek(max(offset, size - MAX_SCAN_BYTES))
            tail = b""
            while True:
                block = handle.read(SCAN_BYTES)
                if not block:
                    return False
                if BOUNDARY in tail + block[: len(BOUNDARY)] or BOUNDARY in block:
                    return True
                tail = block[-len(BOUNDARY) :]
    except (OSError, ValueError):
        return False


def runtime_folder() -> str:
    """`keepd.paths.runtime_dir()`, without importing pathlib where XDG_RUNTIME_DIR is set."""
    base = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if base:
        return os.path.join(base, "keepd")  # noqa: PTH118 - pathlib is what this module avoids
    from keepd.paths import runtime_dir

    return str(runtime_dir())


def socket_file() -> str:
    return os.path.join(runtime_folder(), "keepd.sock")  # noqa: PTH118


def cache_folder() -> str:
    """The daemon's glances, one small file per session, beside its socket."""
    return os.path.join(runtime_folder(), "glance")  # noqa: PTH118


def cache_file(session_id: str) -> str | None:
    if not valid_session_id(session_id):
        return None
    return os.path.join(cache_folder(), session_id + ".json")  # noqa: PTH118


def read_cached(session_id: str) -> dict[str, object] | None:
    """The glance the daemon last wrote for a session; None when there is none (or it is bad)."""
    path = cache_file(session_id)
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:  # noqa: PTH123
            raw = handle.read(MAX_CACHE_BYTES + 1)
        data = loads(raw) if len(raw) <= MAX_CACHE_BYTES else None
    except (OSError, ValueError):
        return None
    glance = checked(data)
    return glance if glance is not None and glance["session_id"] == session_id else None


def write_cached(glance: dict[str, object]) -> bool:
    """Replaces a session's cache file (0600 in a 0700 folder); False when its id is unsafe.

    Readers see the old file or the new one. A cache needs no fsync: after a crash the daemon
    writes it again with its next analysis. Only the daemon writes, so json and pathlib are fine.
    """
    import json
    from pathlib import Path

    session_id = glance.get("session_id")
    name = cache_file(session_id) if isinstance(session_id, str) else None
    if name is None:
        return False
    from keepd.system.atomic import make_folder

    path = Path(name)
    make_folder(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    data = json.dumps(glance, ensure_ascii=False, separators=(",", ":")).encode()
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(handle, data)
    finally:
        os.close(handle)
    temporary.replace(path)
    return True


def prune_cached(keep: set[str]) -> int:
    """Deletes the cache files of sessions not in `keep`; returns how many (the daemon's)."""
    from pathlib import Path

    removed = 0
    try:
        entries = list(Path(cache_folder()).iterdir())
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
