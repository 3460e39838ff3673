"""`core/rounding.rounded` gives the floats Python's `round` gives, value for value."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from keepd.core.rounding import rounded


def _same(a: float, b: float) -> bool:
    """Equal as floats go, the sign of zero and NaN included."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50), st.integers(0, 4))
def test_rounded_is_python_round_on_any_floats(values: list[float], places: int) -> None:
    got = rounded(values, places)
    assert all(_same(a, round(v, places)) for a, v in zip(got, values, strict=True))


def test_rounded_is_python_round_next_to_every_half() -> None:
    # The doubles on and around each k + 0.005 (and each k / 200 of heights' range), where the
    # scaled product can fall on the other side of a half from the exact value.
    halves = (np.arange(-200_000, 200_000) + 0.5) / 100
    near = np.concatenate([np.nextafter(halves, -np.inf), halves, np.nextafter(halves, np.inf)])
    values = np.concatenate([near, np.random.default_rng(0).normal(0, 30, 200_000)])
    expected = [round(v, 2) for v in values.tolist()]
    got = rounded(values)
    assert all(_same(a, b) for a, b in zip(got, expected, strict=True))


def test_rounded_of_nothing() -> None:
    assert rounded(np.zeros(0)) == []
