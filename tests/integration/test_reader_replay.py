"""The replay with the reader's recorded answers (evaluation/reader_replay.py) on a corpus
session: the daemon's questions found where it would ask, an answer applied only to its exact
request, and the hindsight bound shown only the prompts so far."""

from __future__ import annotations

from pathlib import Path

import pytest

SESSION = "Beep206__CyberVPN__8e_d0e76731ba_5_full.jsonl"  # held out; asked at 4 turns


def test_only_the_exact_request_finds_its_answer(shared: Path, tmp_path: Path) -> None:
    from evaluation import reader_replay, replay
    from keepd.core.reader import request_sha256
    from keepd.ops.reader import read_for_reader

    path = shared / "corpus" / "sessions" / SESSION
    if not path.is_file():
        pytest.skip(f"{SESSION} is not in the corpus")
    # Only the whole history's answer on hand: only the last turn's request is that one.
    sha = request_sha256(read_for_reader(path).request)
    record = reader_replay.ANSWERS / f"{sha}.json"
    if not record.is_file():
        pytest.skip(f"no recorded answer for {SESSION}")
    (tmp_path / record.name).write_bytes(record.read_bytes())
    found = reader_replay.replay_with(path, reader_replay.recorded(tmp_path))
    assert found.asks, "the daemon asks once the context reaches the notice threshold"
    assert all(ask.recorded == (ask.row == found.prompts - 1) for ask in found.asks)
    assert found.answered <= {ask.row for ask in found.asks if ask.recorded}
    nothing = reader_replay.replay_with(path, lambda read: None)
    alone = replay.replay(path)
    assert [(s.after_prompt, s.uuid) for s in nothing.notices] == [
        (s.after_prompt, s.uuid) for s in alone.notices
    ]


def test_the_hindsight_bound_sees_only_the_prompts_so_far(shared: Path) -> None:
    from evaluation import reader_replay
    from keepd.core.analysis import Analysis
    from keepd.ops.reader import Read

    path = shared / "corpus" / "sessions" / SESSION
    cut = reader_replay.hindsight(path) if path.is_file() else None
    if cut is None:
        pytest.skip(f"no recorded answer for {SESSION}")
    seen: list[Read] = []

    def spy(read: Read) -> Analysis | None:
        seen.append(read)
        return cut(read)

    reader_replay.replay_with(path, spy)
    assert seen
    for read in seen:
        merged = cut(read)
        assert merged is not None and merged.reader is not None
        shown = {row.uuid for row in read.rows}
        assert merged.reader.newest in shown
        assert {uuid for uuid, _ in merged.reader.starts} <= shown


def test_the_daemons_requests_end_with_the_recorded_one(shared: Path) -> None:
    from evaluation import reader_replay
    from keepd.ops.reader import read_for_reader

    path = shared / "corpus" / "sessions" / SESSION
    if not path.is_file():
        pytest.skip(f"{SESSION} is not in the corpus")
    asked = reader_replay.daemon_requests(path)
    found = reader_replay.replay_with(path, reader_replay.recorded())
    assert [row for row, _ in asked] == [ask.row for ask in found.asks]
    assert asked[-1][1] == read_for_reader(path, whole=True).request
    assert len({text for _, text in asked}) == len(asked), "one request per prompt count"
