"""The recorded reader answers the evaluation scores (evaluation/data/reader*/): each names the
request it answers, the second answers say they are second answers, and the answers to the
request worded other ways answer requests keepd does not send."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "evaluation" / "data"
FIRST, SECOND = DATA / "reader", DATA / "reader-second"
WORDINGS = sorted(p for p in (DATA / "reader-wording").iterdir() if p.is_dir())


def _records(folder: Path) -> dict[str, dict[str, object]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")}


@pytest.mark.parametrize("folder", [FIRST, SECOND, *WORDINGS], ids=lambda p: p.name)
def test_each_record_is_named_by_its_requests_hash(folder: Path) -> None:
    records = _records(folder)
    assert records
    for name, record in records.items():
        assert record["request_sha256"] == name
        assert isinstance(record["answer"], str) and record["answer"].strip()
        assert isinstance(record["model"], str) and record["model"]


def test_the_second_answers_say_so_and_most_answer_a_first_answers_request() -> None:
    first, second = _records(FIRST), _records(SECOND)
    assert all("second answer" in str(r["model"]) for r in second.values())
    # Where an answer differs, the daemon may ask at another turn: a request of its own.
    assert len(set(second) - set(first)) < len(second) // 10


@pytest.mark.parametrize("folder", WORDINGS, ids=lambda p: p.name)
def test_the_other_wordings_answer_other_requests(folder: Path) -> None:
    records = _records(folder)
    assert not set(records) & set(_records(FIRST))
    assert all(f"{folder.name}.diff" in str(r["model"]) for r in records.values())
