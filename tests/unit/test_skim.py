"""Skimming what precedes the newest full compaction gives the same analysis as reading it all."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.api import load_state
from keepd.core.analysis import analyse_state
from keepd.core.entries import is_bookkeeping
from keepd.core.session import SessionState, read_current
from keepd.core.skim import _PASSED_OVER, ContextStart, _plain_kind, context_start
from keepd.core.tree import Scope
from keepd.daemon.registry import Registry
from tests.unit.builders import (
    Chain,
    assistant,
    compact_boundary,
    compact_summary,
    damaged,
    jsonl,
    line,
    progress,
    sidechain,
    tool_result,
    user,
)


def full_read(data: bytes) -> SessionState:
    state = SessionState(Scope.CURRENT)
    state.feed(data)
    state.finish()
    return state


def same_analysis(data: bytes) -> SessionState:
    """Asserts the skimmed and the full reading analyse alike; returns the skimmed state."""
    skimmed = read_current(data)
    assert analyse_state(skimmed).to_dict() == analyse_state(full_read(data)).to_dict()
    return skimmed


def compacted(*, before: int = 4, after: int = 3, context: int = 120_000) -> Chain:
    """Turns, a full compaction, its summary, more turns."""
    chain = Chain()
    for i in range(before):
        chain.turn(f"parser step {i} tokenizer grammar", f"done parser {i}", context=context)
    old_tail = chain.last
    chain.add(compact_boundary("b001", old_tail))
    chain.add(compact_summary("s001", "b001"))
    chain.last = "s001"
    for i in range(after):
        chain.turn(f"docs page {i} screenshots", f"wrote docs {i}", context=30_000 + i)
    return chain


def test_a_full_compaction_is_skimmed_and_analyses_alike() -> None:
    data = compacted().jsonl()
    state = same_analysis(data)
    assert state.tree.partial
    assert state.tree.nodes[0].uuid == "b001"  # nothing before the boundary became a node


def test_usage_before_the_boundary_still_proves_a_large_window() -> None:
    data = compacted(context=450_000).jsonl()
    state = same_analysis(data)
    assert state.tree.partial
    assert analyse_state(state).context["window"] == 1_000_000


def test_the_session_id_comes_from_the_first_message_of_the_file() -> None:
    chain = compacted()
    chain.entries[0] = {**chain.entries[0], "sessionId": "first-one"}
    state = same_analysis(chain.jsonl())
    assert state.tree.session_id == "first-one"


def test_no_boundary_or_a_sub_agents_one_reads_everything() -> None:
    plain = Chain()
    plain.turn("hello parser", "hi")
    assert context_start(plain.jsonl()).offset == 0
    chain = compacted()
    chain.entries[8] = sidechain(compact_boundary("b001", "u008"))
    assert context_start(chain.jsonl()).offset == 0


def test_a_preserving_boundary_is_started_at_with_the_lines_it_kept() -> None:
    chain = compacted()
    kept = ("s001", ["u007", "u008"])  # the last turn: its prompt and reply
    chain.entries[8] = compact_boundary("b001", "u008", preserved=kept, trigger="manual")
    chain.entries[9] = compact_summary("s001", "b001", full=False)
    data = chain.jsonl()
    start = context_start(data)
    assert data[start.offset :].startswith(line(chain.entries[8]))
    assert [data[a:b] for a, b in start.kept] == [line(e).strip() for e in chain.entries[6:8]]
    state = same_analysis(data)
    assert state.tree.partial
    assert [n.uuid for n in state.tree.nodes[:3]] == ["u007", "u008", "b001"]
    stops = [stop.quote for stop in analyse_state(state).stops]
    assert stops[0] == "parser step 3 tokenizer grammar"  # the kept prompt is a stop


def test_a_preserved_segment_is_walked_back_from_its_tail() -> None:
    chain = compacted()
    chain.entries[8] = compact_boundary("b001", "u008", segment=("u005", "s001", "u008"))
    chain.entries[9] = compact_summary("s001", "b001", full=False)
    data = chain.jsonl()
    start = context_start(data)
    assert [data[a:b] for a, b in start.kept] == [line(e).strip() for e in chain.entries[4:8]]
    assert same_analysis(data).tree.partial


def test_a_preserved_uuid_missing_from_the_file_reads_everything() -> None:
    chain = compacted()
    chain.entries[8] = compact_boundary("b001", "u008", preserved=("s001", ["u007", "gone"]))
    assert context_start(chain.jsonl()) == ContextStart()
    chain.entries[8] = compact_boundary("b001", "u008", segment=("gone", "s001", "u008"))
    assert context_start(chain.jsonl()) == ContextStart()
    same_analysis(chain.jsonl())


def test_the_newest_copy_of_a_preserved_line_is_taken() -> None:
    chain = compacted()
    chain.entries[8] = compact_boundary("b001", "u008", preserved=("s001", ["u006"]))
    again = {**chain.entries[5], "message": {"role": "assistant", "content": "rewritten"}}
    chain.entries.insert(7, again)  # u006 written again before the boundary
    data = chain.jsonl()
    start = context_start(data)
    assert [data[a:b] for a, b in start.kept] == [line(again).strip()]
    same_analysis(data)


def test_a_uuid_quoted_inside_another_line_is_not_taken_for_it() -> None:
    chain = compacted()
    chain.entries[8] = compact_boundary("b001", "u008", preserved=("s001", ["u004"]))
    quoted = tool_result("r900", "u005", "toolu_x", "ok") | {"toolUseResult": {"uuid": "u004"}}
    chain.entries.insert(6, quoted)
    data = chain.jsonl()
    start = context_start(data)
    assert [data[a:b] for a, b in start.kept] == [line(chain.entries[3]).strip()]
    same_analysis(data)


def test_the_newest_boundary_is_found_past_one_quoted_inside_a_later_line() -> None:
    chain = compacted()
    quoted = {"type": "system", "subtype": "compact_boundary"}  # a tool's structured output
    chain.add(tool_result("r900", chain.last or "", "toolu_x", "ok") | {"toolUseResult": quoted})
    data = chain.jsonl()
    assert data[context_start(data).offset :].startswith(line(chain.entries[8]))
    same_analysis(data)


def test_a_parent_before_the_boundary_makes_it_read_everything() -> None:
    chain = compacted()
    chain.add(user("u900", "u002", "back to the parser tokenizer"))  # a rewind past the boundary
    data = chain.jsonl()
    state = same_analysis(data)
    assert not state.tree.partial


def test_a_response_id_shared_across_the_boundary_makes_it_read_everything() -> None:
    chain = compacted()
    chain.add(assistant("a900", chain.last, "more docs", msg_id="msg_u001"))
    state = same_analysis(chain.jsonl())
    assert not state.tree.partial


def test_a_line_written_twice_across_the_boundary_counts_once() -> None:
    chain = compacted()
    chain.tool_call("ls docs", "index.md")
    chain.entries.insert(2, chain.entries[-1])  # the tool result, copied before the boundary
    state = same_analysis(chain.jsonl())
    assert state.tree.partial


def test_nothing_after_the_boundary_but_its_summary() -> None:
    state = same_analysis(compacted(after=0).jsonl())
    assert state.tree.partial


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        (b'{"type":"user","message":{"content":"x"}}', True),
        (b'{"parentUuid":"a","type":"progress","data":{"type":"assistant"}}', True),
        (b'{"type":"assistant","message":{}}', False),
        (b'{"parentUuid":"a","message":{"type":"message"},"type":"user"}', False),
        (b' {"type":"user"}', False),
        (b'{"kind":"user"}', False),
        (b'{"type":"\\u0061ssistant","message":{}}', False),
        (b'{"type":"assistantish"}', True),
    ],
)
def test_only_a_top_level_type_before_any_nesting_is_trusted(raw: bytes, plain: bool) -> None:
    assert _plain_kind(raw, 0, len(raw)) is plain


def test_lines_that_are_not_objects_are_counted_where_read() -> None:
    chain = compacted()
    data = b"not json\n" + chain.jsonl() + b"[1]\n"
    state = read_current(data)
    assert state.tree.partial
    assert state.reader.skipped == 2  # the first line is read: no message had named the session


_PARENTS = st.sampled_from(["previous", "previous", "previous", "earlier", "missing"])


@st.composite
def sessions(draw: Any) -> bytes:
    """Random sessions: turns, tool calls, progress, background tasks' notices, rewinds,
    boundaries of every kind."""
    entries: list[dict[str, Any]] = []
    uuids: list[str] = []
    for i in range(draw(st.integers(4, 40))):
        uuid = f"e{i:03d}"
        how = draw(_PARENTS)
        parent = uuids[-1] if uuids and how == "previous" else None
        if uuids and how == "earlier":
            parent = uuids[draw(st.integers(0, len(uuids) - 1))]
        if how == "missing":
            parent = "nowhere"
        kind = draw(
            st.sampled_from(["prompt", "reply", "result", "progress", "notice", "boundary"])
        )
        entries.append(_entry(kind, uuid, parent, draw, uuids))
        uuids.append(uuid)
    for _ in range(draw(st.integers(0, 2))):  # a line written twice, anywhere
        copy = entries[draw(st.integers(0, len(entries) - 1))]
        entries.insert(draw(st.integers(0, len(entries))), copy)
    return jsonl(entries)


def _entry(
    kind: str, uuid: str, parent: str | None, draw: Any, earlier: list[str]
) -> dict[str, Any]:
    if kind == "prompt":
        return user(uuid, parent, draw(st.sampled_from(["parser grammar", "docs screenshots"])))
    if kind == "reply":
        msg_id = f"msg_{draw(st.integers(0, 6))}"
        tokens = draw(st.sampled_from([None, 90_000, 250_000]))
        usage = None if tokens is None else {"input_tokens": tokens, "output_tokens": 9}
        usage = usage and {**usage, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        return assistant(uuid, parent, "tokenizer notes", msg_id=msg_id, usage_=usage)
    if kind == "notice":  # a background task's notice (tests/unit/test_notices.py)
        notice = "<task-notification>\n<status>completed</status>\n</task-notification>"
        return user(uuid, parent, notice, origin={"kind": "task-notification"})
    if kind == "result":
        return tool_result(uuid, parent or "nowhere", "toolu_1", "ok")
    if kind == "progress":
        return progress(uuid, parent)
    keeps = draw(st.sampled_from(["none", "none", "segment", "listed", "sidechain"]))
    boundary = compact_boundary(uuid, parent)
    if keeps == "segment" and parent is not None:
        head = draw(st.sampled_from([parent, *earlier[-4:]]))
        boundary = compact_boundary(uuid, parent, segment=(head, uuid, parent))
    if keeps == "listed" and earlier:
        picked = draw(st.lists(st.sampled_from([*earlier, "nowhere"]), max_size=4, unique=True))
        boundary = compact_boundary(uuid, parent, preserved=(uuid, sorted(picked)))
    return sidechain(boundary) if keeps == "sidechain" else boundary


@settings(max_examples=300, deadline=None)
@given(sessions())
def test_random_sessions_analyse_alike_skimmed_or_read_whole(data: bytes) -> None:
    try:
        expected = analyse_state(full_read(data)).to_dict()
    except Exception as error:  # the full reading is the reference, even when it fails
        with pytest.raises(type(error)):
            analyse_state(read_current(data))
        return
    assert analyse_state(read_current(data)).to_dict() == expected


def test_corpus_sessions_analyse_alike(corpus_sessions: list[Path]) -> None:
    skimmed = 0
    for path in corpus_sessions:
        state = load_state(path, Scope.CURRENT)
        expected = analyse_state(load_state(path, Scope.CURRENT, skim=False), path=str(path))
        got = orjson.dumps(analyse_state(state, path=str(path)).to_dict())
        assert got == orjson.dumps(expected.to_dict()), path.name
        skimmed += state.tree.partial
    assert skimmed > 0


def test_the_daemon_skims_a_whole_file_and_feeds_one_read_in_pieces(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    path = root / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    data = compacted(before=30).jsonl()
    path.write_bytes(data)
    expected = analyse_state(full_read(data), path=str(path), every_stop=False).to_dict()
    whole = Registry(lambda: [root])
    whole.read(path, len(data))
    skimmed = whole.sessions[path].state
    assert skimmed is not None and skimmed.tree.partial
    in_pieces = Registry(lambda: [root])
    while in_pieces.read(path, len(data) // 3).more:
        pass
    for registry in (whole, in_pieces):
        analysis = registry.analyse(path)
        assert analysis is not None and analysis.to_dict() == expected


def test_mutated_corpus_sessions_analyse_alike(corpus_sessions: list[Path]) -> None:
    rng = random.Random(11)
    compacted_files = [path.read_bytes() for path in corpus_sessions]
    compacted_files = [data for data in compacted_files if context_start(data).offset]
    for _ in range(120):
        data = damaged(rng.choice(compacted_files), rng, boundaries=True)
        skimmed, whole = analyse_state(read_current(data)), analyse_state(full_read(data))
        got, expected = skimmed.to_dict(), whole.to_dict()
        got.pop("skipped_lines")  # counted among the lines read
        expected.pop("skipped_lines")
        assert got == expected


def _boundary_written_again() -> bytes:
    """A boundary keeping the last turn (its list names the reply first, as a random session's
    list may), a prompt under the boundary, and the boundary's line again."""
    boundary = compact_boundary("b001", "u004", preserved=("b001", ["u004", "u003"]))
    chain = Chain()
    chain.turn("parser step 1 tokenizer grammar", "done parser 1", context=120_000)
    chain.turn("parser step 2 tokenizer grammar", "done parser 2", context=120_000)
    chain.add(boundary)
    chain.prompt("docs page screenshots")
    chain.add(boundary)  # written again, after the prompt that hangs under its first copy
    return chain.jsonl()


def test_a_boundary_written_again_after_a_prompt_under_it_is_not_started_at() -> None:
    """The skim started at the boundary's second copy and lost the prompts its first copy kept
    (found by the random sessions above); the whole read decides instead."""
    data = _boundary_written_again()
    skimmed, whole = read_current(data), full_read(data)
    stops = [stop.uuid for stop in analyse_state(skimmed).stops]
    assert stops == [stop.uuid for stop in analyse_state(whole).stops] == ["u003"]
    assert analyse_state(skimmed).to_dict() == analyse_state(whole).to_dict()
    assert context_start(data) == ContextStart()


# Pieces of a line's head: plain values, and values that hide a quote, a brace, a backslash
# or a type inside them.
_VALUES = st.sampled_from(
    ["null", "true", "false", '"a-1"', '"x{y"', '"q\\"z"', '"\\\\"', '"type"', '"","type":"user"']
)
_KEYS = st.sampled_from(['"parentUuid":', '"isSidechain":', '"promptId":', '"logicalParentUuid":'])
_TAILS = st.sampled_from(
    [
        '"type":"user"',
        '"type":"assistant"',
        '"type":"system"',
        '"type":"progress"',
        '"attachment":{',
        '"message":{"type":"user"}',
        '"type":"userx"',
        '"type":"cost-state"',
    ]
)


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(_KEYS, _VALUES), max_size=3), _TAILS, st.booleans())
def test_a_head_passed_over_in_one_match_is_one_the_checks_pass_over(
    pairs: list[tuple[str, str]], tail: str, type_first: bool
) -> None:
    keys = [key + value for key, value in pairs]
    parts = [tail, *keys] if type_first else [*keys, tail]
    raw = ("{" + ",".join(parts) + ',"uuid":"u"}').encode()
    if _PASSED_OVER.match(raw):
        assert is_bookkeeping(raw) or _plain_kind(raw, 0, len(raw))


def test_2_1_332_heads_are_passed_over_in_one_match() -> None:
    user = b'{"parentUuid":"a","isSidechain":false,"promptId":"p","type":"user","message":{}}'
    attachment = b'{"parentUuid":null,"isSidechain":false,"attachment":{"type":"date"}}'
    assistant = b'{"parentUuid":"a","isSidechain":false,"message":{"id":"m"},"type":"assistant"}'
    assert _PASSED_OVER.match(user) and _PASSED_OVER.match(attachment)
    assert not _PASSED_OVER.match(assistant)
