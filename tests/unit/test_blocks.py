"""What the summary may drop: borrowed uses by block before the stop, and the words borrowed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.blocks import SIDE_TRIP_SHARE, blocks_before, borrowed_words
from keepd.core.index import Index

VOCABULARY = ["parser", "tests", "tree", "docs", "index", "curve", "grade", "tokens", "api"]

Messages = list[list[str]]


@st.composite
def cut_sessions(draw: st.DrawFn) -> tuple[Messages, int]:
    messages = draw(
        st.lists(st.lists(st.sampled_from(VOCABULARY), max_size=6), min_size=1, max_size=30)
    )
    return messages, draw(st.integers(0, len(messages)))


def _borrowed(messages: Sequence[Sequence[str]], stop: int) -> list[tuple[int, str]]:
    """(first message, word) of every use at or after `stop` of a word introduced before it."""
    first: dict[str, int] = {}
    out: list[tuple[int, str]] = []
    for m, words in enumerate(messages):
        for word in words:
            first.setdefault(word, m)
            if m >= stop and first[word] < stop:
                out.append((first[word], word))
    return out


def _index(messages: Messages) -> Index:
    index = Index()
    index.extend(messages)
    return index


@settings(max_examples=300, deadline=None)
@given(cut_sessions())
def test_blocks_cover_the_part_before_the_stop_and_count_its_borrowed_uses(
    session: tuple[Messages, int],
) -> None:
    messages, stop = session
    blocks = blocks_before(_index(messages), stop)
    if stop == 0:
        assert blocks == []
        return
    assert len(blocks) == min(6, stop)
    assert blocks[0].first == 0
    assert blocks[-1].last == stop - 1
    for before, after in pairwise(blocks):
        assert after.first == before.last + 1
    sizes = [block.last - block.first + 1 for block in blocks]
    assert min(sizes) >= 1
    assert max(sizes) - min(sizes) <= 1
    borrowed = _borrowed(messages, stop)
    for block in blocks:
        want = sum(1 for f, _ in borrowed if block.first <= f <= block.last)
        assert block.borrowed == want
        assert block.side_trip is (block.share < SIDE_TRIP_SHARE)
    assert sum(block.borrowed for block in blocks) == len(borrowed)
    if borrowed:
        assert sum(block.share for block in blocks) == pytest.approx(1.0)


@settings(max_examples=300, deadline=None)
@given(cut_sessions())
def test_borrowed_words_are_the_most_used_first(session: tuple[Messages, int]) -> None:
    messages, stop = session
    got = borrowed_words(_index(messages), stop)
    borrowed = _borrowed(messages, stop)
    counts = Counter(word for _, word in borrowed)
    firsts = {word: f for f, word in borrowed}
    want = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:12]
    assert [(w.word, w.uses) for w in got] == want
    for word in got:
        assert word.first == firsts[word.word]


def test_a_block_the_kept_part_never_refers_to_is_a_side_trip() -> None:
    messages: Messages = [
        ["parser", "reader"],
        ["parser", "reader", "bytes"],
        ["release", "changelog"],  # the side trip
        ["parser", "tree"],
        ["tree", "index"],
        ["docs", "website"],
        ["parser", "reader", "tree", "index", "bytes"],
    ]
    blocks = blocks_before(_index(messages), 6)
    assert [(b.first, b.last) for b in blocks] == [(k, k) for k in range(6)]
    assert [b.borrowed for b in blocks] == [2, 1, 0, 1, 1, 0]
    assert [b.side_trip for b in blocks] == [False, False, True, False, False, True]
    words = borrowed_words(_index(messages), 6)
    assert [(w.word, w.uses, w.first) for w in words] == [
        ("bytes", 1, 1),
        ("index", 1, 4),
        ("parser", 1, 0),
        ("reader", 1, 0),
        ("tree", 1, 3),
    ]


@settings(max_examples=200, deadline=None)
@given(cut_sessions())
def test_block_counts_are_numpys_histogram(case: tuple[Messages, int]) -> None:
    messages, stop = case
    index = Index()
    index.extend(messages)
    if stop == 0:
        return
    message, first, _ = index.uses()
    firsts = first[(message >= stop) & (first < stop)]
    edges = np.linspace(0, stop, min(6, stop) + 1).round().astype(np.int64)
    counts = np.histogram(firsts, bins=edges)[0].tolist()
    assert [block.borrowed for block in blocks_before(index, stop, 6)] == counts
