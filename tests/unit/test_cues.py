"""Cues beyond words: finished work, prompts that start work or carry none, files, numbers."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.cues import (
    _NAMING,
    _NUMBER,
    _OPENING,
    BARE,
    BRANCHED,
    CLEARS,
    COMMAND,
    FINISHED,
    STARTS,
    TURNS,
    _names_one,
    message_marks,
    named_numbers,
    prompt_marks,
)
from keepd.core.quote import NO_PROMPT, QUOTE_CHARS, collapsed, raw
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from tests.unit.builders import Chain, image, tool_result, tool_use_block


def edit(chain: Chain, path: str) -> None:
    """An Edit tool call on `path` and its result."""
    tool_id = f"toolu_{chain.prefix}{len(chain.entries):03d}"
    chain.reply([tool_use_block(tool_id, "Edit", file_path=path, old_string="a")])
    call = chain.last
    assert call is not None
    chain.add(tool_result(f"r{len(chain.entries):03d}", call, tool_id, "ok"))


def cues_of(chain: Chain, *, compact: bool = False) -> SessionState:
    state = SessionState(Scope.WHOLE, compact=compact, detail=not compact)
    state.feed(chain.jsonl())
    return state


def test_a_commit_push_merge_or_pull_request_finishes_work_in_a_bash_call_only() -> None:
    for command in (
        "git commit -m 'fix'",
        "git add -A && git push origin main",
        "git -C repo merge feature",
        "gh pr create --fill",
        "gh pr merge 12 --squash",
    ):
        assert message_marks("Bash", {"command": command})[0] & FINISHED, command
    for command in ("git status", "git log --oneline", "gh pr view 3"):
        assert not message_marks("Bash", {"command": command})[0] & FINISHED, command
    assert message_marks("Write", {"command": "git commit"}) == (0, ())


_GIT_WORDS = ["git", "gh", " ", "\n", "pr", "commit", "push", "merge", "create", "checkout"]
_GIT_WORDS += ["-b", "switch", "-c", "worktree", "add", "-C", "x", "_", "é", "/", "gitgit", "ágit"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(_GIT_WORDS), max_size=10))
def test_a_commands_marks_are_those_of_the_patterns_as_written(words: list[str]) -> None:
    # cues.py asks for the word boundary after "git" and "gh", which its search needs: the same
    command = "".join(words)
    finishing = r"\bgit\s+(?:-C\s+\S+\s+)?(?:commit|push|merge)\b|\bgh\s+pr\s+(?:create|merge)\b"
    branching = r"\bgit\s+(?:-C\s+\S+\s+)?(?:checkout\s+-b|switch\s+-c|worktree\s+add)\b"
    branching += r"|\bgh\s+pr\s+checkout\b"
    marks = 0
    if "git" in command or "gh " in command:  # what message_marks asks first
        marks = FINISHED * bool(re.search(finishing, command))
        marks |= BRANCHED * bool(re.search(branching, command))
    assert message_marks("Bash", {"command": command})[0] == marks


def test_prompts_that_start_work_or_carry_none() -> None:
    assert prompt_marks("Implement the following plan:\n\n# Caching") == STARTS
    assert prompt_marks("<command-name>/speckit.implement</command-name>") == STARTS | COMMAND
    assert prompt_marks("<command-name>/clear</command-name>") == BARE | COMMAND | CLEARS
    assert prompt_marks("<command-name>/model</command-name>") == BARE | COMMAND
    assert prompt_marks("<bash-input>npm test</bash-input>") == BARE | COMMAND
    assert prompt_marks("Commit.") == BARE
    assert prompt_marks("commit the parser and then add caching") == 0


def test_work_finished_in_the_turn_before_a_stop_marks_that_stop() -> None:
    chain = Chain()
    chain.prompt("fix the parser")
    chain.tool_call("git commit -am 'parser'", "[main 1a2b3c] parser")
    chain.prompt("now the docs site")  # the turn before it committed
    chain.reply("on it")
    chain.prompt("and its images")
    cues = cues_of(chain).stop_cues()
    assert cues.finished.tolist() == [False, True, False]


def test_files_the_work_after_a_stop_touches_for_the_first_time() -> None:
    chain = Chain()
    chain.prompt("parser")
    edit(chain, "/r/parser.py")
    chain.prompt("parser tests")
    edit(chain, "/r/parser.py")
    edit(chain, "/r/test_parser.py")
    chain.prompt("docs")
    edit(chain, "/r/docs/index.md")
    edit(chain, "/r/docs/usage.md")
    cues = cues_of(chain).stop_cues()
    assert cues.touched.tolist() == [1, 2, 2]
    assert cues.fresh.tolist() == [1, 1, 2]
    assert np.allclose(cues.fresh_share(1), [1.0, 0.5, 1.0])
    assert np.allclose(cues.fresh_share(3), [4 / 5, 3 / 4, 1.0])


def test_a_prompt_naming_an_issue_or_pull_request_for_the_first_time() -> None:
    chain = Chain()
    chain.prompt("look at issue #12")
    chain.prompt("and PR 40 that fixes #12")
    chain.prompt("#12 again")
    chain.prompt("the colour #fff and &#38;")
    cues = cues_of(chain).stop_cues()
    assert cues.new_number.tolist() == [True, True, False, False]


def test_the_prompt_after_clear_starts_work() -> None:
    chain = Chain()
    chain.prompt("parser")
    chain.prompt("<command-name>/clear</command-name>")
    chain.prompt("docs site")
    cues = cues_of(chain).stop_cues()
    assert cues.after_clear().tolist() == [False, False, True]


def test_a_prompt_s_novelty_counts_the_words_no_earlier_prompt_used() -> None:
    chain = Chain()
    chain.prompt("parser grammar tokenizer")
    chain.reply("the parser grammar uses a tokenizer: lexer scanner")  # replies do not count
    chain.prompt("parser grammar lexer")
    chain.prompt("deploy docs site")
    chain.prompt("<bash-input>git status</bash-input>")
    novelty = cues_of(chain).stop_cues().aside().novelty.tolist()
    assert novelty[:3] == [1.0, 1 / 3, 1.0]


def test_a_prompt_that_opens_as_a_reply_to_the_turn_before() -> None:
    chain = Chain()
    for text in ("fix the parser", "yes, and the lexer", "But can it show two?", "> you said x"):
        chain.prompt(text)
    replies = cues_of(chain).stop_cues().aside().replies.tolist()
    assert replies == [False, True, True, True]


def test_cues_kept_line_by_line_in_a_compact_state_equal_a_whole_reading() -> None:
    chain = Chain()
    for turn in range(6):
        chain.prompt(f"step {turn} of the parser, see #{turn % 3}")
        edit(chain, f"/r/part{turn % 4}.py")
        if turn % 2:
            chain.tool_call("git push", "ok")
    data = chain.jsonl()
    follower = SessionState(Scope.CURRENT, compact=True, detail=False)
    for line in data.splitlines(keepends=True):
        follower.feed(line)
        follower.branch()  # indexing at once thins what it read, as the daemon's state does
    whole = cues_of(chain)
    for name in ("finished", "marks", "new_number", "touched", "fresh", "pause"):
        assert (
            getattr(follower.stop_cues(), name).tolist()
            == getattr(whole.stop_cues(), name).tolist()
        )
    for name in ("novelty", "replies"):
        assert (
            getattr(follower.stop_cues().aside(), name).tolist()
            == getattr(whole.stop_cues().aside(), name).tolist()
        )


# The turning pattern as first written: `(?:^|\W)` before the phrase, run on every opening.
_TURNING_AS_WRITTEN = re.compile(
    r"(?:^|\W)(?:next\s+(?:issue|task|thing|step|up|one)\b|next\s*:|another\s+(?:issue|thing|"
    r"question|task|bug|problem)\b|one\s+other\s+(?:issues?|thing)\b|other\s+issues?\b|"
    r"something\s+else\b|new\s+(?:issue|task|feature)\b|moving\s+on\b|switch(?:ing)?\s+to\b)"
)
_PIECES = st.sampled_from(
    [
        "next", "another", "one", "other", "issue", "issues", "something", "else", "new", "task",
        "moving", "on", "switching", "switch", "to", "up", "thing", "bug", "feature", ":", " ",
        "\n", "\t", "_", "x", "é", "\u00a0", ".", "#", "!", "great", "2", "next issue",
        "next:", "another bug", "one other thing", "other issues", "something else",
        "new feature", "moving on", "switching to", "Next  Step", "NEW TASK",
    ]
)  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_a_turning_prompt_is_told_as_the_pattern_first_written_tells_it(text: str) -> None:
    """The quick test before the pattern, and `\\b` for `(?:^|\\W)`, change no answer."""
    expected = bool(_TURNING_AS_WRITTEN.search(text.strip().lower()[:_OPENING]))
    assert bool(prompt_marks(text) & TURNS) == expected


_NUMBERED = st.lists(
    st.sampled_from(["pr", "PR", "issue", "ticket", "pull", "prompt", "7", "#12", " ", "\n", "x"]),
    max_size=30,
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(_NUMBERED)
def test_numbers_are_read_from_the_texts_the_split_first_read_them_from(text: str) -> None:
    """The quick test before splitting a prompt into words changes no answer."""
    lowered = text.lower()
    marked = "#" in text or "/pull/" in lowered or "/issues/" in lowered
    looked = marked or bool({"pr", "issue", "ticket", "pull"}.intersection(lowered.split()))
    assert named_numbers(text) == tuple(m.group(1) for m in _NUMBER.finditer(text) if looked)


_SPACED = st.lists(
    st.sampled_from(["word", " ", "  ", "\n", "\t", "\u3000", "ab", "é"]), max_size=400
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_SPACED.map("".join), min_size=1, max_size=3))
def test_a_raw_quote_is_the_start_of_the_whole_text_collapsed(texts: list[str]) -> None:
    assert raw(texts) == " ".join(" ".join(texts).split())[:QUOTE_CHARS]


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet="prisuetckl \t\n\u00a0\u2003x#1", max_size=40))
def test_a_naming_word_is_found_as_the_split_finds_it(text: str) -> None:
    assert _names_one(text) == (not _NAMING.isdisjoint(text.split()))


# Every kind of white space str.split knows, a control character that is none, and text.
_SPACES = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=_SPACES + "ab\x00\u00e9", max_size=30))
def test_collapsing_white_space_is_splitting_and_joining(text: str) -> None:
    assert collapsed(text) == " ".join(text.split())


def test_a_prompt_without_text_reads_no_prompt_and_is_no_reply() -> None:
    """An image pasted alone: the picker's row is "(no prompt)", which is not a reply's
    opening ("no") of the person's; control characters in a prompt do not reach its quote."""
    chain = Chain()
    chain.prompt("fix the parser")
    chain.reply("done")
    chain.prompt([image()])
    chain.reply("I see the screenshot")
    chain.prompt("\x0f\x0fthen the docs")
    state = cues_of(chain)
    branch = state.branch()
    assert [branch.messages[i].quote for i in branch.stops] == [
        "fix the parser", NO_PROMPT, "then the docs"
    ]
    assert state.stop_cues().aside().replies.tolist() == [False, False, False]
