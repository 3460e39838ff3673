"""Feeding a session in random pieces, refreshing as it goes, ends where reading it whole does."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from keepd.paths import example_session
from tests.unit.builders import (
    Chain,
    assistant,
    damaged,
    jsonl,
    tool_result,
    tool_use_block,
    usage,
)


def _whole(data: bytes, scope: Scope) -> SessionState:
    state = SessionState(scope)
    state.feed(data)
    state.finish()
    return state


def _in_pieces(data: bytes, scope: Scope, seed: int, largest: int) -> SessionState:
    rng = random.Random(seed)
    state = SessionState(scope)
    at = 0
    while at < len(data):
        end = min(len(data), at + rng.randint(1, largest))
        state.feed(data[at:end])
        state.branch()
        at = end
    state.finish()
    return state


def _same(data: bytes, scope: Scope, seed: int, largest: int) -> SessionState:
    followed = _in_pieces(data, scope, seed, largest)
    assert analyse_state(followed).to_dict() == analyse_state(_whole(data, scope)).to_dict()
    return followed


@pytest.mark.parametrize("scope", list(Scope))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_example_followed_in_pieces_equals_read_whole(scope: Scope, seed: int) -> None:
    data = example_session().read_bytes()
    followed = _same(data, scope, seed, largest=3000)
    # Most refreshes only append: the branch is resolved from the tree far less often.
    assert followed.resolves < len(data) // 3000


def test_corpus_followed_in_pieces_equals_read_whole(corpus_sessions: list[Path]) -> None:
    for seed, path in enumerate(corpus_sessions):
        for scope in Scope:
            _same(path.read_bytes(), scope, seed, largest=60_000)


def _curve_of(state: SessionState) -> list[object]:
    result = analyse_state(state).to_dict()
    return [(s["uuid"], s["sc"], s["below"], s["frees"]) for s in result["stops"]] + [
        result["pick"],
        result["context"],
    ]


def test_compact_state_follows_line_by_line_like_a_full_one() -> None:
    lines = example_session().read_bytes().splitlines(keepends=True)
    compact = SessionState(compact=True)
    for at, line in enumerate(lines):
        compact.feed(line)
        compact.branch()
        if at % 25 == 0 or at == len(lines) - 1:
            full = SessionState()
            full.feed(b"".join(lines[: at + 1]))
            assert _curve_of(compact) == _curve_of(full), at
    assert not compact.stale
    assert len(compact.tree.nodes) == 0  # the tree is forgotten after each refresh


def test_compact_state_goes_stale_on_a_rewind_and_keeps_its_branch() -> None:
    data = example_session().read_bytes()
    compact = SessionState(compact=True)
    compact.feed(data)
    before = _curve_of(compact)
    first = analyse_state(compact).stops[0].uuid
    rewind = {
        "type": "user",
        "uuid": "rewound-prompt",
        "parentUuid": first,
        "isSidechain": False,
        "message": {"role": "user", "content": "let us try that differently"},
    }
    compact.feed(orjson.dumps(rewind) + b"\n")
    compact.branch()
    assert compact.stale
    assert _curve_of(compact) == before


def test_compact_state_read_whole_equals_full_state() -> None:
    data = example_session().read_bytes()
    compact = SessionState(compact=True)
    compact.feed(data)
    full = SessionState()
    full.feed(data)
    assert _curve_of(compact) == _curve_of(full)
    assert not compact.stale


def test_damaged_corpus_sessions_followed_in_pieces_equal_read_whole(
    corpus_sessions: list[Path],
) -> None:
    rng = random.Random(23)
    blobs = [path.read_bytes() for path in corpus_sessions]
    for case in range(100):
        data = damaged(rng.choice(blobs), rng)
        end = data.find(b"\n", rng.randrange(len(data)))  # a session still being written
        _same(data[: end + 1] if end > 0 else data, Scope.CURRENT, case, 200_000)


def test_a_result_whose_call_is_missing_is_left_when_the_response_goes_on() -> None:
    chain = Chain()
    prompt = chain.prompt("run the parser tests")
    first = chain.reply("running them", context=1000)
    call = [tool_use_block("t2", command="pytest")]
    chain.add(assistant("a2", "missing", call, msg_id="msg_u001"))
    chain.add(tool_result("r1", "missing", "t1", "the call of this result is not in the file"))
    before = chain.jsonl()
    chain.add(tool_result("r2", "a2", "t2", "4 passed"))
    chain.add(assistant("a3", "r2", "all pass", msg_id="msg_u002"))
    data = chain.jsonl()
    followed = SessionState(Scope.CURRENT)
    followed.feed(before)
    assert [n.uuid for n in followed.branch().messages][-1] == "r1"  # the newest, for now
    followed.feed(data[len(before) :])
    whole = _whole(data, Scope.CURRENT)
    assert [n.uuid for n in followed.branch().messages] == [prompt, first, "a2", "r2", "a3"]
    assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict()


def test_a_line_written_again_is_walked_anew() -> None:
    chain = Chain()
    chain.prompt("run the parser tests")
    chain.reply("running them", context=1000)  # the first line of a response ...
    call = [tool_use_block("t1", command="pytest")]
    chain.add(assistant("a2", chain.last, call, msg_id="msg_u001", usage_=usage(1000)))
    lines = chain.jsonl().splitlines(keepends=True)
    data = b"".join([*lines, lines[-1]])  # ... whose second line is written twice
    followed = SessionState(Scope.CURRENT)
    for line in data.splitlines(keepends=True):
        followed.feed(line)
        followed.branch()
    whole = _whole(data, Scope.CURRENT)
    assert len(followed.branch().messages) == len(whole.branch().messages) == 3
    assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict()


def test_file_order_never_falls_back_to_a_superseded_copy() -> None:
    chain = Chain()
    chain.prompt("run the parser tests")
    first = chain.reply("running them", context=1000)  # written again below, out of place
    chain.reply([tool_use_block("t1", command="pytest")], context=1000)
    chain.entries[-1]["message"]["id"] = chain.entries[-2]["message"]["id"]  # one response
    chain.add(tool_result("r1", chain.last or "", "t1", "4 passed"))
    again = chain.entries[1]
    lines = chain.jsonl().splitlines(keepends=True)
    data = b"".join([*lines, jsonl([again, tool_result("r2", "r1", "t1", "and again")])])
    followed = SessionState(Scope.CURRENT)
    cut = len(b"".join(lines)) + len(jsonl([again]))
    followed.feed(data[:cut])
    followed.branch()
    followed.feed(data[cut:])
    whole = _whole(data, Scope.CURRENT)
    assert [n.uuid for n in whole.branch().messages].count(first) == 1
    assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict()
