"""The socket protocol, version 1: one JSON object per line each way, allow-listed methods.

>>> request = decode_request(b'{"v":1,"id":7,"method":"mute","params":{"name":"ab12"}}')
>>> request.method, request.params
('mute', {'name': 'ab12'})
>>> decode_reply(encode_reply(Reply(id=7, ok=True, result={"muted": True}))).result
{'muted': True}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from keepd.errors import KeepdError, ProtocolError

VERSION = 1
MAX_ID_CHARS = 128

_NUMBER = (int, float)

# Every method and the parameters it accepts (name -> allowed types); nothing else is served.
METHODS: dict[str, dict[str, tuple[type, ...]]] = {
    "ping": {},
    "status": {},
    "sessions": {"name": (str,)},
    "session": {"name": (str,), "detail": (bool,)},
    "note": {"name": (str,)},
    "mute": {"name": (str,), "minutes": _NUMBER},
    "unmute": {"name": (str,)},
    "pause": {"minutes": _NUMBER},
    "resume": {},
    "rescan": {},
    "glance": {"session_id": (str,), "path": (str,), "window": (int,), "share": _NUMBER},
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "session": ("name",),
    "note": ("name",),
    "mute": ("name",),
    "unmute": ("name",),
    "glance": ("session_id",),
}


@dataclass(frozen=True, slots=True)
class Request:
    """`{"v": 1, "id": ..., "method": ..., "params": {...}}`."""

    method: str
    params: dict[str, Any] = field(default_factory=dict)
    id: int | str | None = None


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """Why a request failed: a stable code, a message, and the CLI's exit code for it."""

    code: str
    message: str
    exit: int = 1


@dataclass(frozen=True, slots=True)
class Reply:
    """`{"v": 1, "id": ..., "ok": true, "result": ...}` or `... "ok": false, "error": {...}`."""

    id: int | str | None
    ok: bool
    result: Any = None
    error: ErrorInfo | None = None


def encode_request(request: Request) -> bytes:
    payload = {"v": VERSION, "id": request.id, "method": request.method, "params": request.params}
    return orjson.dumps(payload) + b"\n"


def decode_request(line: bytes) -> Request:
    """The request on one line; a `ProtocolError` says what is wrong with it."""
    data = _object(line)
    ident = _request_id(data.get("id"))
    if data.get("v") != VERSION:
        raise ProtocolError("bad_version", f"protocol version {VERSION} expected")
    method = data.get("method")
    if not isinstance(method, str) or method not in METHODS:
        raise ProtocolError("unknown_method", f"no such method: {str(method)[:64]!r}")
    params = data.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolError("bad_params", "params must be an object")
    _check_params(method, params)
    return Request(method=method, params=params, id=ident)


def request_id(line: bytes) -> int | str | None:
    """The id of a request line if it has a usable one (to address an error reply)."""
    try:
        data = orjson.loads(line)
        return _request_id(data.get("id")) if isinstance(data, dict) else None
    except (orjson.JSONDecodeError, ProtocolError):
        return None


def encode_reply(reply: Reply) -> bytes:
    payload: dict[str, Any] = {"v": VERSION, "id": reply.id, "ok": reply.ok}
    if reply.ok:
        payload["result"] = reply.result
    else:
        error = reply.error or ErrorInfo("internal", "unknown error")
        payload["error"] = {"code": error.code, "message": error.message, "exit": error.exit}
    return orjson.dumps(payload, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n"


def decode_reply(line: bytes) -> Reply:
    data = _object(line)
    if data.get("v") != VERSION or not isinstance(data.get("ok"), bool):
        raise ProtocolError("bad_reply", "not a version 1 reply")
    if data["ok"]:
        return Reply(id=data.get("id"), ok=True, result=data.get("result"))
    error = data.get("error")
    error = error if isinstance(error, dict) else {}
    exit_code = error.get("exit")
    info = ErrorInfo(
        code=str(error.get("code", "internal")),
        message=str(error.get("message", "")),
        exit=exit_code if isinstance(exit_code, int) else 1,
    )
    return Reply(id=data.get("id"), ok=False, error=info)


def error_reply(ident: int | str | None, error: Exception) -> Reply:
    """The reply for an exception: protocol errors by code, keepd's errors by title."""
    if isinstance(error, ProtocolError):
        info = ErrorInfo(error.code, error.message, error.exit_code)
    elif isinstance(error, KeepdError):
        info = ErrorInfo(error.title.replace(" ", "_"), error.message, error.exit_code)
    else:
        info = ErrorInfo("internal", f"internal error: {type(error).__name__}", 70)
    return Reply(id=ident, ok=False, error=info)


def _object(line: bytes) -> dict[str, Any]:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        raise ProtocolError("bad_json", f"not JSON: {error}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_request", "a request is one JSON object")
    return data


def _request_id(value: Any) -> int | str | None:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str) and len(value) <= MAX_ID_CHARS:
        return value
    raise ProtocolError("bad_request", "id must be an integer, a short string or null")


def _check_params(method: str, params: dict[str, Any]) -> None:
    allowed = METHODS[method]
    for key, value in params.items():
        kinds = allowed.get(key)
        if kinds is None:
            raise ProtocolError("bad_params", f"{method} takes no parameter {str(key)[:64]!r}")
        if isinstance(value, bool) and bool not in kinds:
            raise ProtocolError("bad_params", f"{method}: {key} has the wrong type")
        if not isinstance(value, kinds):
            raise ProtocolError("bad_params", f"{method}: {key} has the wrong type")
    for key in REQUIRED.get(method, ()):
        if key not in params:
            raise ProtocolError("bad_params", f"{method} needs {key!r}")
