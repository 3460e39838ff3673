"""The evaluation's score of recorded reader answers (evaluation/reader.py) on the example with
a label made for it: the answer counts only for the request it was recorded for."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from evaluation.reader import score, write_requests
from keepd.core.reader import request_sha256
from keepd.ops.reader import read_for_reader, record_text
from keepd.paths import example_session

NAME = "example.jsonl"


def one_more_prompt(path: Path) -> bytes:
    last = json.loads(path.read_bytes().splitlines()[-1])
    prompt = {
        **{key: last[key] for key in ("sessionId", "cwd", "gitBranch", "version", "timestamp")},
        "type": "user",
        "parentUuid": last["uuid"],
        "uuid": "99999999-0000-4000-8000-000000000001",
        "isSidechain": False,
        "userType": "external",
        "message": {"role": "user", "content": "now rename the invoices folder"},
    }
    return json.dumps(prompt).encode() + b"\n"


def label_for(rows: list[Any], newest: int, tasks: list[int]) -> dict[str, Any]:
    marks = [{"uuid": rows[k - 1].uuid, "index": k - 1, "kind": "task"} for k in tasks]
    reader = {"boundaries": marks, "newest": {"uuid": rows[newest - 1].uuid}}
    return {NAME: {"readers": {"a": reader, "b": reader}}}


def test_a_recorded_answer_is_scored_beside_the_local_grade(tmp_path: Path) -> None:
    sessions, answers = tmp_path / "sessions", tmp_path / "answers"
    sessions.mkdir()
    answers.mkdir()
    shutil.copyfile(example_session(), sessions / NAME)
    read = read_for_reader(sessions / NAME)
    labels = label_for(read.rows, newest=16, tasks=[16, 21])
    answer = {"starts": [{"row": 16, "kind": "task"}], "newest": 16}
    sha = request_sha256(read.request)
    (answers / f"{sha}.json").write_bytes(record_text(sha, json.dumps(answer), "test-model"))
    scores = score(sessions, labels, answers)
    assert scores.unanswered == [] and scores.models == {"test-model"}
    assert (scores.local.sessions, scores.reader.sessions) == (1, 1)
    assert scores.local.pick_near == 0 and scores.reader.pick_near == 1  # local: row 21
    assert scores.reader.switches == scores.local.switches == 2
    with (sessions / NAME).open("ab") as grown:  # one more prompt: a new request, no answer
        grown.write(one_more_prompt(example_session()))
    assert score(sessions, labels, answers).unanswered == [NAME]


def test_requests_are_written_by_their_hash(tmp_path: Path) -> None:
    shutil.copyfile(example_session(), tmp_path / NAME)
    assert write_requests(tmp_path, {NAME: {}}, tmp_path / "out") == 1
    [written] = (tmp_path / "out").glob("*.txt")
    assert request_sha256(written.read_text(encoding="utf-8")) == written.stem
    assert (tmp_path / "out" / "index.tsv").read_text() == f"{written.stem}\t{NAME}\n"
