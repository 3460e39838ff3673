"""Content words: identifiers and file names whole, stopwords and short words out."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.words import STOPWORDS, content_words

# The pattern as first written, with backtracking quantifiers: the possessive one must agree.
PLAIN = re.compile(r"[a-z][a-z0-9_]{2,}(?:\.[a-z0-9_]+)*")


def test_identifiers_paths_and_dotted_names() -> None:
    text = "Run parse_line() in keepd/core/entries.py; json.loads and x.y stay apart."
    assert content_words(text) == [
        "run",
        "parse_line",
        "keepd",
        "core",
        "entries.py",
        "json.loads",
        "stay",
        "apart",
    ]


def test_stopwords_case_and_short_words_are_left_out() -> None:
    assert content_words("The THE the ok id and TESTS Tests") == ["tests", "tests"]
    assert all(word not in STOPWORDS for word in content_words(" ".join(STOPWORDS)))


def test_a_word_starts_at_a_letter() -> None:
    assert content_words("3abc _abc 42 9.x.yz") == ["abc", "abc"]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="ab1_. -Z\u00e9", max_size=60))
def test_the_possessive_pattern_finds_what_the_plain_one_does(text: str) -> None:
    words = [w for w in PLAIN.findall(text.lower()) if w not in STOPWORDS]
    assert content_words(text) == words
