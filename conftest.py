"""Collection set-up: the evaluation's doctests run only where its extra is installed, and the
Hypothesis profile CI runs the property tests with.

`evaluation/` imports nltk and ruptures (`pip install -e ".[eval]"`); the README's test
command installs `.[test]` alone, so without the extra those modules are left out of doctest
collection rather than failing it. The evaluation's own test skips likewise.

`pytest --hypothesis-profile=ci` (as `.ci/run` runs it) makes every property test draw the
same examples on every run: derived from the test itself (`derandomize`), none replayed from
a local example database, and no limit on time (a busy machine's slowness is chance too).
Without it each run draws fresh examples; `scripts/fuzz.py` draws them for as long as it is
given.
"""

from __future__ import annotations

import importlib.util

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)


def _missing(*modules: str) -> bool:
    return any(importlib.util.find_spec(name) is None for name in modules)


collect_ignore_glob = ["evaluation/*"] if _missing("nltk", "ruptures", "matplotlib") else []
