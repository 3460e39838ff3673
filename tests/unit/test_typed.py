"""The typed reader (core/typed.py) makes the node and the skim's facts the dict path makes, or
declines the line for it: on the corpus, on lines of every shape, and on bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.entries import BOOKKEEPING_LINE, EntryReader
from keepd.core.messages import make_node
from keepd.core.session import SessionState
from keepd.core.skim import _note
from keepd.core.tree import Scope, Tree
from keepd.core.typed import NO_FACTS, Facts, skimmed_facts, typed_node


class _Noted(Tree):
    """A tree that records what `skim._note` hands it."""

    def __init__(self) -> None:
        super().__init__()
        self.noted: Facts = NO_FACTS

    def note_skimmed(
        self,
        msg_id: str | None,
        is_message: bool,
        sidechain: bool,
        session_id: str | None,
        context_tokens: int | None,
        *,
        model: str | None = None,
    ) -> None:
        self.noted = (msg_id, is_message, sidechain, session_id, context_tokens, model)


def _expected_facts(entry: dict[str, Any]) -> Facts:
    tree = _Noted()
    _note(tree, entry)
    return tree.noted


def _check(raw: bytes) -> tuple[bool, bool]:
    """Asserts the typed reader agrees with the dict path on `raw`; whether each reader (the
    node's, the facts') took the line."""
    reader = EntryReader()
    entry = reader.parse_lean(raw)
    node = typed_node(raw, 3)
    facts = skimmed_facts(raw)
    if entry is None:  # not an entry: the typed reader must not make one either
        assert node is None and facts is None
        return False, False
    if node is not None:
        assert node == make_node(entry, 3)
    if facts is not None:
        assert facts == _expected_facts(entry)
    return node is not None, facts is not None


def test_every_corpus_line_reads_alike(corpus_sessions: list[Path]) -> None:
    lines = taken = 0
    for path in corpus_sessions:
        for raw in path.read_bytes().split(b"\n"):
            if raw and not BOOKKEEPING_LINE.match(raw):
                node, facts = _check(raw)
                lines += 1
                taken += node
                assert facts, path.name  # every corpus line's facts are plain
    assert taken > 0.9 * lines  # the typed reader is the usual one, not a rare one


# Any JSON value, of the types the typed reader refuses too
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "user", "assistant", "<synthetic>", "a", "compact_boundary"]),
    st.lists(st.sampled_from(["x", 1]), max_size=2),
    st.just({"k": "v"}),
)
_WORDS = st.sampled_from(["", "a", "<synthetic>", "fix #12 in /a.py", "<bash-stdout>", "Great!"])
_TEXTS = st.one_of(_WORDS, _WORDS, st.text())
_FLAGS = st.one_of(st.none(), st.booleans())
_COUNTS = st.one_of(st.none(), st.integers(min_value=0, max_value=10**6))
# each field's usual values (`_TEXTS` for the rest)
_USUAL = {
    "isSidechain": _FLAGS,
    "isMeta": _FLAGS,
    "isCompactSummary": _FLAGS,
    "isVisibleInTranscriptOnly": _FLAGS,
    "isApiErrorMessage": _FLAGS,
    "subtype": st.sampled_from(["compact_boundary", "turn_duration"]),
    "toolUseResult": st.just({"stdout": "ok"}),
}


def _value(draw: st.DrawFn, usual: st.SearchStrategy[Any]) -> Any:
    """A field's usual value, now and then one of any type."""
    return draw(_VALUES) if draw(st.integers(0, 24)) == 0 else draw(usual)


@st.composite
def _blocks(draw: st.DrawFn) -> Any:
    kinds = st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image", "other"])
    block: dict[str, Any] = {"type": _value(draw, kinds)}
    for key in ("text", "thinking", "id", "tool_use_id", "name", "content"):
        if draw(st.booleans()):
            block[key] = _value(draw, _TEXTS)
    if draw(st.booleans()):
        name = draw(st.sampled_from(["Edit", "Write", "Read", "Bash"]))
        block |= {"name": name, "input": {"file_path": "/a.py", "command": "git commit"}}
    return block


@st.composite
def _entries(draw: st.DrawFn) -> dict[str, Any]:
    kinds = st.sampled_from(["user", "user", "assistant", "progress", "system", "attachment"])
    entry: dict[str, Any] = {"type": _value(draw, kinds)}
    for key in (
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "isSidechain",
        "timestamp",
        "sessionId",
        "cwd",
        "gitBranch",
        "isMeta",
        "isCompactSummary",
        "isVisibleInTranscriptOnly",
        "isApiErrorMessage",
        "subtype",
        "toolUseResult",
    ):
        if draw(st.booleans()):
            entry[key] = _value(draw, _USUAL.get(key, _TEXTS))
    if draw(st.integers(0, 5)) > 0:
        counts = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        usage = {
            key: _value(draw, _COUNTS)
            for key in (*counts, "output_tokens")
            if draw(st.integers(0, 5)) > 0
        }
        content = st.one_of(_TEXTS, _TEXTS, st.lists(_blocks(), max_size=3))
        message = {"content": _value(draw, content), "usage": _value(draw, st.just(usage))}
        message |= {"model": _value(draw, _TEXTS), "id": _value(draw, _TEXTS)}
        entry["message"] = _value(draw, st.just(message))
    return entry


@settings(max_examples=1000, deadline=None)
@given(_entries())
def test_lines_of_any_shape_read_alike(entry: dict[str, Any]) -> None:
    # json, not orjson: it writes the integers past 64 bits that orjson reads as floats
    _check(json.dumps(entry).encode())


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   ",
        b"not json",
        b"[1, 2]",
        b'"user"',
        b'{"type":"user","uuid":"u"',  # cut short
        b'{"type":"user","uuid":"u","message":{"content":[1,]}}',  # malformed content
        b'{"type":"user","uuid":"u","message":"hi"}',  # a message that is not an object
        b'{"type":"user","uuid":"u","message":{"content":["hi",{"type":"text"}]}}',
        b'{"type":"user","uuid":"u","message":{"content":{"type":"text"}}}',
        b'{"type":"user","uuid":"u","message":{"content":[{"input":'
        + b"[" * 1010
        + b"]" * 1010
        + b"}]}}",  # deeper than msgspec nests, not than orjson
        b'{"type":"progress","uuid":"p","data":' + b"[" * 1010 + b"]" * 1010 + b"}",
        b'{"type":"assistant","uuid":"u","isSidechain":"yes"}',
        b'{"type":"assistant","message":{"usage":{"input_tokens":true}}}',
        b'{"type":"assistant","message":{"usage":{"input_tokens":1e3}}}',
        b'{"type":"assistant","message":{"usage":{"input_tokens":18446744073709551615}}}',
        b'{"type":"assistant","message":{"usage":{"input_tokens":18446744073709551616}}}',
        b'{"type":"attachment","uuid":"a","attachment":{"type":"queued_command"}}',
        b'{"type":"system","subtype":"compact_boundary","uuid":"b"}',
    ],
)
def test_what_the_typed_reader_declines_reads_as_before(raw: bytes) -> None:
    assert typed_node(raw, 0) is None
    _check(raw)


def test_a_file_with_bad_lines_gives_the_dict_paths_nodes_and_skips() -> None:
    lines = [
        b'{"type":"user","uuid":"u1","sessionId":"s","message":{"content":"fix the parser"}}',
        b"not json",
        b'{"type":"assistant","uuid":"a1","parentUuid":"u1","message":"odd"}',
        b'{"type":"assistant","uuid":"a2","parentUuid":"u1","message":{"id":"m",'
        b'"content":[{"type":"text","text":"done"}],"usage":{"input_tokens":1,'
        b'"cache_creation_input_tokens":2,"cache_read_input_tokens":3,"output_tokens":4}}}',
        b"[1]",
        b'{"type":"user","uuid":7}',
    ]
    state = SessionState(Scope.WHOLE)
    state.feed(b"\n".join(lines) + b"\n")
    reader = EntryReader()
    expected = [make_node(e, i) for i, e in enumerate(filter(None, map(reader.parse, lines)))]
    assert state.tree.nodes == expected
    assert state.reader.skipped == reader.skipped == 2
    assert state.tree.nodes[2].context_tokens == 6


def test_the_bytes_of_a_field_nobody_reads_are_not_checked() -> None:
    """The one difference (core/typed.py): orjson refuses these lines whole, msgspec passes
    over the field unread, as the lean parse passes over a long line's `toolUseResult`."""
    for unread in (b'"\xff"', b"1e400"):
        raw = b'{"type":"progress","uuid":"p","data":' + unread + b"}"
        assert EntryReader().parse(raw) is None
        node = typed_node(raw, 0)
        assert node is not None and node.uuid == "p"
    # nor an integer past a float's range in a message's content, which no node reads
    raw = b'{"type":"user","uuid":"u","message":{"content":[{"type":"x","n":' + b"9" * 400
    raw += b"}]}}"
    assert EntryReader().parse(raw) is None
    node = typed_node(raw, 0)
    assert node is not None and node.uuid == "u" and not node.chars


def test_ids_past_64_bits_read_as_orjson_reads_them() -> None:
    raw = b'{"type":"assistant","uuid":"a","message":{"content":[{"type":"tool_use","id":'
    raw += str(2**64).encode() + b',"name":' + str(-(2**63) - 1).encode() + b"}]}}"
    node = typed_node(raw, 0)
    entry = EntryReader().parse(raw)
    assert node is not None and entry is not None and node == make_node(entry, 0)
    assert node.tool_calls == ("1.8446744073709552e+19",)
