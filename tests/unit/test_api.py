"""The Python API on fixture files: the `--json` shape, the errors, and plain texts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from keepd.api import analyse_file, analyse_texts
from keepd.errors import NotASessionError, UnreadableError

from .builders import SESSION_ID, Chain, compact_boundary, compact_summary, jsonl, old_summary

KEYS = {
    "schema",
    "session_id",
    "scope",
    "messages",
    "stop_count",
    "context",
    "wiggle",
    "stops",
    "zones",
    "pick",
    "trade",
    "blocks",
    "borrowed_words",
}
STOP_KEYS = {"uuid", "index", "below", "frees", "sc", "kept", "borrowed"}

PARSER = (
    "parser jsonl reader entries lines newline buffer decode orjson schema fields uuid "
    "parentuuid sidechain timestamp offsets chunks tail truncated bytes utf8"
).split()
RELEASE = (
    "release changelog version tag pypi wheel sdist twine upload github workflow matrix "
    "publish notes semver artifact signing checksum homepage badge announcement"
).split()


def _sentence(vocabulary: list[str], turn: int, size: int = 14) -> str:
    return " ".join(vocabulary[(turn * 3 + k) % len(vocabulary)] for k in range(size))


def _two_topics() -> tuple[Chain, list[str]]:
    """Eight turns on a parser, then eight on a release: the change is the ninth prompt."""
    chain = Chain()
    prompts: list[str] = []
    context = 20_000
    for topic in (PARSER, RELEASE):
        for turn in range(8):
            prompts.append(chain.prompt(_sentence(topic, turn)))
            context += 900
            chain.tool_call(_sentence(topic, turn + 1, 6), _sentence(topic, turn + 2, 30))
            context += 1500
            chain.reply(_sentence(topic, turn + 4, 20), context=context)
    return chain, prompts


def _write(tmp_path: Path, data: bytes, name: str = "session.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_analyse_file_gives_the_documented_dict(tmp_path: Path) -> None:
    chain, prompts = _two_topics()
    path = _write(tmp_path, chain.jsonl())
    result = analyse_file(path)
    data = result.to_dict()
    assert set(data) >= KEYS
    json.dumps(data)  # the --json form: plain JSON types only
    assert data["schema"] == 1
    assert data["session_id"] == SESSION_ID
    assert data["scope"] == "current"
    assert data["messages"] == len(chain.entries)
    assert data["stop_count"] == len(prompts) == len(data["stops"])
    stops: list[dict[str, Any]] = data["stops"]
    for stop in stops:
        assert set(stop) >= STOP_KEYS
    assert [stop["uuid"] for stop in stops] == prompts
    assert [stop["below"] for stop in stops] == list(range(len(prompts) - 1, -1, -1))
    assert [stop["index"] for stop in stops] == [4 * k for k in range(len(prompts))]
    frees = [stop["frees"] for stop in stops]
    assert frees[0] == 0.0
    assert frees == sorted(frees)
    assert all(0.0 <= share < 1.0 for share in frees)
    kept = [stop["kept"] for stop in stops]
    assert kept == sorted(kept, reverse=True)
    for stop in stops:
        assert 0 <= stop["borrowed"] <= stop["kept"]
        assert stop["sc"] == pytest.approx(1 - stop["borrowed"] / stop["kept"], abs=1e-5)
    assert stops[0]["borrowed"] == 0 and stops[0]["sc"] == 1.0
    assert data["context"]["tokens"] == 20_000 + 16 * 2400
    assert data["context"]["window"] == 200_000
    assert data["context"]["source"] == "usage"
    uuids = set(prompts)
    assert data["pick"] is None or data["pick"] in uuids
    assert set(data["trade"]) <= uuids
    for zone in data["zones"]:
        assert {zone["first"], zone["best"], zone["last"]} <= uuids
    assert isinstance(data["blocks"], list)
    assert isinstance(data["borrowed_words"], list)


def test_the_change_of_topic_stands_out(tmp_path: Path) -> None:
    chain, prompts = _two_topics()
    data = analyse_file(_write(tmp_path, chain.jsonl())).to_dict()
    by_uuid = {stop["uuid"]: stop for stop in data["stops"]}
    change = by_uuid[prompts[8]]
    assert change["borrowed"] == 0
    assert change["sc"] == 1.0
    assert data["pick"] == prompts[8]
    borrowed = {word["word"] for word in data["borrowed_words"]}
    assert not borrowed & set(PARSER)


def test_blocks_and_borrowed_words_describe_the_part_before_the_pick(tmp_path: Path) -> None:
    chain, _ = _two_topics()
    data = analyse_file(_write(tmp_path, chain.jsonl())).to_dict()
    if data["pick"] is None and not data["trade"]:
        pytest.fail("neither a pick nor a trade on a two-topic session")
    blocks: list[dict[str, Any]] = data["blocks"]
    assert 1 <= len(blocks) <= 6
    for block in blocks:
        assert {"first", "last", "borrowed", "share", "side_trip"} <= set(block)
        assert block["first"] <= block["last"]
    assert [b["first"] for b in blocks[1:]] == [b["last"] + 1 for b in blocks[:-1]]
    assert blocks[0]["first"] == 0
    shares = sum(block["share"] for block in blocks)
    assert shares == pytest.approx(1.0, abs=1e-3) or shares == 0.0
    for word in data["borrowed_words"]:
        assert {"word", "uses", "first"} <= set(word)
        assert word["uses"] >= 1


def test_whole_scope_reads_through_a_compaction(tmp_path: Path) -> None:
    chain, prompts = _two_topics()
    last = chain.last
    chain.add(compact_boundary("B", last, post_tokens=8000))
    chain.add(compact_summary("S", "B"))
    after = chain.prompt("changelog version tag")
    chain.reply("Done with the changelog version tag", context=9000)
    path = _write(tmp_path, jsonl([old_summary("u001"), *chain.entries]))
    current = analyse_file(path).to_dict()
    assert current["scope"] == "current"
    assert [stop["uuid"] for stop in current["stops"]] == [after]
    assert current["messages"] == 3
    whole = analyse_file(path, whole=True).to_dict()
    assert whole["scope"] == "whole"
    assert [stop["uuid"] for stop in whole["stops"]] == [*prompts, after]
    assert whole["context"]["tokens"] == 9000


def test_a_last_line_without_newline_is_read(tmp_path: Path) -> None:
    chain, prompts = _two_topics()
    path = _write(tmp_path, chain.jsonl().rstrip(b"\n"))
    assert analyse_file(path).to_dict()["stop_count"] == len(prompts)


def test_garbage_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    chain, prompts = _two_topics()
    path = _write(tmp_path, b"garbage\n[1]\n" + chain.jsonl() + b'{"type":"user","mess')
    result = analyse_file(path)
    assert result.skipped_lines == 3
    assert len(result.stops) == len(prompts)


def test_missing_file_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(UnreadableError):
        analyse_file(tmp_path / "nope.jsonl")


def test_garbage_file_is_not_a_session(tmp_path: Path) -> None:
    path = _write(tmp_path, b"\x00\x01 this is not json\n{broken\n[1, 2]\n\xff\xfe")
    with pytest.raises(NotASessionError):
        analyse_file(path)


def test_empty_file_is_not_a_session(tmp_path: Path) -> None:
    with pytest.raises(NotASessionError):
        analyse_file(_write(tmp_path, b""))


def test_file_without_conversation_is_not_a_session(tmp_path: Path) -> None:
    data = jsonl([old_summary("x"), {"type": "file-history-snapshot", "snapshot": {}}])
    with pytest.raises(NotASessionError):
        analyse_file(_write(tmp_path, data))


def test_directory_is_not_a_session(tmp_path: Path) -> None:
    with pytest.raises(NotASessionError):
        analyse_file(tmp_path)


def test_analyse_texts_makes_every_text_a_stop() -> None:
    texts = [
        "plan the parser for jsonl session files",
        "parser tests for truncated lines",
        "fix the parser tests",
        "now the release changelog",
        "release notes and the version tag",
    ]
    result = analyse_texts(texts)
    data = result.to_dict()
    assert data["messages"] == len(texts)
    assert data["stop_count"] == len(texts)
    assert [stop.below for stop in result.stops] == [4, 3, 2, 1, 0]
    assert [stop.index for stop in result.stops] == [0, 1, 2, 3, 4]
    assert len({stop.uuid for stop in result.stops}) == len(texts)
    assert result.stops[0].frees == 0.0
    json.dumps(data)


def test_analyse_texts_of_one_text() -> None:
    result = analyse_texts(["just one message about the parser"])
    assert [stop.below for stop in result.stops] == [0]
