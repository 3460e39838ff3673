"""Runs the random-session property tests with fresh seeds for as long as it is given.

Run: `python scripts/fuzz.py --seconds N [-k TEXT ...]`. Takes the tests in `TESTS` (skimmed
against whole reads, a session followed in chunks against one read at rest, the curve and the
blocks of random sessions) in turns, each time one run of the test's own number of examples
with a new seed, until N seconds have passed; `-k` keeps only the tests whose name holds TEXT.
Prints how many examples each test ran and, for a failure, its seed, the falsifying example
(shrunk) and Hypothesis's `@reproduce_failure` line; exits 1 if one failed. Make each failure a
regression test (a small made session, as tests/unit/test_skim_found.py holds) before fixing it.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import random
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's tests/

# The property tests that draw random sessions, as module:function.
TESTS = (
    "tests.unit.test_skim:test_random_sessions_analyse_alike_skimmed_or_read_whole",
    "tests.unit.test_session:test_followed_in_chunks_equals_read_at_rest",
    "tests.unit.test_curve:test_curve_equals_the_definition",
    "tests.unit.test_blocks:test_blocks_cover_the_part_before_the_stop_and_count_its_borrowed_uses",
    "tests.unit.test_blocks:test_borrowed_words_are_the_most_used_first",
)


@dataclass
class Tally:
    """One test's runs so far."""

    name: str
    test: Callable[[], None]
    examples: int = 0
    runs: int = 0
    seconds: float = 0.0
    failed: bool = False


def load(names: tuple[str, ...]) -> list[Tally]:
    """The tests, each wrapped so that its examples are counted. Hypothesis's fuzz profile is
    loaded first: the tests' own `@settings` are made on top of whatever profile is loaded
    when their module is imported."""
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "fuzz",
        derandomize=False,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    settings.load_profile("fuzz")
    tallies = []
    for name in names:
        module, function = name.split(":")
        test: Any = getattr(importlib.import_module(module), function)
        tally = Tally(function, test)
        test.hypothesis.inner_test = _counted(test.hypothesis.inner_test, tally)
        tallies.append(tally)
    return tallies


def _counted(inner: Callable[..., None], tally: Tally) -> Callable[..., None]:
    @functools.wraps(inner)  # a failure names the test, not this wrapper
    def run(*args: Any, **kwargs: Any) -> None:
        if not tally.failed:  # the examples a shrink tries are not new ones
            tally.examples += 1
        inner(*args, **kwargs)

    return run


def run_once(tally: Tally, seed: int) -> bool:
    """One run of the test's examples under `seed`; False (and the failure printed) if one
    failed."""
    from hypothesis import seed as with_seed

    started = time.perf_counter()
    try:
        with_seed(seed)(tally.test)()
    except Exception as error:
        tally.failed = True
        print(f"\nFAILED {tally.name} with seed {seed}", flush=True)
        traceback.print_exception(error)  # its notes hold the falsifying example
        return False
    finally:
        tally.runs += 1
        tally.seconds += time.perf_counter() - started
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, required=True, help="how long to run")
    parser.add_argument("-k", action="append", default=[], help="only tests whose name holds it")
    args = parser.parse_args()
    names = tuple(n for n in TESTS if not args.k or any(k in n for k in args.k))
    if not names:
        parser.error("no test matches -k")
    tallies = load(names)
    fresh = random.SystemRandom()
    end = time.monotonic() + args.seconds
    shown = time.monotonic()
    while time.monotonic() < end and not all(t.failed for t in tallies):
        for tally in tallies:
            if not tally.failed and time.monotonic() < end:
                run_once(tally, fresh.getrandbits(64))
        if time.monotonic() - shown >= REPORT_EVERY and time.monotonic() < end:
            _report(tallies)
            shown = time.monotonic()
    _report(tallies)
    sys.exit(1 if any(t.failed for t in tallies) else 0)


REPORT_EVERY = 60.0  # seconds between the lines of progress


def _report(tallies: list[Tally]) -> None:
    """A line per test: examples, runs, examples a second and whether one failed."""
    for tally in tallies:
        rate = tally.examples / tally.seconds if tally.seconds else 0.0
        state = "FAILED" if tally.failed else "ok"
        print(
            f"{tally.examples:9d} examples {tally.runs:5d} runs {rate:6.1f}/s {state:6s} "
            f"{tally.name}"
        )
    print(flush=True)


if __name__ == "__main__":
    main()
