"""The recorded reader answers the evaluation scores (evaluation/data/reader*/): each names the
request it answers, and the second answers say they are second answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "evaluation" / "data"
FIRST, SECOND = DATA / "reader", DATA / "reader-second"


def _records(folder: Path) -> dict[str, dict[str, object]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")}


@pytest.mark.parametrize("folder", [FIRST, SECOND], ids=lambda p: p.name)
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
