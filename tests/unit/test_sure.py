"""●●● only where a cue says the work before is over (core/sure.py): on synthetic curves and
on zones."""

from __future__ import annotations

import dataclasses

from keepd.core.grade import DEFAULT_TUNING, Grade, grade
from keepd.core.points import SIGNAL_NAMES, SURE_FIELDS
from keepd.core.sure import CARRYING, SURE, is_sure, later_sure, sure_cues, sure_only
from keepd.core.sureness import SURE_WORDS, how_sure
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
    moved = unsure._replace(best=6)
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
    steps = late._replace(grade=Grade.SUBTOPIC)
    assert later_sure(early, [early, steps], 20, 5) is early  # ●● does not


def test_a_sure_break_at_the_newest_prompt_moves_the_pick_to_the_stop_before() -> None:
    sc = _peak(_falling(1), 30)  # the words' own ●●● at 30: the rule before picks it
    n = len(sc)
    cues, events = _cues(finished=[n - 1]), _events([n - 1])
    rule = dataclasses.replace(DEFAULT_TUNING, newest=None, recent=0)
    before = grade(_curve(sc), _frees(), rule, events=events, cues=cues)
    assert before.pick is not None and before.pick.best == 30
    recent = dataclasses.replace(rule, recent=5)
    found = grade(_curve(sc), _frees(), recent, events=events, cues=cues)
    assert found.pick is not None and found.pick.best == n - 2  # never the newest prompt


def test_a_fairly_sure_cue_is_one_that_keeps_a_break_and_has_words() -> None:
    assert CARRYING < SURE and "pause" not in CARRYING
    assert set(SURE_WORDS) == CARRYING  # every such cue has its sentence in the notice


def test_how_sure_names_the_first_cue_that_carries() -> None:
    assert how_sure("●●●", ["pause", "git branch", "work finished"]) == (
        "Fairly sure: it is on another git branch."
    )
    assert how_sure("●●●", ["words"]) == "Less sure: only the words change there."
    assert how_sure(None, ["work finished"]) is None
    assert how_sure("●●●", ["pause", "reader"], reader_task=True) == (
        "Fairly sure: your own Claude Code, asked, says a new task begins here."
    )
    # the reader's name among the reasons alone (it may have called the stop a step) is not it
    assert how_sure("●●●", ["pause", "reader"]) == "Less sure: only a pause marks it."
