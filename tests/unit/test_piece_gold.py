"""A join's gold from its last piece's readers: the newest task they marked inside the tail,
mapped by uuid, else the junction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from keepd.core.grade import Grade, Grading, Zone
from keepd.evaluate.cases import Case
from keepd.evaluate.labels import Labelled, Reader
from keepd.evaluate.piece_gold import join_gold, piece_gold, piece_score
from keepd.evaluate.score import Prepared
from tests.unit.test_grade import _curve, _frees

# A join of two tails: the last piece is the tail t0..t2 of a session s0..s3, t0..t2.
JOIN = ["a0", "a1", "t0", "t1", "t2"]
SESSION = ["s0", "s1", "s2", "s3", "t0", "t1", "t2"]
JUNCTION = 2


def test_a_task_both_readers_mark_inside_the_tail_moves_the_gold_by_uuid() -> None:
    gold = piece_gold(JUNCTION, JOIN, SESSION, ([1, 5], [1, 6]))
    assert gold.stops == (3, 4)
    assert gold.how == "agreed" and gold.moved


def test_the_newest_of_several_agreed_tasks_is_the_gold() -> None:
    join = ["a0", "a1", "t0", "t1", "t2", "t3", "t4"]
    session = ["s0", "t0", "t1", "t2", "t3", "t4"]
    assert piece_gold(2, join, session, ([2, 4], [2, 4])).stops == (5,)


def test_tasks_before_the_tail_keep_the_junction() -> None:
    for tasks in (([1], [2]), ([], []), ([4], [4]), ([3], [4])):
        gold = piece_gold(JUNCTION, JOIN, SESSION, tasks)
        assert gold.stops == (JUNCTION,) and not gold.moved


def test_an_agreement_straddling_the_tail_start_counts_both_stops() -> None:
    assert piece_gold(JUNCTION, JOIN, SESSION, ([4], [5])).stops == (2, 3)


def test_a_later_task_one_reader_alone_marks_counts_beside_the_agreed_gold() -> None:
    gold = piece_gold(JUNCTION, JOIN, SESSION, ([6], []))
    assert gold.stops == (2, 4) and gold.how == "disagreed"
    gold = piece_gold(JUNCTION, JOIN, SESSION, ([5, 6], [5]))
    assert gold.stops == (3, 4) and gold.how == "disagreed"


def test_a_lone_task_older_than_the_agreed_one_is_outranked_by_it() -> None:
    join = ["a0", "a1", "t0", "t1", "t2", "t3", "t4"]
    session = ["s0", "t0", "t1", "t2", "t3", "t4"]
    assert piece_gold(2, join, session, ([2, 4], [4])).stops == (5,)


def test_a_junction_prompt_that_is_no_stop_of_the_session_maps_from_the_next_stop() -> None:
    join = ["a0", "a1", "compact", "t0", "t1", "t2"]  # the tail opens with a /compact prompt
    session = ["s0", "s1", "t0", "t1", "t2"]
    assert piece_gold(2, join, session, ([3], [3])).stops == (4,)
    assert piece_gold(2, join, session, ([2], [2])).stops == (3,)
    assert piece_gold(2, join, session, ([1], [1])).stops == (2,)


def _prepared(name: str, uuids: list[str], gold: int | None, pieces: tuple[str, ...]) -> Prepared:
    n = len(uuids)
    case = Case(name, Path(name), None, "cross" if pieces else "labelled", (), pieces)
    return Prepared(case, _curve(np.linspace(0.9, 0.1, n)), _frees(n), gold, [], uuids=tuple(uuids))


def _labelled(kinds: dict[int, str]) -> Labelled:
    session = _prepared("piece.jsonl", SESSION, None, ())
    return Labelled(session, (Reader(kinds, None), Reader(kinds, None)))


def test_a_join_takes_its_gold_from_its_last_piece_labelled_on_its_side() -> None:
    join = _prepared("join", JOIN, JUNCTION, ("other.jsonl", "piece.jsonl"))
    assert join_gold(join, [_labelled({1: "task", 6: "task"})]).stops == (4,)
    # Steps inside the tail continue the task begun at the junction.
    assert join_gold(join, [_labelled({5: "step", 6: "step"})]).stops == (JUNCTION,)
    with pytest.raises(LookupError, match=r"piece\.jsonl"):
        join_gold(join, [])


def _picking(stop: int | None) -> Grading:
    pick = None if stop is None else Zone(stop, stop, stop, Grade.CLEAR, 9.0)
    return Grading(0.1, np.ones(len(JOIN), dtype=bool), [pick] if pick else [], pick, [])


def test_the_score_counts_the_gold_and_the_junction_alone_apart() -> None:
    join = _prepared("join", JOIN, JUNCTION, ("other.jsonl", "piece.jsonl"))
    labelled = [_labelled({6: "task"})]  # the gold moves from the junction (2) to stop 4
    cases = [join] * 4
    score = piece_score(cases, labelled, [_picking(k) for k in (4, 3, 2, None)])
    assert (score.cases, score.moved) == (4, 4)
    assert (score.exact, score.within_one) == (0.25, 0.5)
    assert (score.junction_exact, score.junction_within_one) == (0.25, 0.5)
