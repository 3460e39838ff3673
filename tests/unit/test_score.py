"""Scoring in the evaluation: a join's own events, and the variant where events outrank zones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from evaluation.cases import Case
from evaluation.score import Prepared, judge, judge_outranking, prepare
from keepd.core.events import EVENTS, Event
from keepd.core.grade import DEFAULT_TUNING, Grade, grade
from tests.unit.builders import Chain
from tests.unit.test_grade import N, _curve, _falling, _frees, _peak


def _prepared(sc: np.ndarray, event_at: int, gold: int) -> Prepared:
    events = np.zeros(N, dtype=np.int8)
    events[event_at] = EVENTS.index(Event.PAUSE)
    case = Case("synthetic", Path("synthetic.jsonl"), None, "single")
    return Prepared(case, _curve(sc), _frees(), gold, [], events)


def test_a_later_event_outranks_a_subtopic_zone_only_in_the_variant() -> None:
    stepped = _falling(3)
    stepped[:21] += 0.05  # falls after stop 20 without rising into it: at most ●●
    prepared = _prepared(stepped, 40, gold=40)
    words = grade(prepared.curve, prepared.frees)
    assert words.pick is not None and words.pick.grade is Grade.SUBTOPIC
    assert judge(prepared, DEFAULT_TUNING).pick == words.pick.best
    assert judge_outranking(prepared, DEFAULT_TUNING).pick == 40


def test_a_clear_zone_still_wins_in_the_variant() -> None:
    prepared = _prepared(_peak(_falling(3), 20, height=0.2), 40, gold=20)
    assert judge_outranking(prepared, DEFAULT_TUNING).pick == 20


def test_an_earlier_event_does_not_outrank_a_later_zone() -> None:
    stepped = _falling(3)
    stepped[:31] += 0.05
    prepared = _prepared(stepped, 10, gold=30)
    assert judge_outranking(prepared, DEFAULT_TUNING).pick == judge(prepared, DEFAULT_TUNING).pick


def at(minute: int) -> dict[str, Any]:
    return {"timestamp": f"2026-03-01T10:{minute:02d}:00.000Z"}


def test_a_join_keeps_its_pieces_events_but_none_at_a_junction(tmp_path: Path) -> None:
    chain = Chain()
    chain.prompt("parser grammar", **at(0), gitBranch="main")
    chain.prompt("parser tests", **at(30), gitBranch="main")  # a pause inside the piece
    junction = chain.prompt("docs page", **at(31), gitBranch="docs")  # the next piece
    chain.prompt("docs screenshots", **at(32), gitBranch="other")
    path = tmp_path / "join.jsonl"
    path.write_bytes(chain.jsonl())
    join = prepare(Case("join", path, junction, "cross", (junction,)))
    assert join.events is not None
    assert [EVENTS[c] for c in join.events] == [None, Event.PAUSE, None, Event.BRANCH]
    single = prepare(Case("single", path, None, "single"))
    assert single.events is not None and EVENTS[single.events[2]] is Event.BRANCH
