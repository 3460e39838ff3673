"""The glance: its record, its cache files, and its lean request kept in step with the protocol."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keepd.errors import ProtocolError, RemoteError, SessionNotFoundError
from keepd.glance import (
    METHOD,
    REQUEST_ID,
    VERSION,
    Glance,
    cache_dir,
    cache_file,
    from_dict,
    from_summary,
    parse_reply,
    prune_cached,
    read_cached,
    request_line,
    write_cached,
)
from keepd.protocol import (
    METHODS,
    REQUIRED,
    Reply,
    decode_request,
    encode_reply,
    error_reply,
)
from keepd.protocol import VERSION as PROTOCOL_VERSION

SESSION = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
SUMMARY = {
    "messages": 319,
    "stop_count": 40,
    "context": {"tokens": 128495, "window": 200000, "share": 0.6425, "source": "usage"},
    "pick": "bb77a44a",
    "grade": "●●●",
    "below": 19,
    "frees": 0.5404,
    "quote": "ok the fix PR is merged too",
}


def _glance() -> Glance:
    return from_summary(SESSION, SUMMARY, offset=4096, threshold=0.6, urgent=0.8, written=1.5)


def test_the_lean_request_is_a_version_1_request_the_daemon_accepts() -> None:
    assert VERSION == PROTOCOL_VERSION and METHOD in METHODS
    assert set(REQUIRED[METHOD]) <= {"session_id", "path"} <= set(METHODS[METHOD])
    request = decode_request(request_line(SESSION, "/p/x.jsonl").strip())
    assert request.method == METHOD and request.id == REQUEST_ID
    assert request.params == {"session_id": SESSION, "path": "/p/x.jsonl"}
    assert decode_request(request_line(SESSION).strip()).params == {"session_id": SESSION}


def test_the_daemons_reply_reads_back_as_the_glance_it_sent() -> None:
    sent = _glance()
    line = encode_reply(Reply(id=REQUEST_ID, ok=True, result=sent.to_dict()))
    assert parse_reply(line.strip()) == sent


def test_error_replies_and_foreign_lines_raise_keepds_errors() -> None:
    failed = encode_reply(error_reply(REQUEST_ID, SessionNotFoundError("nope")))
    with pytest.raises(RemoteError):
        parse_reply(failed.strip())
    foreign = (b'{"v": 2, "id": 1, "ok": true}', b'{"v": 1, "id": 7, "ok": true}')
    for line in (b"nope", b"[]", *foreign):
        with pytest.raises(ProtocolError):
            parse_reply(line)
    with pytest.raises(ProtocolError):
        parse_reply(b'{"v": 1, "id": 1, "ok": true, "result": [1]}')


def test_from_summary_takes_the_pick_and_the_context() -> None:
    glance = _glance()
    assert glance.known and glance.analysed and glance.offset == 4096
    assert (glance.tokens, glance.window, glance.share) == (128495, 200000, 0.6425)
    assert (glance.grade, glance.below, glance.frees) == ("●●●", 19, 0.5404)
    assert glance.pick == "bb77a44a"
    empty = from_summary(SESSION, {}, offset=0, threshold=0.6, urgent=0.8)
    assert empty.known and not empty.analysed and empty.below is None


@given(st.dictionaries(st.sampled_from(list(Glance._fields)), st.from_type(object) | st.none()))
def test_from_dict_never_raises_and_keeps_only_well_typed_fields(data: dict[str, object]) -> None:
    glance = from_dict(data)
    if glance is None:
        assert not isinstance(data.get("session_id"), str)
        return
    for name, value in glance.to_dict().items():
        assert value is data.get(name) or value == Glance._field_defaults[name]


def test_the_cache_round_trips_privately(private_home: Path) -> None:
    glance = _glance()
    assert write_cached(glance)
    path = cache_file(SESSION)
    assert path is not None and path.parent == cache_dir()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert read_cached(SESSION) == glance
    assert not list(path.parent.glob(".*.tmp"))


def test_unsafe_ids_and_bad_files_read_as_nothing(private_home: Path) -> None:
    assert cache_file("../../etc/passwd") is None and cache_file("") is None
    assert not write_cached(Glance("../x")) and read_cached("../x") is None
    assert read_cached(SESSION) is None
    write_cached(_glance())
    path = cache_file(SESSION)
    assert path is not None
    for bad in (b"{", b"[]", b'{"session_id": "other"}', b"\xff" * 10, b" " * (1 << 17)):
        path.write_bytes(bad)
        assert read_cached(SESSION) is None


def test_prune_keeps_the_named_sessions(private_home: Path) -> None:
    for session_id in ("a1", "b2", "c3"):
        write_cached(Glance(session_id))
    assert prune_cached({"b2"}) == 2
    assert sorted(path.stem for path in cache_dir().glob("*.json")) == ["b2"]
    assert prune_cached(set()) == 1 and prune_cached(set()) == 0
