"""The cues' points (core/points.py): each signal's points, the ●●● total, and what they grade."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from keepd.core.asides import Asides
from keepd.core.cues import BARE, CLOSES, COMMAND, STARTS, TURNS, StopCues, empty_cues, prompt_marks
from keepd.core.events import EVENTS, Event
from keepd.core.grade import DEFAULT_TUNING, Grade, grade
from keepd.core.points import DEFAULT_POINTS, clear_stops, score
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from tests.unit.builders import Chain
from tests.unit.test_grade import N, _curve, _falling, _frees, _peak

P = DEFAULT_POINTS


def _cues(
    n: int = 6,
    *,
    finished: Sequence[int] = (),
    marks: dict[int, int] | None = None,
    words: Sequence[int] | None = None,
    fresh: Sequence[int] = (),
) -> StopCues:
    base = empty_cues(n)
    done = np.zeros(n, dtype=bool)
    done[list(finished)] = True
    marked = np.zeros(n, dtype=np.int8)
    for k, bits in (marks or {}).items():
        marked[k] = bits
    touched = np.zeros(n, dtype=np.int64)
    touched[list(fresh)] = 2
    return StopCues(
        done,
        marked,
        base.new_number,
        touched,
        touched.copy(),
        np.asarray(words if words is not None else [5] * n, dtype=np.int64),
    )


def _points(cues: StopCues, events: Sequence[int] | None = None) -> list[float]:
    codes = np.asarray(events if events is not None else [0] * len(cues), dtype=np.int8)
    return [float(v) for v in score(cues, codes, np.zeros(len(cues), dtype=bool), P).totals]


def test_each_signal_earns_its_points_at_its_stop_only() -> None:
    branch, pause = EVENTS.index(Event.BRANCH), EVENTS.index(Event.PAUSE)
    assert _points(_cues(finished=[3]))[3] == P.finished
    assert _points(_cues(), [0, 0, branch, 0, pause, 0])[2:5] == [P.branch, 0, P.pause]
    assert _points(_cues(marks={2: TURNS}))[2] == P.turns
    assert _points(_cues(marks={2: BARE}))[2] == P.bare
    assert _points(_cues())[0:6] == [0.0] * 6


def test_a_pause_earns_its_points_beside_a_branch_switch() -> None:
    branch = EVENTS.index(Event.BRANCH)
    codes = np.array([0, 0, branch, branch, 0, 0], dtype=np.int8)
    cues = dataclasses.replace(_cues(), pause=np.array([0, 0, 1800.0, 120.0, 0, 0]))
    found = score(cues, codes, np.zeros(6, dtype=bool), P, pause_seconds=600)
    assert found.totals.tolist()[2:4] == [P.branch + P.pause, P.branch]
    assert found.reasons(2) == ("git branch", "pause")
    # Without the cues' pauses, the session's events alone speak.
    assert _points(dataclasses.replace(cues, pause=None), codes.tolist())[2] == P.branch


def _asides(cues: StopCues, novelty: Sequence[float], replies: Sequence[int] = ()) -> StopCues:
    flags = np.zeros(len(cues), dtype=bool)
    flags[list(replies)] = True
    return dataclasses.replace(cues, asides=Asides(np.asarray(novelty, np.float64), flags))


def test_new_words_earn_points_in_a_prompt_of_enough_words_of_its_own() -> None:
    novelty = [1.0, 0.2, P.novel_share, 0.9, 0.9, 0.9]
    words = [5, 8, 8, P.novel_words - 1, 8, 8]
    cues = _asides(_cues(words=words, marks={4: BARE | COMMAND}), novelty)
    assert _points(cues) == [P.novel, 0, P.novel, 0, P.bare, P.novel]
    assert score(cues, None, np.zeros(6, bool), P).reasons(2) == ("new words",)


def test_a_reply_s_opening_takes_points_away() -> None:
    cues = _asides(_cues(words=[5, 5, 5, 5, 5, 5]), [0.0] * 6, replies=[2])
    assert _points(cues) == [0, 0, P.replies, 0, 0, 0]
    assert P.replies < 0 and score(cues, None, np.zeros(6, bool), P).reasons(2) == ()
    assert _points(_cues()) == [0.0] * 6  # no asides known: nothing marked


def test_a_long_prompt_and_a_fuller_one_after_short_replies() -> None:
    # prompt words: 5, 2 (short), 12 (fuller after short), 25 (long, but after 12), 1
    found = _points(_cues(5, words=[5, 2, 12, 25, 1]))
    assert found == [0, 0, P.after_short, P.long_prompt, 0]
    # A long prompt right after a short one earns both.
    assert _points(_cues(2, words=[2, 30]))[1] == P.long_prompt + P.after_short


def test_new_files_count_when_most_files_of_the_next_turns_are_new() -> None:
    assert _points(_cues(fresh=[3]))[3] == P.new_files
    assert _points(_cues(fresh=[3]))[1] == P.new_files  # the 3 turns from stop 1 include 3
    assert _points(_cues(fresh=[3]))[4] == 0


def test_reasons_name_the_cues_that_earned_points() -> None:
    cues = _cues(finished=[2], marks={2: TURNS})
    found = score(cues, np.zeros(6, np.int8), np.array([0, 0, 1, 0, 0, 0], bool), P)
    assert found.reasons(2) == ("work finished", "says it turns to the next thing", "words")
    assert found.totals[2] == P.finished + P.turns + P.words


def test_clear_stops_are_usable_local_maxima_at_the_total() -> None:
    totals = np.array([0, 2.5, 2.5, 0, 3.0, 1.0, 2.0])
    usable = np.ones(7, dtype=bool)
    assert clear_stops(totals, usable, 2.0) == [2, 4, 6]
    usable[4] = False  # a stop that keeps too little cannot be ●●●, nor beat a neighbour
    assert clear_stops(totals, usable, 2.0) == [2, 6]


def test_a_prompt_that_turns_to_the_next_thing() -> None:
    for text in (
        "next issue.. On the map the graphs are not shown",
        "Great, that works! Next: can we remove the banner?",
        "One other issue. How can we fix this?",
        "Ok, let's try something else: split the commits",
    ):
        assert prompt_marks(text) & TURNS, text
    for text in ("fix the next line", "add another test for the parser"):
        assert not prompt_marks(text) & TURNS, text
    late = "x " * 150 + "and another issue"  # read on the opening only
    assert not prompt_marks(late) & TURNS


def test_the_session_state_gives_each_stop_its_prompt_words() -> None:
    chain = Chain()
    chain.prompt("parser grammar tokenizer")
    chain.reply("done with the parser grammar")
    chain.prompt("docs")
    state = SessionState(Scope.WHOLE)
    state.feed(chain.jsonl())
    words = state.stop_cues().words
    assert words is not None and words.tolist()[1] < words.tolist()[0]


def test_cues_alone_make_a_clear_zone_where_the_words_see_nothing() -> None:
    sc = _falling(5)
    at = 40
    words = [5] * N
    words[at - 1], words[at] = 1, 30  # a long prompt after a short reply, work finished
    cues = _cues(N, words=words, finished=[at])
    found = grade(_curve(sc), _frees(), cues=cues)
    zone = next(z for z in found.zones if z.best == at)
    assert zone.grade is Grade.CLEAR and zone.cued
    assert zone.reasons == ("work finished", "long prompt", "after short replies")
    assert found.pick is zone
    # The same prompt after a prompt as long: one cue fewer, no ●●●.
    words[at - 1] = 30
    plain = grade(_curve(sc), _frees(), cues=_cues(N, words=words, finished=[at]))
    assert not any(z.grade is Grade.CLEAR for z in plain.zones)


def test_the_prompt_after_one_that_closes_the_work() -> None:
    assert prompt_marks("Great that works now!!") & CLOSES
    assert prompt_marks("thanks") & CLOSES
    assert not prompt_marks("looks good but are the commits necessary?") & CLOSES
    assert not prompt_marks("it is great to have tests") & CLOSES
    found = _points(_cues(marks={2: CLOSES}))
    assert found[2] == 0 and found[3] == P.after_closing


def test_a_command_s_markup_is_neither_long_nor_a_request_after_short_replies() -> None:
    command = BARE | COMMAND
    found = _points(_cues(4, words=[2, 30, 14, 12], marks={1: STARTS | COMMAND, 2: command}))
    assert found[1] == 0  # a workflow's slash command: its 30 words are markup
    assert found[2] == P.bare
    assert found[3] == P.after_short  # a request after a command counts as after short


def test_strong_cues_rank_with_the_words_own_clear_zone_for_the_pick_before() -> None:
    """The pick rule before the newest-work model (`Tuning.newest` None)."""
    sc = _peak(_falling(7), 20, height=0.2)  # the words' own ●●● at 20
    pause = np.zeros(N, dtype=np.int8)
    pause[45] = EVENTS.index(Event.PAUSE)
    before = dataclasses.replace(DEFAULT_TUNING, newest=None)
    weak = grade(_curve(sc), _frees(), before, events=pause, cues=_cues(N, finished=[45]))
    assert P.clear <= P.finished + P.pause < P.ranked
    assert weak.pick is not None and weak.pick.best == 20
    turning = _cues(N, finished=[45], marks={45: TURNS})  # and it turns to the next thing
    assert P.finished + P.pause + P.turns >= P.ranked
    strong = grade(_curve(sc), _frees(), before, events=pause, cues=turning)
    assert strong.pick is not None and strong.pick.best == 45 and not strong.pick.cued
    assert strong.pick.reasons == ("work finished", "pause", "says it turns to the next thing")
