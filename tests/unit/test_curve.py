"""The curve against its definition (measure.md), and the index that feeds it, however appended."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.curve import Curve, curve
from keepd.core.index import Index, _FirstSeen, unique_first

VOCABULARY = ["parser", "tests", "tree", "docs", "index", "curve", "grade", "tokens", "api"]

Messages = list[list[str]]

messages_strategy = st.lists(
    st.lists(st.sampled_from(VOCABULARY), max_size=6), min_size=1, max_size=25
)


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Messages, list[int]]:
    """Messages and a sorted subset of their indices as stops."""
    messages = draw(messages_strategy)
    stops = draw(st.sets(st.integers(0, len(messages) - 1)))
    return messages, sorted(stops)


@st.composite
def splits(draw: st.DrawFn) -> tuple[Messages, list[int]]:
    """Messages and cut points splitting them into consecutive batches (some empty)."""
    messages = draw(messages_strategy)
    cuts = draw(st.lists(st.integers(0, len(messages)), max_size=6))
    return messages, sorted(cuts)


def _firsts(messages: Sequence[Sequence[str]]) -> list[tuple[int, int, str]]:
    """Every use as (message, first message of its word, word), straight from the definition."""
    first: dict[str, int] = {}
    uses: list[tuple[int, int, str]] = []
    for m, words in enumerate(messages):
        for word in words:
            first.setdefault(word, m)
            uses.append((m, first[word], word))
    return uses


def _brute_curve(
    messages: Sequence[Sequence[str]], stops: Sequence[int]
) -> list[tuple[float, int, int]]:
    """(SC, kept, borrowed) at each stop, O(N^2), from measure.md."""
    uses = _firsts(messages)
    out: list[tuple[float, int, int]] = []
    for s in stops:
        kept = sum(1 for m, _, _ in uses if m >= s)
        own = sum(1 for m, f, _ in uses if m >= s and f >= s)
        borrowed = sum(1 for m, f, _ in uses if m >= s and f < s)
        out.append((own / kept if kept else math.nan, kept, borrowed))
    return out


def _indexed(messages: Messages, *, detail: bool = True) -> Index:
    index = Index(detail=detail)
    index.extend(messages)
    return index


def _assert_matches(got: Curve, want: list[tuple[float, int, int]], stops: list[int]) -> None:
    assert len(got) == len(stops)
    assert got.stops.tolist() == stops
    assert got.kept.tolist() == [kept for _, kept, _ in want]
    assert got.borrowed.tolist() == [borrowed for _, _, borrowed in want]
    for value, (sc, _, _) in zip(got.sc.tolist(), want, strict=True):
        if math.isnan(sc):
            assert math.isnan(value)
        else:
            assert value == pytest.approx(sc, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(sessions())
def test_curve_equals_the_definition(session: tuple[Messages, list[int]]) -> None:
    messages, stops = session
    _assert_matches(curve(_indexed(messages), stops), _brute_curve(messages, stops), stops)


@settings(max_examples=100, deadline=None)
@given(sessions())
def test_curve_accepts_an_array_of_stops(session: tuple[Messages, list[int]]) -> None:
    messages, stops = session
    got = curve(_indexed(messages), np.array(stops, dtype=np.int64))
    _assert_matches(got, _brute_curve(messages, stops), stops)


def test_curve_of_the_docstring_example() -> None:
    messages = [["parser", "tests"], ["parser", "fix"], ["docs", "fix"]]
    got = curve(_indexed(messages), [0, 1, 2])
    assert got.sc.tolist() == pytest.approx([1.0, 0.75, 0.5])
    assert got.kept.tolist() == [6, 4, 2]
    assert got.borrowed.tolist() == [0, 1, 1]


def test_stop_with_no_words_after_it_has_no_sc() -> None:
    got = curve(_indexed([["parser"], [], []]), [0, 1, 2])
    assert got.sc[0] == 1.0
    assert math.isnan(got.sc[1]) and math.isnan(got.sc[2])
    assert got.kept.tolist() == [1, 0, 0]
    assert got.borrowed.tolist() == [0, 0, 0]


def test_curve_with_no_stops_is_empty() -> None:
    got = curve(_indexed([["parser"], ["tests"]]), [])
    assert len(got) == 0


@settings(max_examples=300, deadline=None)
@given(splits())
def test_index_in_batches_equals_index_in_one_go(split: tuple[Messages, list[int]]) -> None:
    messages, cuts = split
    whole = _indexed(messages)
    one_by_one = Index()
    for words in messages:
        one_by_one.extend([words])
    batched = Index()
    for lo, hi in zip([0, *cuts], [*cuts, len(messages)], strict=True):
        batched.extend(messages[lo:hi])
    uses = _firsts(messages)
    want_by_message = [len(words) for words in messages]
    want_by_first = [sum(1 for _, f, _ in uses if f == m) for m in range(len(messages))]
    for index in (whole, one_by_one, batched):
        assert index.size == len(messages)
        assert index.vocabulary == len({word for _, _, word in uses})
        assert index.uses_by_message.tolist() == want_by_message
        assert index.uses_by_first.tolist() == want_by_first
        message, first, word = index.uses()
        assert message.tolist() == [m for m, _, _ in uses]
        assert first.tolist() == [f for _, f, _ in uses]
        assert word.tolist() == [hash(w) for _, _, w in uses]
        assert index.names == {hash(w): w for _, _, w in uses}


@settings(max_examples=100, deadline=None)
@given(splits())
def test_index_without_detail_has_the_same_histograms(split: tuple[Messages, list[int]]) -> None:
    messages, cuts = split
    full = _indexed(messages)
    slim = Index(detail=False)
    for lo, hi in zip([0, *cuts], [*cuts, len(messages)], strict=True):
        slim.extend(messages[lo:hi])
    assert slim.uses_by_message.tolist() == full.uses_by_message.tolist()
    assert slim.uses_by_first.tolist() == full.uses_by_first.tolist()
    assert slim.vocabulary == full.vocabulary
    stops = list(range(len(messages)))
    a, b = curve(slim, stops), curve(full, stops)
    assert a.kept.tolist() == b.kept.tolist()
    assert a.borrowed.tolist() == b.borrowed.tolist()
    with pytest.raises(ValueError):
        slim.uses()


def test_empty_extend_changes_nothing() -> None:
    index = _indexed([["parser"]])
    index.extend([])
    index.extend([[]])
    assert index.size == 2
    assert index.uses_by_message.tolist() == [1, 0]
    assert index.uses_by_first.tolist() == [1, 0]


def test_first_appearances_survive_many_pending_merges() -> None:
    """Thousands of new words over many small appends, with large batches mixed in."""
    rng = random.Random(20240601)
    messages: Messages = []
    fresh = 0
    for m in range(2500):
        new_count = 80 if m % 250 == 249 else rng.randint(0, 4)
        words = [f"word{fresh + k}" for k in range(new_count)]
        fresh += new_count
        if fresh:
            words += [f"word{rng.randrange(fresh)}" for _ in range(rng.randint(0, 4))]
        rng.shuffle(words)
        messages.append(words)
    assert fresh > 5000
    index = Index()
    slim = Index(detail=False)
    for words in messages:
        index.extend([words])
        slim.extend([words])
    uses = _firsts(messages)
    message, first, _ = index.uses()
    assert first.tolist() == [f for _, f, _ in uses]
    assert message.tolist() == [m for m, _, _ in uses]
    want_by_first = np.bincount([f for _, f, _ in uses], minlength=len(messages)).tolist()
    assert index.uses_by_first.tolist() == want_by_first
    assert slim.uses_by_first.tolist() == want_by_first
    assert index.vocabulary == slim.vocabulary == fresh
    stops = list(range(0, len(messages), 97))
    _assert_matches(curve(index, stops), _brute_curve(messages, stops), stops)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 3), min_size=1, max_size=300))
def test_unique_first_answers_as_np_unique_does(values: list[int]) -> None:
    hashes = np.array(values, dtype=np.int64)
    expected = np.unique(hashes, return_index=True, return_inverse=True, return_counts=True)
    for got, want in zip(unique_first(hashes), expected, strict=True):
        assert got.tolist() == want.tolist()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, 400), min_size=1, max_size=150).map(sorted), min_size=1, max_size=6
    )
)
def test_first_appearances_are_those_of_a_dict_whatever_the_first_batch(
    batches: list[list[int]],
) -> None:
    # A first batch of 64 or more distinct hashes is taken whole as the index's sorted keys
    # (`_FirstSeen.resolve`); every later batch must find its firsts as a plain dict would.
    seen = _FirstSeen()
    model: dict[int, int] = {}
    for number, batch in enumerate(batches):
        uniq = np.array(sorted(set(batch)), dtype=np.int64) * 7919 - 10**6  # sorted, distinct
        here = np.full(len(uniq), number, dtype=np.int64)
        firsts, new = seen.resolve(uniq, here)
        want = [model.get(key, number) for key in uniq.tolist()]
        assert firsts.tolist() == want
        assert new.tolist() == [key not in model for key in uniq.tolist()]
        model.update({key: model.get(key, number) for key in uniq.tolist()})
    assert len(seen) == len(model)
