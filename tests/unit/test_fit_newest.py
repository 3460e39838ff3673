"""The newest-work model's fit (evaluation/fit_newest.py): the ridge logistic regression and
its rows, on small fixtures."""

from __future__ import annotations

import dataclasses

import numpy as np

from evaluation.fit_newest import Case, fit, rows
from evaluation.outcomes import Outcomes, clustered_error
from keepd.core.newest import Newest


def test_the_fit_finds_the_coefficients_of_a_logistic_model() -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(0, 2, size=(20_000, 2)).astype(np.float64)
    p = 1 / (1 + np.exp(-(-2.0 + 1.5 * x[:, 0] - 1.0 * x[:, 1])))
    y = (rng.random(len(p)) < p).astype(np.float64)
    intercept, weights = fit(x, y, 0.01, np.ones(len(y)))
    assert abs(intercept + 2.0) < 0.15
    assert np.allclose(weights, [1.5, -1.0], atol=0.15)


def test_the_ridge_shrinks_the_coefficients_not_the_intercept() -> None:
    x = np.array([[1.0], [1.0], [0.0], [0.0]] * 5)
    y = np.array([1.0, 1.0, 0.0, 1.0] * 5)
    loose = fit(x, y, 0.0001, np.ones(len(y)))
    tight = fit(x, y, 1000.0, np.ones(len(y)))
    assert abs(tight[1][0]) < 0.02 < loose[1][0]
    assert abs(tight[0] - np.log(15 / 5)) < 0.05  # the base rate: 15 of 20 rows


def test_rows_are_the_usable_stops_marked_by_both_readers_or_a_junction() -> None:
    usable = np.array([False, False, True, True, True])
    case = Case(
        "join",
        frozenset({"a", "b"}),
        [("f", np.arange(5.0))],
        usable,
        np.zeros(5),
        np.zeros(5, dtype=bool),
        0.01,
        ("u0", "u1", "u2", "u3", "u4"),
        (3,),
        ("u3",),
    )
    found = rows([case], ["f"], {"u1", "u4"}, 0.5)[0]
    assert found.x[:, 0].tolist() == [2.0, 3.0, 4.0]
    assert found.y.tolist() == [0.0, 1.0, 1.0]
    assert found.weight == 0.5 and found.sessions == {"a", "b"}
    # Under the model's floor the pick falls back to the rule before it.
    fallback = dataclasses.replace(case, fallback=2)
    assert fallback.pick(Newest(intercept=-9.0)) == 2


def test_a_clustered_error_counts_a_tail_s_joins_as_one_draw() -> None:
    hits = [True, True, False, False]
    apart = clustered_error(hits, ["a", "b", "c", "d"])
    together = clustered_error(hits, ["a", "a", "b", "b"])
    assert together > apart > 0
    assert clustered_error(hits, ["a"] * 4) == 0.0  # one cluster: no spread to measure


def test_a_gain_is_the_paired_change_in_right_picks() -> None:
    base = Outcomes((True, False, False, False), ("a", "b", "c", "d"))
    better = Outcomes((True, True, True, False), ("a", "b", "c", "d"))
    assert better.gain(base).startswith("+50.0 ±")
    assert base.gain(base) == "+0.0 ±0.0"
