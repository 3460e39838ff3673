"""The socket protocol: what is accepted, and that anything else is a ProtocolError."""

from __future__ import annotations

import contextlib

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.errors import KeepdError, ProtocolError, SessionNotFoundError
from keepd.ops.protocol import (
    METHODS,
    REQUIRED,
    Reply,
    Request,
    decode_reply,
    decode_request,
    encode_reply,
    encode_request,
    error_reply,
    request_id,
)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_every_method_round_trips(method: str) -> None:
    wanted = ("name", *REQUIRED.get(method, ()))
    params = {key: "abc" for key in wanted if key in METHODS[method]}
    line = encode_request(Request(method=method, params=params, id=9))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode_request(line.strip()) == Request(method=method, params=params, id=9)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"nope", "bad_json"),
        (b"[]", "bad_request"),
        (b'{"v": 1, "id": true, "method": "ping"}', "bad_request"),
        (b'{"v": 1, "id": "' + b"x" * 200 + b'", "method": "ping"}', "bad_request"),
        (b'{"v": 3, "method": "ping"}', "bad_version"),
        (b'{"v": 1, "method": "shutdown"}', "unknown_method"),
        (b'{"v": 1, "method": "ping", "params": "x"}', "bad_params"),
        (b'{"v": 1, "method": "ping", "params": {"a": 1}}', "bad_params"),
        (b'{"v": 1, "method": "session", "params": {"name": "a", "detail": 1}}', "bad_params"),
        (b'{"v": 1, "method": "pause", "params": {"minutes": false}}', "bad_params"),
        (b'{"v": 1, "method": "unmute", "params": {}}', "bad_params"),
    ],
)
def test_bad_requests(line: bytes, code: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        decode_request(line)
    assert caught.value.code == code


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_are_a_request_or_a_protocol_error(line: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        decode_request(line)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["v", "id", "method", "params", "x"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=8), st.booleans(), st.floats()),
    )
)
def test_any_object_is_a_request_or_a_protocol_error(data: dict[str, object]) -> None:
    try:
        request = decode_request(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))
    except (ProtocolError, orjson.JSONEncodeError):
        return
    assert request.method in METHODS


def test_error_replies_carry_the_exit_code() -> None:
    reply = decode_reply(encode_reply(error_reply(4, SessionNotFoundError("x: no such file"))))
    assert reply.error is not None and reply.id == 4 and not reply.ok
    assert (reply.error.code, reply.error.exit) == ("no_such_session", 3)
    internal = error_reply(None, ValueError("secret detail"))
    assert internal.error is not None and "secret" not in internal.error.message
    assert internal.error.exit == 70
    assert isinstance(SessionNotFoundError("x"), KeepdError)


def test_request_id_of_a_broken_request() -> None:
    assert request_id(b'{"id": 5, "v": 9}') == 5
    assert request_id(b"garbage") is None


def test_a_reply_must_be_version_one() -> None:
    with pytest.raises(ProtocolError):
        decode_reply(b'{"v": 2, "ok": true}')
    assert decode_reply(encode_reply(Reply(id="a", ok=True, result=[1]))).result == [1]
