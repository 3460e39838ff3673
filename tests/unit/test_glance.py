"""The glance: its record, its cache files, and its lean request, reply and paths kept in step
with the protocol and keepd.paths."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keepd.errors import ProtocolError, RemoteError, SessionNotFoundError
from keepd.ops.glance import Glance, from_dict, from_summary
from keepd.ops.glance_io import (
    BOUNDARY,
    METHOD,
    REQUEST_ID,
    SCAN_BYTES,
    VERSION,
    boundary_since,
    cache_file,
    cache_folder,
    loads,
    parse_reply,
    prune_cached,
    read_cached,
    request_line,
    socket_file,
    write_cached,
)
from keepd.ops.protocol import (
    METHODS,
    REQUIRED,
    Reply,
    decode_request,
    encode_reply,
    error_reply,
)
from keepd.ops.protocol import VERSION as PROTOCOL_VERSION
from keepd.paths import runtime_dir, socket_path

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
    odd = 'a "quoted" \\ path\nwith é and \x00'
    assert decode_request(request_line(SESSION, odd).strip()).params["path"] == odd


def test_the_daemons_reply_reads_back_as_the_glance_it_sent() -> None:
    sent = _glance()
    line = encode_reply(Reply(id=REQUEST_ID, ok=True, result=sent.to_dict()))
    received = parse_reply(line.strip())
    assert from_dict(received) == sent
    assert received == {k: v for k, v in sent.to_dict().items() if v is not None}


@pytest.mark.parametrize(
    "text",
    ['{"a": [1, 2.5, -3e-2, "\\u00e9\\n", null, true, false, {}]}', " [] ", '"x"', "NaN", "-0"],
)
def test_loads_reads_what_json_reads(text: str) -> None:
    assert repr(loads(text.encode())) == repr(json.loads(text))


@pytest.mark.parametrize(
    "raw", [b"", b" ", b"{", b"[1,]", b'{"a": }', b"[] []", b"\xff", b'"\x01"', b"[" * 10**5]
)
def test_loads_refuses_what_json_refuses(raw: bytes) -> None:
    with pytest.raises(ValueError):
        loads(raw)


def test_the_paths_are_keepd_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Path(socket_file()) == socket_path()
    assert Path(cache_folder()) == runtime_dir() / "glance"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert Path(socket_file()) == socket_path()


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


FIELDS = list(Glance.__dataclass_fields__)


@given(st.dictionaries(st.sampled_from(FIELDS), st.from_type(object) | st.none()))
def test_from_dict_never_raises_and_keeps_only_well_typed_fields(data: dict[str, object]) -> None:
    glance = from_dict(data)
    if glance is None:
        assert not isinstance(data.get("session_id"), str)
        return
    defaults = Glance(session_id="").to_dict()
    for name, value in glance.to_dict().items():
        assert value is data.get(name) or value == defaults[name]


def test_the_cache_round_trips_privately(private_home: Path) -> None:
    glance = _glance()
    assert write_cached(glance.to_dict())
    name = cache_file(SESSION)
    assert name is not None
    path = Path(name)
    assert path.parent == Path(cache_folder())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert from_dict(read_cached(SESSION)) == glance
    assert not list(path.parent.glob(".*.tmp"))


def test_unsafe_ids_and_bad_files_read_as_nothing(private_home: Path) -> None:
    assert cache_file("../../etc/passwd") is None and cache_file("") is None
    assert not write_cached({"session_id": "../x"}) and read_cached("../x") is None
    assert not write_cached({"session_id": 7})
    assert read_cached(SESSION) is None
    write_cached(_glance().to_dict())
    name = cache_file(SESSION)
    assert name is not None
    for bad in (b"{", b"[]", b'{"session_id": "other"}', b"\xff" * 10, b" " * (1 << 17)):
        Path(name).write_bytes(bad)
        assert read_cached(SESSION) is None


def test_prune_keeps_the_named_sessions(private_home: Path) -> None:
    for session_id in ("a1", "b2", "c3"):
        write_cached({"session_id": session_id})
    assert prune_cached({"b2"}) == 2
    assert sorted(path.stem for path in Path(cache_folder()).glob("*.json")) == ["b2"]
    assert prune_cached(set()) == 1 and prune_cached(set()) == 0


@pytest.mark.parametrize("before", [0, 1, SCAN_BYTES - len(BOUNDARY) // 2, SCAN_BYTES - 1])
def test_a_boundary_across_two_blocks_read_is_found(tmp_path: Path, before: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x" * before + BOUNDARY + b"\n" + b"y" * 100)
    assert boundary_since(str(path), 0)
    assert not boundary_since(str(path), before + 1)  # read already: it began before
    path.write_bytes(b"x" * before + BOUNDARY[:-1] + b"\n")
    assert not boundary_since(str(path), 0)


def test_the_boundary_is_the_one_skim_finds() -> None:
    from keepd.core import skim

    assert skim._NEEDLE == BOUNDARY
