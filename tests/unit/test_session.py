"""A session followed byte by byte ends where reading it at rest ends, rewinds included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.index import Index
from keepd.core.session import SessionState
from keepd.core.tree import Scope

from .builders import (
    Entry,
    assistant,
    compact_boundary,
    compact_summary,
    jsonl,
    tool_result,
    tool_use_block,
    user,
)


def _eventful() -> list[Entry]:
    """Turns, parallel tool calls, a rewind, then a compaction and more turns."""
    return [
        user("U1", None, "plan the parser for jsonl files"),
        assistant("A1", "U1", "Plan: reader, tree, index.", msg_id="m1"),
        user("U2", "A1", "write the reader with orjson"),
        assistant("A2a", "U2", [tool_use_block("t1", command="ruff check reader")], msg_id="m2"),
        assistant("A2b", "A2a", [tool_use_block("t2", command="pytest reader")], msg_id="m2"),
        tool_result("R1", "A2a", "t1", "clean"),
        tool_result("R2", "A2b", "t2", "passed"),
        assistant("A3", "R1", "Reader written and tested.", msg_id="m3"),
        user("U3", "A3", "document the reader api"),
        assistant("A4", "U3", "Reader api documented.", msg_id="m4"),
        user("U3b", "A3", "benchmark the reader instead"),
        assistant("A4b", "U3b", "Reader benchmark: fast enough.", msg_id="m4b"),
        compact_boundary("B", "A4b", post_tokens=5000),
        compact_summary("S", "B"),
        user("U5", "S", "now the tree module with parent links"),
        assistant("A5", "U5", "Tree module with parent links written.", msg_id="m5"),
    ]


def _at_rest(data: bytes, scope: Scope) -> SessionState:
    state = SessionState(scope)
    state.feed(data)
    state.finish()
    return state


def _check_same(followed: SessionState, rest: SessionState) -> None:
    a, b = followed.branch(), rest.branch()
    assert [n.uuid for n in a.messages] == [n.uuid for n in b.messages]
    assert a.stops == b.stops
    assert followed.index.uses_by_message.tolist() == rest.index.uses_by_message.tolist()
    assert followed.index.uses_by_first.tolist() == rest.index.uses_by_first.tolist()
    fresh = Index()
    fresh.extend([node.words for node in a.messages])
    assert followed.index.uses_by_first.tolist() == fresh.uses_by_first.tolist()
    assert [tuple(x.tolist()) for x in followed.index.uses()] == [
        tuple(x.tolist()) for x in fresh.uses()
    ]


@settings(max_examples=150, deadline=None)
@given(
    cuts=st.lists(st.integers(0, len(jsonl(_eventful()))), max_size=12),
    scope=st.sampled_from([Scope.CURRENT, Scope.WHOLE]),
    look=st.booleans(),
)
def test_followed_in_chunks_equals_read_at_rest(cuts: list[int], scope: Scope, look: bool) -> None:
    data = jsonl(_eventful())
    points = sorted(cuts)
    followed = SessionState(scope)
    for lo, hi in zip([0, *points], [*points, len(data)], strict=True):
        followed.feed(data[lo:hi])
        if look:
            followed.branch()
    followed.finish()
    _check_same(followed, _at_rest(data, scope))


def test_entry_by_entry_with_a_look_after_each() -> None:
    entries = _eventful()
    for scope in (Scope.CURRENT, Scope.WHOLE):
        followed = SessionState(scope)
        for entry in entries:
            followed.feed(jsonl([entry]))
            followed.branch()
        _check_same(followed, _at_rest(jsonl(entries), scope))
        assert followed.rebuilds >= 1  # the rewind changed earlier messages


def test_current_scope_after_the_compaction() -> None:
    state = _at_rest(jsonl(_eventful()), Scope.CURRENT)
    branch = state.branch()
    assert [n.uuid for n in branch.messages] == ["S", "U5", "A5"]
    whole = _at_rest(jsonl(_eventful()), Scope.WHOLE).branch()
    assert [n.uuid for n in whole.messages] == [
        "U1",
        "A1",
        "U2",
        "A2a",
        "A2b",
        "R1",
        "R2",
        "A3",
        "U3b",
        "A4b",
        "U5",
        "A5",
    ]
