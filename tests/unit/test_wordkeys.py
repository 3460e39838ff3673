"""Content words of many texts at once: the same words, keys and spellings as one by one."""

from __future__ import annotations

from itertools import chain

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.index import Index
from keepd.core.messages import Node
from keepd.core.session import BATCH_FROM, SessionState
from keepd.core.wordkeys import word_keys
from keepd.core.words import content_words


def assert_same_as_one_by_one(texts: list[str]) -> None:
    words = [content_words(text) for text in texts]
    flat = list(chain.from_iterable(words))
    found = word_keys(texts)
    assert found.counts.tolist() == [len(each) for each in words]
    assert found.keys.tolist() == [hash(word) for word in flat]
    assert found.words_at(np.arange(len(flat))) == flat


def test_pieces_long_short_repeated_and_odd() -> None:
    texts = [
        "Fix parse_line() in keepd/core/entries.py. Then parse_line again, and again.",
        "",
        "a_very_long_identifier_name_here a_very_long_identifier_name_here 3rd __init__",
        "Wait... ab.cde x1.abc v2.0 2.1.332 end.",
        "İSTANBUL Kelvin \u212aelvin café — naïve",
        "the and of",
        "precedence precedences precedence.",
        "main...origin e.g abc..d abc.d.e ab.cde abc. abc.de. x.yz.w ..abc .abc abc.d..e a1_.x",
    ]
    assert_same_as_one_by_one(texts)
    assert_same_as_one_by_one(texts[::-1])
    assert_same_as_one_by_one([])


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.text(alphabet="abeht1_. .\n?-Z\u00e9\u0130\u212a", max_size=60),
        max_size=8,
    )
)
def test_any_texts_split_as_one_by_one(texts: list[str]) -> None:
    assert_same_as_one_by_one(texts)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "parser",
                "parsers",
                "parser.",
                "abcdefghijklmnopq",
                "abcdefghijklmnopqr",
                "the",
                "x9y",
            ]
        ),
        max_size=40,
    )
)
def test_repeated_pieces_of_every_length(pieces: list[str]) -> None:
    assert_same_as_one_by_one([" ".join(pieces[:20]), " ".join(pieces[20:])])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(alphabet="abeht1_. Z\u00e9", max_size=40), st.booleans()), max_size=8
    )
)
def test_texts_split_already_keep_their_places(texts: list[tuple[str, bool]]) -> None:
    split = {i: content_words(text) for i, (text, done) in enumerate(texts) if done}
    found = word_keys(["" if i in split else text for i, (text, _) in enumerate(texts)])
    found = found.with_split(split) if split else found
    words = [content_words(text) for text, _ in texts]
    flat = list(chain.from_iterable(words))
    assert found.counts.tolist() == [len(each) for each in words]
    assert found.keys.tolist() == [hash(word) for word in flat]
    assert found.words_at(np.arange(len(flat))) == flat


def test_a_branch_indexed_in_one_batch_is_indexed_as_one_by_one() -> None:
    texts = [
        f"Turn {i}: the parser_{i % 7} reads entries.py and module_{i % 3}.py again. " * 9
        for i in range(40)
    ]
    nodes = [
        Node(
            pos=i,
            kind="user",
            uuid=str(i),
            parent=str(i - 1) if i else None,
            is_prompt=True,
            chars=len(text),
            text="" if i % 5 == 0 else text,
            words=content_words(text) if i % 5 == 0 else (),
        )
        for i, text in enumerate(texts)
    ]
    assert sum(len(node.text) for node in nodes) >= BATCH_FROM
    state = SessionState()
    state.add_nodes(nodes)
    state.branch()
    one_by_one = Index()
    one_by_one.extend([content_words(text) for text in texts])
    for got, want in zip(state.index.uses(), one_by_one.uses(), strict=True):
        assert got.tolist() == want.tolist()
    assert state.index.names == one_by_one.names
    assert state.index.uses_by_first.tolist() == one_by_one.uses_by_first.tolist()
