"""Prune: turns, their scores by how much later turns lean on them, what stays and the notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from keepd.cut.load import load
from keepd.cut.model import Placement
from keepd.cut.prune import plan_prune, scores, spans
from keepd.errors import UsageError
from tests.unit.builders import Chain
from tests.unit.cut_sessions import conversation, write_session


def test_turns_run_from_prompt_to_prompt_with_a_leading_one(tmp_path: Path) -> None:
    chain = Chain()
    chain.prompt("<local-command-caveat>caveat</local-command-caveat>", isMeta=True)
    chain.turn("first request", "first answer")
    chain.turn("second request", "second answer")
    loaded = load(write_session(tmp_path, chain))
    assert spans(loaded) == [(0, 0), (1, 2), (3, 4)]


def test_the_turn_later_turns_lean_on_outscores_the_side_trip(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation()))
    turns = spans(loaded)
    score = scores(loaded, turns, half_life=1e9)
    assert score[0] > 10 * max(score[1], 0.1)  # the parser plan against the weather
    assert score[-1] == 0  # nothing comes after the last turn


def test_scores_halve_with_each_half_life_of_age(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation()))
    turns = spans(loaded)
    flat = scores(loaded, turns, half_life=1e9)
    halved = scores(loaded, turns, half_life=1.0)
    age = len(turns) - 1
    assert halved[0] == pytest.approx(flat[0] * 0.5**age)


def test_prune_keeps_recent_and_best_older_turns(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation()))
    plan = plan_prune(loaded, keep_last=2, working=1)
    kept = [turn.number for turn in plan.turns if turn.keep]
    assert kept == [0, 3, 4]  # the parser plan, then the two recent turns
    assert [turn.recent for turn in plan.turns] == [False, False, False, True, True]
    assert plan.placement is Placement.NONE and plan.summary is None
    expected = [u for t in plan.turns if t.keep for u in loaded.uuids[t.first : t.last + 1]]
    assert list(plan.preserved) == expected
    assert plan.dropped == len(loaded.uuids) - len(expected)


def test_notes_go_first_and_name_the_turns_left_out(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation()))
    plan = plan_prune(loaded, keep_last=2, working=1, notes=True)
    assert plan.placement is Placement.FIRST and plan.summary is not None
    assert "weather like in lisbon" in plan.summary
    assert "plan the tokenizer" not in plan.summary
    assert plan.written.intended[0] == plan.written.summary_uuid


def test_nothing_to_drop_when_every_turn_fits(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation()))
    plan = plan_prune(loaded, keep_last=3, working=6, notes=True)
    assert plan.dropped == 0 and plan.summary is None


def test_keep_last_must_keep_something(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation()))
    with pytest.raises(UsageError):
        plan_prune(loaded, keep_last=0)
