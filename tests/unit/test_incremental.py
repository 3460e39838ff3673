"""Feeding a session in random pieces, refreshing as it goes, ends where reading it whole does."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from keepd.paths import example_session


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
