"""●●● only where a cue says the work before is over (core/sure.py): on synthetic curves and
on zones."""

from __future__ import annotations

import dataclasses

import numpy as np

from keepd.core.grade import DEFAULT_TUNING, Grade, grade
from keepd.core.points import SIGNAL_NAMES, SURE_FIELDS, Scored, Signal
from keepd.core.sure import SURE, is_sure, later_cued, later_sure, sure_cues, sure_only
from keepd.core.zone import Zone
from tests.unit.test_grade import _curve, _falling, _frees, _peak
from tests.unit.test_grade_cues import _cues, _events

EVERY = dataclasses.replace(
    DEFAULT_TUNING, points=dataclasses.replace(DEFAULT_TUNING.points, sure=())
)


def test_the_sure_cues_are_those_that_say_the_work_before_is_over() -> None:
    assert set(SURE_FIELDS) == {"finished", "branch", "pause", "turns", "after_closing"}
    assert {SIGNAL_NAMES[f] for f in SURE_FIELDS} == SURE
    assert "new words" not in SURE and "words" not in SURE and "new files" not in SURE


def test_a_clear_zone_of_the_words_alone_is_shown_subtopic_when_cues_are_read() -> None:
    sc = _peak(_falling(1), 30, height=0.03)  # ●●● by the words, 9.4 wiggles high
    words = grade(_curve(sc), _frees())  # no cues read: the words' grade as it was
    assert any(z.grade is Grade.CLEAR and z.best == 30 for z in words.zones)
    read = grade(_curve(sc), _frees(), cues=_cues())
    zone = next(z for z in read.zones if z.best == 30)
    assert zone.grade is Grade.SUBTOPIC
    every = grade(_curve(sc), _frees(), EVERY, cues=_cues())
    assert next(z for z in every.zones if z.best == 30).grade is Grade.CLEAR


def test_the_pick_is_the_same_stop_either_way_only_its_grade_drops() -> None:
    sc = _peak(_falling(1), 30, height=0.03)
    sure = grade(_curve(sc), _frees(), cues=_cues())
    every = grade(_curve(sc), _frees(), EVERY, cues=_cues())
    assert sure.target == every.target
    assert sure.pick is not None and sure.pick in sure.zones


def test_work_finished_and_a_pause_keep_clear() -> None:
    sc = _falling(5)
    found = grade(_curve(sc), _frees(), events=_events([40]), cues=_cues(finished=[40]))
    zone = next(z for z in found.zones if z.best == 40)
    assert zone.grade is Grade.CLEAR and is_sure(zone)


def test_sure_only_settles_the_pick_even_when_it_is_not_among_the_zones() -> None:
    unsure = Zone(5, 5, 5, Grade.CLEAR, 2.0, reasons=("words", "new files"))
    moved = dataclasses.replace(unsure, best=6)
    pick, zones = sure_only(moved, [unsure])
    assert pick is not None and pick.grade is Grade.SUBTOPIC and pick.best == 6
    assert zones[0].grade is Grade.SUBTOPIC
    assert sure_only(moved, [unsure], frozenset()) == (moved, [unsure])


def test_a_subtopic_zone_is_left_as_it_is() -> None:
    zone = Zone(5, 5, 5, Grade.SUBTOPIC, 2.0, reasons=("words",))
    assert sure_only(zone, [zone]) == (zone, [zone])
    assert sure_cues(("turns",)) == {"says it turns to the next thing"}


def test_words_that_stand_very_high_keep_clear_without_a_cue() -> None:
    high = Zone(5, 5, 5, Grade.CLEAR, 40.0, reasons=("words",))
    low = Zone(9, 9, 9, Grade.CLEAR, 7.0, reasons=("words",))
    _, zones = sure_only(None, [high, low], SURE, 10.0)
    assert [z.grade for z in zones] == [Grade.CLEAR, Grade.SUBTOPIC]
    assert is_sure(low, SURE, 6.0) and not is_sure(low, SURE, 10.0)


def test_a_later_sure_break_among_the_newest_prompts_takes_the_pick() -> None:
    early = Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("pause",))
    late = Zone(17, 17, 17, Grade.CLEAR, 2.0, reasons=("git branch",))
    assert later_sure(early, [early, late], 20, 5) is late
    assert later_sure(early, [early, late], 20, 0) is early  # the rule off
    assert later_sure(early, [early, late], 30, 5) is early  # 17 is not among the newest
    assert later_sure(None, [late], 20, 5) is late
    steps = dataclasses.replace(late, grade=Grade.SUBTOPIC)
    assert later_sure(early, [early, steps], 20, 5) is early  # ●● does not


def test_a_sure_break_at_the_newest_prompt_moves_the_pick_to_the_stop_before() -> None:
    sc = _peak(_falling(1), 30)  # the words' own ●●● at 30: the rule before picks it
    n = len(sc)
    cues, events = _cues(finished=[n - 1]), _events([n - 1])
    rule = dataclasses.replace(DEFAULT_TUNING, newest=None, recent=0, late_stops=0)
    before = grade(_curve(sc), _frees(), rule, events=events, cues=cues)
    assert before.pick is not None and before.pick.best == 30
    recent = dataclasses.replace(rule, recent=5)
    found = grade(_curve(sc), _frees(), recent, events=events, cues=cues)
    assert found.pick is not None and found.pick.best == n - 2  # never the newest prompt


def _scored(stops: int, **present: list[int]) -> Scored:
    """Points of 1.5 for each named cue at its stops (a sure cue's and new words' points)."""
    signals = []
    for name, at in present.items():
        here = np.zeros(stops, dtype=bool)
        here[at] = True
        signals.append(Signal(name, name, 1.5, here))
    totals = np.sum([1.5 * s.present for s in signals], axis=0) if signals else np.zeros(stops)
    return Scored(np.asarray(totals, dtype=np.float64), signals)


def test_cue_points_among_the_newest_stops_take_the_pick_where_no_zone_is() -> None:
    early = Zone(3, 3, 3, Grade.CLEAR, 2.0, reasons=("pause",))
    scored = _scored(20, **{"pause": [18], "new words": [18, 10]})  # 18: 3 points, 10: 1.5
    pick, zones = later_cued(early, [early], scored, np.zeros(20), recent=3, total=2.5)
    assert pick is not None and pick.best == 18 and pick.grade is Grade.CLEAR
    assert pick.reasons == ("pause", "new words") and [z.best for z in zones] == [3, 18]
    assert later_cued(early, [early], scored, np.zeros(20), recent=0, total=2.5) == (early, [early])
    assert (
        later_cued(early, [early], scored, np.zeros(20), recent=3, total=3.5)[0] is early
    )  # too few
    assert (
        later_cued(
            early,
            [early],
            _scored(30, pause=[18], **{"new words": [18]}),
            np.zeros(30),
            recent=3,
            total=2.5,
        )[0]
        is early
    )  # 18 is not among the newest stops


def test_a_late_stop_without_a_sure_cue_takes_the_pick_as_a_subtopic() -> None:
    scored = _scored(20, **{"new words": [19], "long prompt": [19]})
    pick, _ = later_cued(None, [], scored, np.zeros(20), recent=3, total=2.5)
    assert pick is not None and pick.best == 19 and pick.grade is Grade.SUBTOPIC
    later = Zone(12, 12, 12, Grade.CLEAR, 2.0, reasons=("pause",))
    last = Zone(19, 19, 19, Grade.CLEAR, 2.0)
    assert (
        later_cued(last, [], scored, np.zeros(20), recent=3, total=2.5)[0] is last
    )  # nothing after
    here = Zone(18, 18, 18, Grade.SUBTOPIC, 5.0, reasons=("words",))
    moved, zones = later_cued(
        later, [later, here], _scored(20, pause=[18], turns=[18]), np.zeros(20), recent=3, total=2.5
    )
    assert moved is here and zones == [later, here]  # the zone there is the pick, as graded


def test_cue_points_at_the_newest_prompt_move_the_pick_to_the_stop_before_it() -> None:
    sc = _peak(_falling(1), 30)  # the words' own ●●● at 30
    n = len(sc)
    cues, events = _cues(finished=[n - 1]), _events([n - 1])  # work finished and a pause
    rule = dataclasses.replace(DEFAULT_TUNING, newest=None, recent=0, late_stops=0)
    before = grade(_curve(sc), _frees(), rule, events=events, cues=cues)
    assert before.pick is not None and before.pick.best == 30
    late = dataclasses.replace(rule, late_stops=3)
    found = grade(_curve(sc), _frees(), late, events=events, cues=cues)
    assert found.pick is not None and found.pick.best == n - 2  # never the newest prompt
    assert found.pick.grade is Grade.CLEAR and "work finished" in found.pick.reasons


def test_no_late_pick_at_a_prompt_without_content_nor_at_the_newest_after_one() -> None:
    scored = _scored(20, pause=[18, 19], turns=[18, 19])
    bare = np.zeros(20, dtype=bool)
    bare[18] = True  # 18 is /compact: nothing of its own to stop at
    pick, _ = later_cued(None, [], scored, np.zeros(20), recent=3, total=2.5, bare=bare)
    assert pick is None  # 19 is the newest: its pick would be 18
    bare[18], bare[19] = False, True
    pick, _ = later_cued(None, [], scored, np.zeros(20), recent=3, total=2.5, bare=bare)
    assert pick is not None and pick.best == 18
