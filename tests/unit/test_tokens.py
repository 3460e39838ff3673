"""Token counts: each message's weight from `message.usage`, and the context in use now."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.index import KeySet
from keepd.core.messages import Node
from keepd.core.tokens import (
    DEFAULT_WINDOW,
    LARGE_WINDOW,
    TokenLedger,
    context_use,
    freed_shares,
    message_tokens,
)

from .builders import (
    Entry,
    assistant,
    compact_boundary,
    compact_summary,
    image,
    nodes_of,
    sidechain,
    text,
    tool_result,
    tool_use_block,
    tree_of,
    usage,
    user,
)


def _response_over_two_lines() -> list[Entry]:
    """U0 (100 est.), a response m1 over two lines (10 + 10), its result (100), then m2 (20)."""
    return [
        user("U0", None, "p" * 400),
        assistant("A1a", "U0", [text("a" * 40)], msg_id="m1", usage_=usage(400, 100, 500, 30)),
        assistant(
            "A1b",
            "A1a",
            [tool_use_block("t1", command="c" * 40)],
            msg_id="m1",
            usage_=usage(400, 100, 500, 90),
        ),
        tool_result("R1", "A1b", "t1", "r" * 400),
        assistant("A2", "R1", [text("b" * 80)], msg_id="m2", usage_=usage(100, 500, 1000, 10)),
    ]


def test_estimates_are_a_quarter_of_the_characters() -> None:
    nodes = nodes_of(_response_over_two_lines())
    assert [node.estimated_tokens for node in nodes] == [100, 10, 10, 100, 20]


def test_growth_between_usages_is_shared_by_size_one_count_per_response() -> None:
    nodes = nodes_of(_response_over_two_lines())
    assert [node.context_tokens for node in nodes] == [None, 1000, 1000, None, 1600]
    tokens, estimated = message_tokens(nodes)
    assert not estimated
    # 600 tokens of growth over A1a, A1b and R1 (10 : 10 : 100); the ends keep their estimates.
    assert tokens.tolist() == pytest.approx([100, 50, 50, 500, 20])


def test_growth_sums_to_the_difference_of_the_usages() -> None:
    entries = [
        user("U0", None, "plan the parser " * 20),
        assistant("A1", "U0", "Plan " * 30, msg_id="m1", usage_=usage(10, 2000, 0)),
        user("U1", "A1", "now tests " * 50),
        assistant("A2", "U1", "Tests " * 10, msg_id="m2", usage_=usage(10, 500, 2000)),
        assistant("A2b", "A2", "More " * 10, msg_id="m2", usage_=usage(10, 500, 2000)),
        user("U2", "A2b", "docs " * 80),
        assistant("A3", "U2", "Docs " * 10, msg_id="m3", usage_=usage(10, 300, 4000)),
    ]
    tokens, estimated = message_tokens(nodes_of(entries))
    assert not estimated
    assert tokens[1:3].sum() == pytest.approx(2510 - 2010)
    assert tokens[3:6].sum() == pytest.approx(4310 - 2510)
    # Between two anchors the shares follow the estimated sizes.
    nodes = nodes_of(entries)
    ratio = tokens[3:6] / np.array([node.estimated_tokens for node in nodes[3:6]])
    assert ratio == pytest.approx(np.full(3, ratio[0]))


def test_no_usage_at_all_means_estimates() -> None:
    entries = [
        user("U0", None, "p" * 400),
        assistant("A1", "U0", "a" * 40, msg_id="m1"),
        user("U1", "A1", [image()]),
        user("U2", "U1", ""),
    ]
    tokens, estimated = message_tokens(nodes_of(entries))
    assert estimated
    assert tokens.tolist() == [100, 10, 1600, 1]


def test_a_single_usage_is_not_an_estimate_but_changes_nothing() -> None:
    entries = [
        user("U0", None, "p" * 400),
        assistant("A1", "U0", "a" * 40, msg_id="m1", usage_=usage(5000)),
    ]
    tokens, estimated = message_tokens(nodes_of(entries))
    assert not estimated
    assert tokens.tolist() == [100, 10]


def test_a_context_that_shrank_keeps_the_estimates() -> None:
    entries = [
        user("U0", None, "p" * 400),
        assistant("A1", "U0", "a" * 40, msg_id="m1", usage_=usage(9000)),
        user("U1", "A1", "q" * 40),
        assistant("A2", "U1", "b" * 40, msg_id="m2", usage_=usage(3000)),
    ]
    tokens, _ = message_tokens(nodes_of(entries))
    assert tokens.tolist() == [100, 10, 10, 10]


def test_synthetic_and_error_lines_are_no_anchor() -> None:
    entries = [
        user("U0", None, "p" * 400),
        assistant("A1", "U0", "a" * 40, msg_id="m1", usage_=usage(1000)),
        user("U1", "A1", "q" * 40),
        assistant(
            "X1", "U1", "No response requested.", msg_id="mx", usage_=usage(0), model="<synthetic>"
        ),
        assistant(
            "X2", "X1", "API Error: 529", msg_id="my", usage_=usage(0), isApiErrorMessage=True
        ),
        assistant("A2", "X2", "b" * 40, msg_id="m2", usage_=usage(2000)),
    ]
    nodes = nodes_of(entries)
    assert nodes[3].context_tokens is None and nodes[4].context_tokens is None
    tokens, _ = message_tokens(nodes)
    assert tokens[1:5].sum() == pytest.approx(1000)


def test_freed_shares_are_the_share_before_each_stop() -> None:
    tokens = np.array([1.0, 2.0, 3.0, 4.0])
    assert freed_shares(tokens, [0, 2, 3]).tolist() == pytest.approx([0.0, 0.3, 0.6])
    assert freed_shares(tokens, []).tolist() == []


def test_freed_shares_of_nothing_do_not_divide_by_zero() -> None:
    assert freed_shares(np.zeros(3), [0, 1, 2]).tolist() == [0.0, 0.0, 0.0]


# Context use


def _conversation() -> list[Entry]:
    return [
        user("U0", None, "plan the parser"),
        assistant("A1", "U0", "Plan.", msg_id="m1", usage_=usage(1000, 200, 3000, 500)),
        user("U1", "A1", "write the tests"),
        assistant("A2a", "U1", "Tests.", msg_id="m2", usage_=usage(2000, 300, 5000, 700)),
        assistant("A2b", "A2a", "More.", msg_id="m2", usage_=usage(2000, 300, 5000, 900)),
    ]


def test_context_use_is_the_newest_input_side() -> None:
    tree = tree_of(_conversation())
    use = context_use(tree, tree.branch().boundary)
    assert use.tokens == 2000 + 300 + 5000  # output_tokens left out
    assert use.source == "usage"
    assert use.window == DEFAULT_WINDOW
    assert use.share == pytest.approx(7300 / 200_000)


def test_context_use_skips_synthetic_error_and_sidechain_lines() -> None:
    entries = [
        *_conversation(),
        sidechain(user("S0", None, "search for parsers")),
        sidechain(assistant("S1", "S0", "Found.", msg_id="ms", usage_=usage(90_000))),
        user("U2", "A2b", "[Request interrupted by user]"),
        assistant(
            "X1", "U2", "No response requested.", msg_id="mx", usage_=usage(0), model="<synthetic>"
        ),
        assistant(
            "X2",
            "X1",
            "API Error: overloaded",
            msg_id="my",
            usage_=usage(5),
            isApiErrorMessage=True,
        ),
    ]
    tree = tree_of(entries)
    use = context_use(tree, tree.branch().boundary)
    assert use.tokens == 7300
    assert use.source == "usage"


def test_no_usage_anywhere_is_unknown() -> None:
    tree = tree_of([user("U0", None, "hello there")])
    use = context_use(tree, None)
    assert use.tokens is None
    assert use.share is None
    assert use.source == "none"
    assert use.window == DEFAULT_WINDOW


def _compacted(post_tokens: int | None) -> list[Entry]:
    return [
        user("U0", None, "plan the parser"),
        assistant("A1", "U0", "Plan.", msg_id="m1", usage_=usage(10, 5000, 150_000, 800)),
        compact_boundary("B", "A1", pre_tokens=155_010, post_tokens=post_tokens),
        compact_summary("S", "B"),
    ]


def test_right_after_a_boundary_post_tokens_count() -> None:
    tree = tree_of(_compacted(12_000))
    boundary = tree.branch().boundary
    assert boundary is not None
    use = context_use(tree, boundary)
    assert use.tokens == 12_000
    assert use.source == "postTokens"
    assert use.window == DEFAULT_WINDOW


def test_right_after_a_boundary_without_post_tokens_is_unknown() -> None:
    tree = tree_of(_compacted(None))
    use = context_use(tree, tree.branch().boundary)
    assert use.tokens is None
    assert use.source == "none"


def test_the_first_turn_after_a_boundary_counts_again() -> None:
    entries = [
        *_compacted(12_000),
        user("U1", "S", "go on"),
        assistant("A2", "U1", "Going on.", msg_id="m2", usage_=usage(3, 14_000, 0, 100)),
    ]
    tree = tree_of(entries)
    use = context_use(tree, tree.branch().boundary)
    assert use.tokens == 14_003
    assert use.source == "usage"


def test_usage_above_200k_means_a_million_token_window() -> None:
    entries = [
        user("U0", None, "plan the parser"),
        assistant("A1", "U0", "Plan.", msg_id="m1", usage_=usage(5, 1000, 249_000, 50)),
    ]
    tree = tree_of(entries)
    use = context_use(tree, None)
    assert use.tokens == 250_005
    assert use.window == LARGE_WINDOW == 1_000_000
    assert use.share == pytest.approx(0.250005)


def test_usage_at_exactly_200k_keeps_the_default_window() -> None:
    entries = [
        user("U0", None, "plan the parser"),
        assistant("A1", "U0", "Plan.", msg_id="m1", usage_=usage(0, 0, 200_000)),
    ]
    use = context_use(tree_of(entries), None)
    assert use.window == DEFAULT_WINDOW == 200_000
    assert use.share == 1.0


def test_a_window_given_is_kept() -> None:
    tree = tree_of(_conversation())
    assert context_use(tree, None, window=1_000_000).window == 1_000_000


def test_usage_once_above_200k_keeps_proving_the_large_window_after_a_compaction() -> None:
    # sessions.md: usage above 200k proves a 1M-context model; a compaction later does not
    # shrink the model's window. Measuring the new, smaller context against 200k would put
    # a 1M session "near auto-compact" at 170k.
    entries = [
        user("U0", None, "plan the parser"),
        assistant("A1", "U0", "Plan.", msg_id="m1", usage_=usage(10, 5000, 445_000, 800)),
        compact_boundary("B", "A1", pre_tokens=450_010, post_tokens=30_000),
        compact_summary("S", "B"),
        user("U1", "S", "go on"),
        assistant("A2", "U1", "Going on.", msg_id="m2", usage_=usage(3, 4000, 166_000, 100)),
    ]
    tree = tree_of(entries)
    use = context_use(tree, tree.branch().boundary)
    assert use.tokens == 170_003
    assert use.window == LARGE_WINDOW


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 5)), max_size=20))
def test_without_usage_each_message_weighs_its_estimate(sizes: list[tuple[int, int]]) -> None:
    nodes = [Node(pos=i, kind="user", chars=c, images=n) for i, (c, n) in enumerate(sizes)]
    tokens, estimated = message_tokens(nodes)
    assert estimated
    assert tokens.tolist() == [max(node.estimated_tokens, 1.0) for node in nodes]


@given(st.lists(st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.integers(0, 40)))
@settings(max_examples=200)
def test_key_set_answers_as_a_set_does(keys: list[int]) -> None:
    """The ledger's compact set of response hashes says "new" exactly when a set would,
    across its merges of recent keys into the sorted array."""
    compact, plain = KeySet(), set()
    for key in keys * 2 + list(range(100)):
        assert compact.add(key) is (key not in plain)
        plain.add(key)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 10**6),
            st.sampled_from([None] * 3 + [0]) | st.integers(0, 10**7),
            st.booleans(),
        ),
        max_size=60,
    ),
    st.integers(1, 5),
)
def test_many_responses_settled_at_once_weigh_what_one_by_one_gives(
    rows: list[tuple[int, int | None, bool]], chunk: int
) -> None:
    """A cold build settles many responses in one go, an append a few one by one: the same
    tokens to the bit, spans of more and fewer than seven messages alike (estimates are
    quarters of characters, so this checks the spans and anchors, not the order of sums)."""
    nodes = [
        Node(
            pos=i,
            kind="assistant",
            chars=chars,
            context_tokens=context,
            msg_id=f"m{i // 2}" if shared else None,
        )
        for i, (chars, context, shared) in enumerate(rows)
    ]
    at_once, by_chunks = TokenLedger(), TokenLedger()
    at_once.extend(nodes)
    for start in range(0, len(nodes), chunk):
        by_chunks.extend(nodes[start : start + chunk])
    assert at_once.tokens.tobytes() == by_chunks.tokens.tobytes()
