"""Joins are built on one side of the label split: calibration joins from the calibration
sessions, held-out joins from the held-out ones, each piece labelled there."""

from __future__ import annotations

from pathlib import Path

import orjson

from keepd.evaluate.cases import (
    CALIBRATION,
    HELD_OUT,
    TAILS,
    corpus_sessions,
    label_file,
    side_labels,
    side_sessions,
    stitched_cases,
)
from keepd.evaluate.score import prepare


def test_the_two_sides_share_no_session(shared: Path) -> None:
    calibration = set(side_sessions(shared, False))
    held_out = set(side_sessions(shared, True))
    assert calibration and held_out and not calibration & held_out
    assert calibration | held_out <= set(corpus_sessions(shared))


def test_a_join_never_mixes_sides(shared: Path, tmp_path: Path) -> None:
    for group in [*CALIBRATION, *HELD_OUT, *TAILS]:
        labelled = set(orjson.loads(label_file(shared, group.held_out).read_bytes()))
        cases = group.cases(shared, tmp_path / str(group.seed), 8)
        assert cases, group.title
        for case in cases:
            assert case.pieces and set(case.pieces) <= labelled, (group.title, case.name)


def test_the_same_draw_is_one_join(shared: Path, tmp_path: Path) -> None:
    # Two sessions of two projects give only so many joins: asked for more, each comes once.
    sessions = [p for p in side_sessions(shared, True) if "__cli__72" in p.name or "e8_" in p.name]
    labels = side_labels(shared, True)
    cases = stitched_cases(shared, sessions, tmp_path, labels=labels, count=50, tails=(8, 9))
    drawn = [(case.pieces, case.name.rsplit("-t", 1)[1]) for case in cases]
    assert len(drawn) == len(set(drawn)) == 4  # two orders, two tails


def test_a_joins_gold_is_found_by_its_prompts_uuids(shared: Path, tmp_path: Path) -> None:
    cases = CALIBRATION[0].cases(shared, tmp_path, 20)
    moved = [prepare(case) for case in cases if set(case.targets) - {case.gold}]
    assert moved  # calibration sessions often end in a task of their own
    for join in moved:
        assert join.gold is not None and join.golds and max(join.golds) > join.gold
        assert all(join.uuids[k] in join.case.targets for k in join.golds)
