"""The session's own breaks at its stops: a git branch switch, a compaction, a pause."""

from __future__ import annotations

from typing import Any

from keepd.api import analyse_texts
from keepd.core.analysis import Analysis, analyse_state
from keepd.core.events import EVENTS, Event
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from keepd.report.note import render_note
from keepd.report.terminal import Style, render
from tests.unit.builders import Chain, compact_boundary, compact_summary


def at(minute: int) -> dict[str, Any]:
    return {"timestamp": f"2026-03-01T10:{minute:02d}:00.000Z"}


def state_of(chain: Chain, scope: Scope = Scope.WHOLE) -> SessionState:
    state = SessionState(scope)
    state.feed(chain.jsonl())
    return state


def test_a_switch_a_pause_and_a_compaction_are_found_before_their_stops() -> None:
    chain = Chain()
    chain.prompt("parser grammar", **at(0), gitBranch="main")
    chain.reply("done", **at(1), gitBranch="main")
    chain.prompt("parser tests", **at(2), gitBranch="main")
    chain.reply("done", **at(3), gitBranch="main")
    chain.prompt("docs page", **at(4), gitBranch="docs")  # another branch
    chain.reply("done", **at(5), gitBranch="docs")
    chain.prompt("docs screenshots", **at(25), gitBranch="docs")  # 20 minutes later
    chain.reply("done", **at(26), gitBranch="docs")
    chain.add(compact_boundary("b001", chain.last))
    chain.add(compact_summary("s001", "b001"))
    chain.last = "s001"
    chain.prompt("release notes", **at(27), gitBranch="docs")
    codes = state_of(chain).stop_events(600).tolist()
    assert [EVENTS[c] for c in codes] == [None, None, Event.BRANCH, Event.PAUSE, Event.COMPACTION]


def test_the_cues_keep_a_pause_the_branch_switch_hides_from_the_events() -> None:
    chain = Chain()
    chain.prompt("parser grammar", **at(0), gitBranch="main")
    chain.reply("done", **at(1), gitBranch="main")
    chain.prompt("docs page", **at(30), gitBranch="docs")  # another branch, 29 minutes later
    chain.reply("done", **at(31), gitBranch="docs")
    chain.prompt("docs screenshots", **at(33), gitBranch="main")  # another branch, no pause
    state = state_of(chain)
    assert [EVENTS[c] for c in state.stop_events(600)] == [None, Event.BRANCH, Event.BRANCH]
    pause = state.stop_cues().pause
    assert pause is not None and pause.tolist() == [0.0, 29 * 60.0, 2 * 60.0]


def test_no_events_from_missing_or_unreadable_fields() -> None:
    chain = Chain()
    chain.prompt("one", timestamp="yesterday")
    chain.reply("done", timestamp="")
    chain.prompt("two", timestamp="2026-03-01T10:00:00")  # no zone: not comparable with ""
    chain.prompt("three", timestamp="2026-03-01T12:00:00Z")  # aware after naive
    chain.prompt("four", gitBranch="main")
    assert state_of(chain).stop_events(600).tolist() == [0] * 4


def _event_picked() -> Analysis:
    """A session of one piece of work whose last prompt came after a long pause: prompts
    too short to earn the long prompt's points (core/points.py), so only the pause speaks."""
    chain = Chain()
    words = [f"parser{i} grammar{i} tokenizer{i}" for i in range(40)]
    for turn in range(12):  # the same work throughout: the words show no break
        chain.prompt(" ".join(words[turn : turn + 5]), **at(turn * 2))
        chain.reply(" ".join(words[turn + 1 : turn + 25]), **at(turn * 2 + 1))
    chain.prompt(" ".join(words[5:10]), **at(50))  # the same words, after a long pause
    chain.reply(" ".join(words[6:35]), **at(51))
    chain.prompt(" ".join(words[6:11]), **at(52))  # the newest prompt is never the pick
    chain.reply(" ".join(words[7:36]), **at(53))
    return analyse_state(state_of(chain, Scope.CURRENT))


def test_without_a_zone_in_the_words_the_latest_event_is_the_pick() -> None:
    analysis = _event_picked()
    last = analysis.stops[-2]
    assert last.event == "pause" and analysis.pick == last.uuid
    assert (last.grade, last.shape, last.eligible) == ("●●", "⏸", True)
    assert [zone.event for zone in analysis.zones] == ["pause"]
    assert analysis.to_dict()["stops"][0]["event"] is None


def test_the_report_and_the_note_show_the_event_pick() -> None:
    analysis = _event_picked()
    text = render(analysis, Style(width=100))
    assert "→ ↑2  " in text and "●● ⏸" in text
    note = render_note(analysis)
    assert "a pause of ten minutes or more before the prompt" in note


def test_a_followed_session_keeps_its_signals_as_it_grows() -> None:
    chain = Chain()
    for minute in range(0, 60, 4):
        chain.turn(f"step {minute}", "done", context=None)
        chain.entries[-2] = {**chain.entries[-2], **at(minute)}
    chain.entries[-2] = {**chain.entries[-2], "gitBranch": "docs"}
    data = chain.jsonl()
    whole = state_of(chain, Scope.CURRENT).stop_events(600).tolist()
    assert any(whole)
    follower = SessionState(Scope.CURRENT, compact=True)
    for line in data.splitlines(keepends=True):
        follower.feed(line)
        follower.branch()
    assert follower.rebuilds == 0
    assert follower.stop_events(600).tolist() == whole


def test_plain_texts_have_no_events() -> None:
    analysis = analyse_texts(["plan the parser", "parser tests", "fix the parser tests"])
    assert all(stop.event is None for stop in analysis.stops)
