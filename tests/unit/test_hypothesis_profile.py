"""Every property test follows the profile it runs under, so `.ci/run`'s profile fixes them all."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import settings

TESTS = Path(__file__).resolve().parents[1]


def property_tests() -> Iterator[tuple[str, Any]]:
    """(name, test) of every `@given` test of the test modules under tests/."""
    for path in sorted(TESTS.rglob("test_*.py")):
        if "hypothesis" not in path.read_text(encoding="utf-8"):
            continue
        name = ".".join(path.relative_to(TESTS.parent).with_suffix("").parts)
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if callable(value) and hasattr(value, "hypothesis"):
                yield f"{name}.{attribute}", value


def test_the_ci_profile_draws_fixed_examples_and_replays_none() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize and ci.database is None and ci.deadline is None


def test_every_property_test_takes_its_seed_and_database_from_the_profile() -> None:
    """A test that set its own `derandomize` or `database`, or a `@seed`, would draw by
    chance in CI or replay what a past run saved."""
    tests = dict(property_tests())
    assert "tests.unit.test_skim.test_random_sessions_analyse_alike_skimmed_or_read_whole" in tests
    loaded = settings.default
    assert loaded is not None
    for name, test in tests.items():
        own = test._hypothesis_internal_use_settings  # `@settings` on the profile
        assert own.derandomize == loaded.derandomize, name
        assert own.database == loaded.database, name
        assert getattr(test, "_hypothesis_internal_use_seed", None) is None, name
