"""Turns what a person or a model typed into a safe FTS5 query: every word quoted, no syntax.

>>> match_all('parser "fix" OR x*')
'"parser" "fix" "OR" "x"*'
>>> match_any('a-b c')
'"a-b" OR "c"'
>>> match_all('  "  ')
Traceback (most recent call last):
...
keepd.errors.RecallQueryError: bad query: '  "  ' has no words to search for
"""

from __future__ import annotations

import re

from keepd.errors import RecallQueryError

MAX_QUERY_CHARS = 1000
MAX_WORDS = 32
_WORD = re.compile(r"[^\s\"]+")
_HAS_TOKEN = re.compile(r"\w")


def words(query: str) -> list[str]:
    """The query's words: runs of characters between spaces and quotes, each with a letter or
    digit in it (FTS5 ignores the rest); a trailing `*` asks for a prefix."""
    found = [w for w in _runs(query) if _HAS_TOKEN.search(w)]
    if not found:
        raise RecallQueryError(f"{query!r} has no words to search for")
    return found


def symbols(query: str) -> list[str]:
    """The runs of a query without a letter or digit but with a symbol beyond ASCII (emoji,
    arrows), which the index leaves out, to be found as written; none for a query with words
    in it (ASCII punctuation alone, as `(((`, would match nearly everything: no words).

    >>> symbols("🦀 ✅"), symbols("rust 🦀"), symbols(" ** ("), symbols("→ (")
    (['🦀', '✅'], [], [], ['→'])
    """
    runs = _runs(query)
    if any(_HAS_TOKEN.search(run) for run in runs):
        return []
    return [run for run in runs if not run.isascii()]


def _runs(query: str) -> list[str]:
    if len(query) > MAX_QUERY_CHARS:
        raise RecallQueryError(f"the query is {len(query):,} characters; {MAX_QUERY_CHARS} at most")
    found = _WORD.findall(query)
    if len(found) > MAX_WORDS:
        raise RecallQueryError(f"the query has {len(found)} words; {MAX_WORDS} at most")
    return list(found)


def _term(word: str) -> str:
    prefix = word.endswith("*") and len(word.rstrip("*")) > 0
    bare = word.rstrip("*") if prefix else word
    quoted = '"' + bare.replace('"', '""') + '"'
    return quoted + "*" if prefix else quoted


def match_all(query: str) -> str:
    """Messages with every word (FTS5's implicit AND between quoted strings)."""
    return " ".join(_term(w) for w in words(query))


def match_any(query: str) -> str:
    """Messages with any of the words, for when none has them all."""
    return " OR ".join(_term(w) for w in words(query))
