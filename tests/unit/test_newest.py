"""The newest-work pick on small fixtures: the product rule, the floor, the tie rule, the grade."""

from __future__ import annotations

import dataclasses

import numpy as np

from keepd.core.grade import DEFAULT_TUNING, NEWEST_REASON, Grade, Tuning, grade, newest_features
from keepd.core.newest import HEIGHT, Newest, chances, newest_scores, newest_stop
from tests.unit.test_grade import N, _curve, _falling, _frees, _peak
from tests.unit.test_grade_cues import _cues

FINISHED = "work finished"


def _model(floor: float = 0.1, **weights: float) -> Newest:
    named = tuple((name.replace("_", " "), value) for name, value in weights.items())
    return Newest(intercept=-6.0, weights=named, floor=floor)


def _tuning(model: Newest) -> Tuning:
    """The model's tuning, every ●●● zone kept (core/sure.py is tested on its own)."""
    points = dataclasses.replace(DEFAULT_TUNING.points, sure=())
    return dataclasses.replace(DEFAULT_TUNING, newest=model, points=points)


def test_the_newest_score_is_the_chance_here_times_none_later() -> None:
    p = np.array([0.0, 0.9, 0.2, 0.5, 0.1])
    usable = np.array([False, True, True, False, True])
    # Stop 3 is not usable: neither scored nor counted against the stops before it.
    expected = [0.0, 0.9 * 0.8 * 0.9, 0.2 * 0.9, 0.0, 0.1]
    assert np.allclose(newest_scores(p, usable), expected)


def test_a_strong_earlier_start_beats_weak_later_ones_but_not_a_strong_one() -> None:
    usable = np.ones(4, dtype=bool)
    assert newest_stop(newest_scores(np.array([0, 0.9, 0.2, 0.2]), usable), 0.1) == 1
    assert newest_stop(newest_scores(np.array([0, 0.9, 0.2, 0.8]), usable), 0.1) == 3


def test_under_the_floor_there_is_no_pick() -> None:
    scores = newest_scores(np.array([0.0, 0.05, 0.08]), np.ones(3, dtype=bool))
    assert newest_stop(scores, 0.1) is None
    assert newest_stop(scores, 0.05) == 2


def test_a_feature_the_table_does_not_name_weighs_nothing() -> None:
    model = Newest(intercept=0.0, weights=(("a", 2.0),))
    p = chances(model, [("a", [1.0, 0.0]), ("later signal", [5.0, 5.0])], 2)
    assert np.allclose(p, [1 / (1 + np.exp(-2.0)), 0.5])


def test_the_pick_is_the_latest_stop_the_model_is_sure_of() -> None:
    sc = _falling(3)
    model = _model(work_finished=8.0)
    found = grade(_curve(sc), _frees(), _tuning(model), cues=_cues(finished=[20, 40]))
    assert found.pick is not None and found.pick.best == 40
    # The model alone makes it: ●● (not the notice's ●●●), named by the cue and the model.
    assert found.pick.grade is Grade.SUBTOPIC
    assert found.pick.reasons == (FINISHED, NEWEST_REASON)
    assert found.pick in found.zones and not found.trade


def test_an_unsure_later_stop_does_not_displace_a_sure_earlier_one() -> None:
    sc = _falling(3)
    # A content-free prompt at 40 given a weak weight of its own: p there is 0.12.
    model = _model(work_finished=12.0, no_content_of_its_own=4.0)
    cues = _cues(finished=[20], bare=[40])
    found = grade(_curve(sc), _frees(), _tuning(model), cues=cues)
    assert found.pick is not None and found.pick.best == 20


def test_under_the_floor_with_no_zone_nor_event_the_trade_is_offered() -> None:
    model = _model(floor=0.5, work_finished=5.9)  # p = 0.48 at the finished stop
    found = grade(_curve(_falling(3)), _frees(), _tuning(model), cues=_cues(finished=[30]))
    assert found.pick is None and found.trade


def test_a_pick_at_a_clear_zone_keeps_its_grade() -> None:
    sc = _peak(_falling(7), 30, height=0.2)
    model = Newest(intercept=-6.0, weights=(("●●● zone (words)", 9.0),))
    found = grade(_curve(sc), _frees(), _tuning(model), cues=_cues())
    assert found.pick is not None and found.pick.best == 30
    assert found.pick.grade is Grade.CLEAR and found.pick.reasons == ("words",)


def test_the_tie_rule_moves_the_models_pick_off_a_content_free_prompt() -> None:
    sc = _falling(3)
    sc[31] = sc[30] - 0.001  # the next prompt ties within the wiggle
    model = _model(work_finished=8.0)
    moved = grade(_curve(sc), _frees(), _tuning(model), cues=_cues([30], bare=[30]))
    assert moved.pick is not None and moved.pick.best == 31
    sc[31] = sc[30] - 0.2  # clearly less self-contained: it stays
    kept = grade(_curve(sc), _frees(), _tuning(model), cues=_cues([30], bare=[30]))
    assert kept.pick is not None and kept.pick.best == 30


def test_the_features_name_every_signal_the_height_and_the_zones() -> None:
    columns = newest_features(_curve(_falling(3)), _frees(), cues=_cues(finished=[5]))
    names = [name for name, _ in columns]
    assert FINISHED in names and HEIGHT in names and "●●● zone (words)" in names
    assert all(len(np.asarray(values)) == N for _, values in columns)
    assert newest_features(_curve(_falling(3)), _frees()) == []


def test_under_the_floor_a_clear_zone_is_still_the_pick() -> None:
    """A ●●● zone is never shown without a pick: under the floor the rule before the model
    picks (the latest zone of the strongest rank, else an event's stop)."""
    sc = _peak(_falling(7), 30, height=0.2)
    model = _model(floor=0.99)
    found = grade(_curve(sc), _frees(), _tuning(model), cues=_cues())
    assert found.pick is not None and found.pick.best == 30 and found.pick.grade is Grade.CLEAR
    assert not found.trade
