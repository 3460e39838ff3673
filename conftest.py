"""Collection set-up: the evaluation's doctests run only where its extra is installed.

`evaluation/` imports nltk and ruptures (`pip install -e ".[eval]"`); the README's test
command installs `.[test]` alone, so without the extra those modules are left out of doctest
collection rather than failing it. The evaluation's own test skips likewise.
"""

from __future__ import annotations

import importlib.util


def _missing(*modules: str) -> bool:
    return any(importlib.util.find_spec(name) is None for name in modules)


collect_ignore_glob = ["evaluation/*"] if _missing("nltk", "ruptures", "matplotlib") else []
