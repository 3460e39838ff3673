"""A join's gold from its last piece's readers: the newest task they marked inside the tail,
named by prompt uuids, else the junction; and picks scored against it and the junction."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from keepd.core.grade import Grade, Grading, Zone
from keepd.evaluate.cases import Case
from keepd.evaluate.piece_gold import newest_task, reader_tasks
from keepd.evaluate.score import Prepared, judge_grading, summarise
from tests.unit.test_grade import _curve, _frees

# The last piece is the tail t0..t4 of a session s0 s1 t0..t4 (prompt k of the session: its
# index as the readers numbered it); the join's junction is t0.
SESSION = ["s0", "s1", "t0", "t1", "t2", "t3", "t4"]
TAIL = set(SESSION[2:])


def marks(*indices: int) -> list[tuple[int, str]]:
    return [(k, SESSION[k]) for k in indices]


def gold(a: list[tuple[int, str]], b: list[tuple[int, str]]) -> tuple[str, ...]:
    return newest_task("t0", TAIL, (a, b))


def test_a_task_both_readers_mark_inside_the_tail_is_the_gold() -> None:
    assert gold(marks(1, 4), marks(1, 5)) == ("t2", "t3")
    assert gold(marks(3, 5), marks(3, 5)) == ("t3",)  # the newest of two


def test_tasks_before_the_tail_or_at_its_start_keep_the_junction() -> None:
    for a, b in ((marks(1), marks(1)), ([], []), (marks(2), marks(2)), (marks(1), marks(2))):
        assert gold(a, b) == ("t0",)


def test_an_agreement_straddling_the_tail_start_counts_both_prompts_in_the_tail() -> None:
    assert gold(marks(2), marks(3)) == ("t1",)
    assert gold(marks(3), marks(2)) == ("t1",)


def test_a_later_task_one_reader_alone_marks_counts_beside_the_agreed_gold() -> None:
    assert gold(marks(5), []) == ("t0", "t3")
    assert gold(marks(3, 5), marks(3)) == ("t1", "t3")
    assert gold(marks(1, 3), marks(3, 5)) == ("t1", "t3")


def test_a_lone_task_older_than_the_agreed_one_is_outranked_by_it() -> None:
    assert gold(marks(3, 6), marks(6)) == ("t4",)


def test_steps_and_unnamed_marks_in_a_labels_file_are_no_tasks() -> None:
    def boundary(k: int, kind: str) -> dict[str, object]:
        return {"uuid": SESSION[k], "index": k, "kind": kind}

    label = {
        "readers": {
            "a": {"boundaries": [boundary(3, "step"), boundary(5, "task"), {"kind": "task"}]},
            "b": {"boundaries": [boundary(5, "task"), boundary(6, "step")]},
        }
    }
    tasks = reader_tasks(label)
    assert tasks == (marks(5), marks(5))
    assert newest_task("t0", TAIL, tasks) == ("t3",)
    assert newest_task("t0", TAIL, reader_tasks({})) == ("t0",)


# A join of two pieces: a0 a1 | t0..t4, junction at stop 2, gold moved to t3 (stop 5).
JOIN = ["a0", "a1", "t0", "t1", "t2", "t3", "t4"]


def _join(golds: tuple[int, ...]) -> Prepared:
    n = len(JOIN)
    case = Case("join", Path("join.jsonl"), "t0", "cross", ("t0",), ("a.jsonl", "t.jsonl"))
    curve = _curve(np.linspace(0.9, 0.1, n))
    return Prepared(case, curve, _frees(n), 2, [], uuids=tuple(JOIN), golds=golds)


def _picking(stop: int | None) -> Grading:
    pick = None if stop is None else Zone(stop, stop, stop, Grade.CLEAR, 9.0)
    return Grading(0.1, np.ones(len(JOIN), dtype=bool), [pick] if pick else [], pick, [])


def test_picks_are_scored_against_the_gold_and_the_junction_alone_apart() -> None:
    join = _join((5,))
    outcomes = [judge_grading(join, _picking(k)) for k in (5, 4, 3, 2, None)]
    s = summarise(outcomes)
    assert (s.cases, s.moved) == (5, 5)
    assert (s.exact, s.within_one) == (0.2, 0.4)
    assert (s.junction_exact, s.junction_within_one) == (0.2, 0.4)
    unmoved = summarise([judge_grading(_join(()), _picking(2))])
    assert (unmoved.moved, unmoved.exact, unmoved.junction_exact) == (0, 1.0, 1.0)
