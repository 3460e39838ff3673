"""The order of a branch whose lines are not in file order, as Claude Code's loader builds it:
a tool result written before its call (Claude Code 2.1.168 did, on a corpus session), and the
parallel lines a walk misses; read whole and followed in pieces alike."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from keepd.ops.operations import Operations
from tests.cut_kit import age
from tests.unit.builders import (
    Entry,
    assistant,
    jsonl,
    progress,
    text,
    thinking,
    tool_result,
    tool_use_block,
    usage,
    user,
)


def _late_result() -> list[Entry]:
    """A response of three lines (thinking, text, call) whose result's line stands between
    its first two lines, linked to the call written after it; then the answer and a prompt."""
    return [
        user("p0", None, "look at the parser"),
        assistant("a0", "p0", "It is a recursive descent parser.", msg_id="msg_0"),
        user("p1", "a0", "run the parser tests"),
        assistant("a1", "p1", [thinking("which tests")], msg_id="msg_1", usage_=usage(900)),
        tool_result("r1", "c1", "t1", "4 passed"),  # written before its call
        assistant("a2", "a1", [text("Running them.")], msg_id="msg_1", usage_=usage(900)),
        assistant("c1", "a2", [tool_use_block("t1", command="pytest")], msg_id="msg_1"),
        assistant("a3", "r1", "All four pass.", msg_id="msg_2", usage_=usage(1000)),
        user("p2", "a3", "now the lexer"),
        assistant("a4", "p2", "The lexer is next.", msg_id="msg_3", usage_=usage(1100)),
    ]


def _whole(data: bytes, scope: Scope) -> SessionState:
    state = SessionState(scope)
    state.feed(data)
    state.finish()
    return state


def _uuids(state: SessionState) -> list[str]:
    return [node.uuid or "" for node in state.branch().messages]


@pytest.mark.parametrize("scope", list(Scope))
def test_a_result_written_before_its_call_follows_the_call(scope: Scope) -> None:
    state = _whole(jsonl(_late_result()), scope)
    assert _uuids(state) == ["p0", "a0", "p1", "a1", "a2", "c1", "r1", "a3", "p2", "a4"]


def _agrees_at_every_line(entries: list[Entry], scope: Scope) -> None:
    """Fed line by line, the follower's branch and analysis equal a whole read of as much."""
    lines = jsonl(entries).splitlines(keepends=True)
    followed = SessionState(scope)
    for count, line in enumerate(lines, start=1):
        followed.feed(line)
        whole = _whole(b"".join(lines[:count]), scope)
        assert _uuids(followed) == _uuids(whole), count
        assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict(), count


@pytest.mark.parametrize("scope", list(Scope))
def test_followed_line_by_line_a_late_result_agrees_with_the_whole_read(scope: Scope) -> None:
    _agrees_at_every_line(_late_result(), scope)


@pytest.mark.parametrize("seed", range(12))
def test_followed_in_pieces_a_late_result_ends_where_the_whole_read_does(seed: int) -> None:
    data = jsonl(_late_result())
    rng = random.Random(seed)
    followed = SessionState(Scope.CURRENT)
    at = 0
    while at < len(data):
        end = min(len(data), at + rng.randint(1, 400))
        followed.feed(data[at:end])
        followed.branch()
        at = end
    whole = _whole(data, Scope.CURRENT)
    assert _uuids(followed) == _uuids(whole)
    assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict()


def test_until_its_call_is_written_the_result_stands_where_the_loader_puts_it() -> None:
    """Ending at the call, the walk (call, text, thinking) misses the result; the loader
    places what it recovers by file position inside the response, so before the text."""
    state = _whole(jsonl(_late_result()[:7]), Scope.CURRENT)
    assert _uuids(state) == ["p0", "a0", "p1", "a1", "r1", "a2", "c1"]


def test_a_response_under_a_late_result_is_walked_through_it() -> None:
    """The next response hangs under the result: the branch is walked anew through the call
    (a follower that appended it after the recovered result would keep the result first)."""
    entries = _late_result()[:7]
    entries.append(assistant("n1", "r1", "Next step.", msg_id="msg_2", usage_=usage(1000)))
    _agrees_at_every_line(entries, Scope.CURRENT)
    whole = _uuids(_whole(jsonl(entries), Scope.CURRENT))
    assert whole == ["p0", "a0", "p1", "a1", "a2", "c1", "r1", "n1"]


def _prompt_typed_while_a_tool_ran() -> list[Entry]:
    """A prompt typed while a tool ran hangs under the tool's progress line; the result, written
    later, hangs under the call. The walk from the newest line passes the prompt, not the result."""
    return [
        user("p1", None, "deploy it"),
        assistant("c1", "p1", [tool_use_block("t1", command="deploy")], msg_id="msg_1"),
        progress("g1", "c1"),
        user("p2", "g1", "are you stuck?"),
        assistant("a2", "p2", "Still deploying.", msg_id="msg_2", usage_=usage(1200)),
        tool_result("r1", "c1", "t1", "deployed"),
        assistant("a3", "a2", "Deployed.", msg_id="msg_3", usage_=usage(1300)),
    ]


@pytest.mark.parametrize("scope", list(Scope))
def test_a_recovered_result_goes_right_after_its_response_not_by_file_position(
    scope: Scope,
) -> None:
    """Claude Code's loader merges a recovered result into its response's stretch of the chain
    (the response and the results, meta messages and attachments after it); the typed prompt
    ends that stretch, so the result comes before it, though it was written after."""
    state = _whole(jsonl(_prompt_typed_while_a_tool_ran()), scope)
    assert _uuids(state) == ["p1", "c1", "r1", "p2", "a2", "a3"]
    _agrees_at_every_line(_prompt_typed_while_a_tool_ran(), scope)


def test_a_cut_keeps_a_late_result_after_its_call(tmp_path: Path) -> None:
    """The cut's safety check took the file order for the conversation's and refused: "the
    result of tool call t1 would come before the call"."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(_late_result()))
    age(path)
    operations = Operations()
    plan = operations.plan_cut(str(path), at="p1", placement="none")
    assert plan.written.intended == ("p1", "a1", "a2", "c1", "r1", "a3", "p2", "a4")
    assert operations.write_cut(plan).written


def _curve(state: SessionState) -> list[object]:
    result = analyse_state(state).to_dict()
    stops = [(s["uuid"], s["sc"], s["below"], s["frees"]) for s in result["stops"]]
    return [*stops, result["pick"], result["context"]]


@pytest.mark.parametrize("late", ["call", "response"])
def test_a_compact_follower_notices_a_parent_written_after_its_child(late: str) -> None:
    """The daemon's compact state forgets its tree after each read; the call arriving after
    its result (or a response under that result) must still make it go stale and be read
    again (as the registry does), not append past what the walk would reorder."""
    entries = _late_result()
    if late == "response":
        entries = [*entries[:7], assistant("n1", "r1", "Next step.", msg_id="msg_2")]
    lines = jsonl(entries).splitlines(keepends=True)
    compact = SessionState(compact=True)
    for count, line in enumerate(lines, start=1):
        compact.feed(line)
        compact.branch()
        if compact.stale:
            compact = SessionState(compact=True)
            compact.feed(b"".join(lines[:count]))
            compact.branch()
        assert _curve(compact) == _curve(_whole(b"".join(lines[:count]), Scope.CURRENT)), count
