"""Content words: identifiers and file names whole, stopwords and short words out."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.words import LOWER_TO_ASCII, STOPWORDS, content_words

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


def test_only_the_listed_characters_lower_to_ascii() -> None:
    # content_words splits text outside ASCII as if each such character were "?": exact only
    # while no other character's lower case holds an ASCII one.
    lowering = [
        chr(code)
        for code in range(0x80, 0x110000)
        if any(char.isascii() for char in chr(code).lower())
    ]
    assert lowering == list(LOWER_TO_ASCII)


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="ab1_. -ZKI\u00e9\u0130\u212a\u2014\u03a3\U0001f600\ud800", max_size=60))
def test_text_outside_ascii_splits_as_the_plain_pattern_does(text: str) -> None:
    words = [w for w in PLAIN.findall(text.lower()) if w not in STOPWORDS]
    assert content_words(text) == words


def test_pieces_that_are_not_words_as_they_stand() -> None:
    text = "Wait... __init__ 2.1.332 3rd x1.abc ab.cde end. v2.0 _the .claude/x.y.z"
    words = [w for w in PLAIN.findall(text.lower()) if w not in STOPWORDS]
    assert content_words(text) == words
    assert content_words(text) == ["wait", "init__", "abc", "cde", "end", "claude"]


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="abeht1_. .\n?-Z\u00e9", max_size=80))
def test_dots_digits_and_underscores_split_as_the_plain_pattern_does(text: str) -> None:
    words = [w for w in PLAIN.findall(text.lower()) if w not in STOPWORDS]
    assert content_words(text) == words
