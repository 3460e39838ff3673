"""The trivial picks and grades (evaluation/baselines.py), the replay's marks
(evaluation/replay.py) and the project folds (evaluation/cases.py), on one labelled session."""

from __future__ import annotations

from pathlib import Path

import orjson

from evaluation import baselines, labels, replay
from evaluation.cases import project_folds, same_projects
from evaluation.labels import Labelled


def _labelled(shared: Path, tmp_path: Path) -> Labelled:
    every = orjson.loads((shared / "corpus" / "labels" / "boundaries.json").read_bytes())
    folder = shared / "corpus" / "sessions"
    tasks = {
        n: sum(1 for b in label["readers"]["a"]["boundaries"] if b.get("kind") == "task")
        for n, label in every.items()
    }
    name = min((n for n in every if tasks[n] >= 2), key=lambda n: (folder / n).stat().st_size)
    path = tmp_path / "one.json"
    path.write_bytes(orjson.dumps({name: every[name]}))
    (case,) = labels.load(shared, path)
    return case


def _sent(case: Labelled, stop: int, now: int) -> replay.Sent:
    uuids = case.prepared.uuids
    return replay.Sent(
        case.name, now, 0.5, "break", str(uuids[stop]), stop, 0, None, (), "", str(uuids[now])
    )


def test_the_trivial_picks_name_stops_by_position() -> None:
    assert baselines.PICKS["the last stop"](10) == 9
    assert baselines.PICKS["two before the end"](10) == 7
    assert baselines.PICKS["two before the end"](2) == 0
    assert baselines.PICKS["the middle stop"](10) == 5
    assert baselines.PICKS["no pick (the whole session one piece)"](10) is None


def test_a_notice_is_marked_against_the_newest_task_so_far(shared: Path, tmp_path: Path) -> None:
    case = _labelled(shared, tmp_path)
    first, *later = case.readers[0].tasks()
    assert later, case.name
    last = len(case.prepared.uuids) - 1
    assert replay.mark(_sent(case, first, first), case) == replay.NEWEST
    if all(abs(first - j) > 1 for r in case.readers for j in r.tasks() if j > first + 1):
        assert replay.mark(_sent(case, first, last), case) == replay.TASK
    marked = case.boundaries()
    far = next(k for k in range(last + 1) if all(abs(k - j) > 1 for j in marked))
    assert replay.mark(_sent(case, far, last), case) == replay.NEITHER
    assert replay.mark(_sent(case, far, last), None) is None


def test_a_grade_at_every_stop_finds_every_switch(shared: Path, tmp_path: Path) -> None:
    case = _labelled(shared, tmp_path)
    score = labels.score_stops(case, list(range(1, len(case.prepared.curve))), None)
    assert all(score.found)
    assert labels.score_stops(case, [], None).found == [False] * len(score.found)


def test_a_project_is_left_out_whole() -> None:
    names = ["a__x__1.jsonl", "b__y__1.jsonl", "a__x__2.jsonl", "a__z__1.jsonl"]
    assert project_folds(names) == [[0, 2], [1], [3]]
    assert same_projects(["a__x__1.jsonl"], names) == {"a__x__1.jsonl", "a__x__2.jsonl"}


def test_the_verdict_counts_the_sessions_only_one_pick_gets() -> None:
    summary = labels.LabelSummary(0, 0, 0, 0, 4, 2)
    keepd = baselines.Row("keepd", summary, False, True, (True, True, False, False))
    trivial = baselines.Row("one before the end", summary, False, True, (True, False, True, True))
    line = baselines.verdict(keepd, [trivial])
    assert "does not beat" in line
    assert line.endswith("keepd 1, one before the end 2 (sign test p = 1.00)")
    assert baselines.sign_test(0, 6) == baselines.sign_test(6, 0) == 2 / 64
