"""Grades with cues on synthetic curves: finished work and events, the ranking, the tie rule."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from keepd.core.cues import BARE, StopCues, empty_cues
from keepd.core.events import EVENTS, Event, EventCodes
from keepd.core.grade import DEFAULT_TUNING, Grade, grade
from tests.unit.test_grade import N, _curve, _falling, _frees, _peak


def _cues(finished: Sequence[int] = (), bare: Sequence[int] = ()) -> StopCues:
    cues = empty_cues(N)
    done = np.zeros(N, dtype=bool)
    done[list(finished)] = True
    marks = np.zeros(N, dtype=np.int8)
    marks[list(bare)] = BARE
    return StopCues(done, marks, cues.new_number, cues.touched, cues.fresh)


# The pick rule before the newest-work model (core/newest.py): the latest zone of the strongest
# rank. It still picks under the model's floor, so its ranking is tested on its own.
BEFORE = dataclasses.replace(DEFAULT_TUNING, newest=None)
# Every ●●● zone kept, with or without a cue that says the work before is over (core/sure.py).
EVERY_CLEAR = dataclasses.replace(
    BEFORE, points=dataclasses.replace(DEFAULT_TUNING.points, sure=())
)


def _events(pauses: Sequence[int]) -> EventCodes:
    codes = np.zeros(N, dtype=np.int8)
    codes[list(pauses)] = EVENTS.index(Event.PAUSE)
    return codes


def _subtopic_at(at: int) -> np.ndarray:
    """A zone that falls after `at` without rising into it: ●● by the words."""
    sc = _falling(3)
    sc[: at + 1] += 0.05
    return sc


def test_finished_work_and_a_pause_make_a_clear_zone_the_words_do_not_see() -> None:
    sc = _falling(5)
    found = grade(_curve(sc), _frees(), events=_events([40]), cues=_cues(finished=[40]))
    zone = next(z for z in found.zones if z.best == 40)
    assert zone.grade is Grade.CLEAR and zone.cued
    assert zone.reasons == ("work finished", "pause")
    assert found.pick is zone
    # One cue alone does not: no ●●● there.
    alone = grade(_curve(sc), _frees(), events=_events([40]), cues=_cues())
    assert not any(z.grade is Grade.CLEAR for z in alone.zones)


def test_cues_next_to_a_subtopic_zone_make_it_clear_at_the_cued_stop() -> None:
    sc = _subtopic_at(20)
    words = grade(_curve(sc), _frees())
    assert words.pick is not None and words.pick.grade is Grade.SUBTOPIC
    at = words.pick.best
    cues = _cues(finished=[at + 1])
    raised = grade(_curve(sc), _frees(), events=_events([at + 1]), cues=cues)
    assert raised.pick is not None and raised.pick.grade is Grade.CLEAR
    assert raised.pick.best == at + 1
    assert raised.pick.reasons == ("words", "work finished", "pause")


def test_the_words_own_clear_zone_outranks_a_later_cued_one_in_the_rule_before() -> None:
    sc = _peak(_falling(7), 20, height=0.2)
    found = grade(
        _curve(sc), _frees(), EVERY_CLEAR, events=_events([45]), cues=_cues(finished=[45])
    )
    clear = [z for z in found.zones if z.grade is Grade.CLEAR]
    assert [z.best for z in clear] == [20, 45]
    assert found.pick is not None and found.pick.best == 20 and not found.pick.cued
    assert found.pick.reasons == ("words",)


def test_a_content_free_prompt_gives_way_to_the_prompt_after_it_on_a_tie() -> None:
    sc = _peak(_falling(7), 30, height=0.2)
    sc[31] = sc[30] - 0.001  # the next prompt ties within the wiggle
    plain = grade(_curve(sc), _frees())
    assert plain.pick is not None and plain.pick.best == 30
    bare = grade(_curve(sc), _frees(), cues=_cues(bare=[30]))
    assert bare.pick is not None and bare.pick.best == 31
    # Not when the next prompt is clearly less self-contained, nor when it is bare too.
    sc[31] = sc[30] - 0.2
    apart = grade(_curve(sc), _frees(), BEFORE, cues=_cues(bare=[30]))
    assert apart.pick is not None and apart.pick.best == 30
    sc[31] = sc[30] - 0.001
    both = grade(_curve(sc), _frees(), BEFORE, cues=_cues(bare=[30, 31]))
    assert both.pick is not None and both.pick.best == 30


def test_one_zone_per_stop_when_raised_and_cued_zones_meet() -> None:
    """A raised zone moves to its cued stop (and past a bare prompt), where a zone the cues
    alone made may stand: random curves and cues, one zone per stop."""
    rng = np.random.default_rng(0)
    for _ in range(400):
        sc = _falling(int(rng.integers(1000)))
        sc[: int(rng.integers(10, 50)) + 1] += rng.uniform(0.01, 0.06)
        picked = [rng.choice(N, int(rng.integers(lo, hi)), replace=False) for lo, hi in _DRAWS]
        finished, paused, bare = ([int(k) for k in ks] for ks in picked)
        found = grade(_curve(sc), _frees(), events=_events(paused), cues=_cues(finished, bare))
        bests = [zone.best for zone in found.zones]
        assert len(bests) == len(set(bests)), bests


_DRAWS = ((1, 8), (0, 5), (0, 8))  # how many stops finish work, pause, carry no content
