"""The pick and the zones kept off the newest prompt and off prompts that only close the work
(keepd/core/settle.py), on their own and through `grade`."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.events import Event
from keepd.core.grade import grade
from keepd.core.settle import AT_NEWEST, settled
from keepd.core.zone import Grade, Zone
from tests.unit.test_grade import _curve, _events, _frees


def _zone(k: int, grade_: Grade = Grade.CLEAR) -> Zone:
    return Zone(k, k, k, grade_, 2.0, reasons=("words",))


def test_a_zone_at_a_closing_prompt_moves_to_the_prompt_after() -> None:
    closing = np.zeros(8, bool)
    closing[4] = True  # "great, that works. commit it"
    pick, zones = settled(_zone(4), [_zone(2, Grade.SUBTOPIC), _zone(4)], closing)
    assert pick is not None and pick.best == 5 and pick.last == 5
    assert [z.best for z in zones] == [2, 5]


def test_two_zones_that_meet_keep_the_stronger() -> None:
    closing = np.zeros(8, bool)
    closing[4] = True
    _, zones = settled(None, [_zone(4, Grade.SUBTOPIC), _zone(5)], closing)
    assert [(z.best, z.grade) for z in zones] == [(5, Grade.CLEAR)]


def test_the_pick_moves_off_the_newest_prompt_and_says_why() -> None:
    pick, zones = settled(_zone(7), [_zone(3), _zone(7)], np.zeros(8, bool))
    assert pick is not None and pick.best == 6 and pick.last == 7
    assert pick.reasons == (AT_NEWEST, "words")
    assert [z.best for z in zones] == [3, 6]


def test_no_pick_when_the_prompt_before_the_newest_closed_the_work() -> None:
    closing = np.zeros(8, bool)
    closing[6] = True
    pick, zones = settled(_zone(6), [_zone(6)], closing)
    assert pick is None and [z.best for z in zones] == [7]  # the zone stays where work begins


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(min_value=0.05, max_value=0.95), min_size=6, max_size=40),
    st.lists(st.integers(min_value=0, max_value=39), max_size=4),
)
def test_grade_never_picks_the_newest_stop(sc: list[float], paused: list[int]) -> None:
    n = len(sc)
    events = _events(n, {k: Event.PAUSE for k in paused if k < n})
    grading = grade(_curve(sc), _frees(n), events=events)
    assert grading.pick is None or grading.pick.best < n - 1
