"""Reads what a session's prompts and tool calls say about where work ends and begins.

The words are the measure; these are the cues people see when they read a session: work
finished in the turn before a prompt (a commit, a push, a merge, a pull request created or
merged), a prompt that starts work (a workflow's slash command, "Implement the following
plan:", the prompt after `/clear`), a prompt with no content of its own (shell-mode input,
a built-in slash command, "commit"), an issue or pull request named for the first time, and
files the work after a stop touches that the part before it never did. A prompt that
turns to the next thing ("next issue") and the prompt after one that closes the work ("great,
that works") are marked too. A message's marks are
read once, when its line is parsed (`message_marks`, `prompt_marks`); `CueTally` keeps them
per stop as the branch grows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from keepd.core.asides import Asides, PromptWords, no_asides, replies

# Bits of a message's marks.
FINISHED = 1  # a tool call commits, pushes, merges, or creates or merges a pull request
BRANCHED = 2  # a tool call creates a git branch or worktree
STARTS = 4  # a prompt that starts work: a workflow's slash command, a plan to implement
BARE = 8  # a prompt with no content of its own: shell-mode input, a built-in command, "commit"
CLEARS = 16  # the prompt is /clear: what follows starts afresh
TURNS = 32  # the prompt says it turns to the next thing: "next issue", "something else"
COMMAND = 64  # the prompt is a slash command or shell-mode input: its length is markup
CLOSES = -128  # the prompt says the work is done: "great, that works", "thanks" (int8's top bit)

# "git" and "gh" open each branch and the word boundary before them is asked after them
# (`(?<!\wgit)` is `\b` before "git"): a pattern that opens with a literal is searched for
# it in C, one that opens with `\b` is tried at every character of a long command.
_FINISHING = re.compile(
    r"git(?<!\wgit)\s+(?:-C\s+\S+\s+)?(?:commit|push|merge)\b|gh(?<!\wgh)\s+pr\s+(?:create|merge)\b"
)
_BRANCHING = re.compile(
    r"git(?<!\wgit)\s+(?:-C\s+\S+\s+)?(?:checkout\s+-b|switch\s+-c|worktree\s+add)\b"
    r"|gh(?<!\wgh)\s+pr\s+checkout\b"
)
_COMMAND = re.compile(r"<command-name>\s*/?([^<\s]+)\s*</command-name>")
# Claude Code's own commands that change settings or show something: no work of their own.
BUILT_IN = frozenset(
    "add-dir agents bug clear compact config context cost doctor effort exit export help hooks "
    "ide login logout mcp memory model output-style permissions plugin privacy-settings quit "
    "release-notes reload-plugins resume rewind status statusline terminal-setup theme todos "
    "upgrade usage vim".split()
)
_BARE_WORDS = frozenset({"commit", "commit this", "push", "commit and push", "exit", "quit"})
_PLAN = "implement the following plan"
# Read on the prompt's opening only: further in, "another issue" is rarely the user's move on.
# `\b` before a letter is the `(?:^|\W)` a reader would write, and cheaper to try at each place.
_TURNING = re.compile(
    r"\b(?:next\s+(?:issue|task|thing|step|up|one)\b|next\s*:|another\s+(?:issue|thing|"
    r"question|task|bug|problem)\b|one\s+other\s+(?:issues?|thing)\b|other\s+issues?\b|"
    r"something\s+else\b|new\s+(?:issue|task|feature)\b|moving\s+on\b|switch(?:ing)?\s+to\b)"
)
_OPENING = 200
# Every turning phrase holds one of these: an opening without any needs no pattern run on it.
_TURNING_KEYS = ("next", "other", "something", "new", "moving", "switch")
_CLOSING = re.compile(
    r"\W*(?:ok(?:ay)?[\s,.!]+)?(?:great|perfect|thanks?|thank you|nice|awesome|excellent|"
    r"(?:that|it|this)\s+(?:works?|worked)|works\s+now|looks\s+good|lgtm)\b"
)
_NAMING = frozenset({"pr", "issue", "ticket", "pull"})
_NUMBER = re.compile(
    r"(?:(?<![\w&/])#|\b(?:pr|pull request|issue|ticket)\s*#?\s*|/(?:pull|issues)/)(\d{1,6})\b",
    re.I,
)


def message_marks(tool: Any, value: Any) -> tuple[int, tuple[str, ...]]:
    """The marks of one tool call (`tool` its name, `value` its input) and the files it touches.

    >>> message_marks("Bash", {"command": "git add -A && git commit -m 'fix'"})
    (1, ())
    >>> message_marks("Edit", {"file_path": "/repo/a.py", "old_string": "x"})
    (0, ('/repo/a.py',))
    """
    if type(value) is not dict:
        return 0, ()
    marks = 0
    if tool == "Bash":
        command = value.get("command")
        if type(command) is str and ("git" in command or "gh " in command):
            marks = FINISHED * bool(_FINISHING.search(command))
            marks |= BRANCHED * bool(_BRANCHING.search(command))
    path = value.get("file_path") or value.get("notebook_path")
    return marks, (path,) if type(path) is str else ()


def prompt_marks(text: str) -> int:
    """The marks of a prompt's text.

    >>> prompt_marks("<command-name>/clear</command-name>") == BARE | COMMAND | CLEARS
    True
    >>> prompt_marks("<command-name>/github-pr-review</command-name>") == STARTS | COMMAND
    True
    >>> prompt_marks("Implement the following plan:\\n\\n# Fix the parser") == STARTS
    True
    >>> prompt_marks("<bash-input>git status</bash-input>") == BARE | COMMAND
    True
    >>> prompt_marks("commit"), prompt_marks("fix the parser")
    (8, 0)
    >>> prompt_marks("Great! Next issue: the map") == TURNS | CLOSES
    True
    """
    stripped = text.strip()
    if stripped.startswith("<bash-input>"):
        return BARE | COMMAND
    command = _COMMAND.search(stripped[:400])
    if command is not None:
        name = command.group(1).lower()
        if name in BUILT_IN:
            return BARE | COMMAND | (CLEARS if name == "clear" else 0)
        return STARTS | COMMAND
    lowered = stripped.lower()
    if lowered.rstrip(".!") in _BARE_WORDS:
        return BARE
    opening = lowered[:_OPENING]
    turning = any(key in opening for key in _TURNING_KEYS) and _TURNING.search(opening)
    marks = TURNS if turning else 0
    if _CLOSING.match(lowered) and " but " not in lowered[:_OPENING]:
        marks |= CLOSES  # "looks good but ..." goes on with the same work
    return marks | (STARTS if lowered.startswith(_PLAN) else 0)


def named_numbers(text: str) -> tuple[str, ...]:
    """The issue and pull request numbers a prompt names, in order.

    >>> named_numbers("review PR 142 and issue #57; see https://x/y/pull/143")
    ('142', '57', '143')
    >>> named_numbers("use &#38; and color #fff, step 2")
    ()
    >>> named_numbers("see https://github.com/o/r/pull/143/files"), named_numbers("pr 7")
    (('143',), ('7',))
    """
    lowered = text.lower()
    marked = "#" in text or "/pull/" in lowered or "/issues/" in lowered
    if not marked and not _names_one(lowered):
        return ()  # most prompts name none: the pattern is not run on them
    return tuple(match.group(1) for match in _NUMBER.finditer(text))


def _names_one(lowered: str) -> bool:
    """Whether a word of `lowered` (split at white space) is a `_NAMING` word.

    Each place a naming word occurs is checked for white space or an end on both sides,
    which is what makes it a word of the split: "pr" is in most prompts ("prompt", "print"),
    and splitting them all cost more than looking at those few places.

    >>> _names_one("see pr\t7"), _names_one("print the pr"), _names_one("prs and pulls")
    (True, True, False)
    """
    end = len(lowered)
    for name in _NAMING:
        at = lowered.find(name)
        while at >= 0:
            after = at + len(name)
            if (at == 0 or lowered[at - 1].isspace()) and (
                after == end or lowered[after].isspace()
            ):
                return True
            at = lowered.find(name, at + 1)
    return False


class Marked(Protocol):
    """What the tally reads of a message (core/messages.py's Node)."""

    is_prompt: bool
    marks: int
    files: tuple[str, ...]
    numbers: tuple[str, ...]
    words: Sequence[str]
    quote: str


@dataclass(frozen=True, slots=True)
class StopCues:
    """Per stop, oldest first: what the session says about work ending and beginning there."""

    finished: npt.NDArray[np.bool_]  # the turn before the stop finished work (tool calls)
    marks: npt.NDArray[np.int8]  # the stop's prompt marks (STARTS, BARE, CLEARS)
    new_number: npt.NDArray[np.bool_]  # the prompt names an issue or PR not named before
    touched: npt.NDArray[np.int64]  # files the stop's turn touches
    fresh: npt.NDArray[np.int64]  # of those, files no earlier turn touched
    words: npt.NDArray[np.int64] | None = None  # content words of the stop's prompt, if known
    # Seconds from the message before the stop's prompt to it, known even where the git branch
    # changed too (core/events.py names one event per stop, and the branch hides the pause).
    pause: npt.NDArray[np.float64] | None = None
    asides: Asides | None = None  # what the prompts say beside their work (core/asides.py)

    def __len__(self) -> int:
        return len(self.marks)

    def aside(self) -> Asides:
        """The asides, none marked where they are not known."""
        return self.asides if self.asides is not None else no_asides(len(self))

    def after_clear(self) -> npt.NDArray[np.bool_]:
        """Stops right after a /clear prompt."""
        out = np.zeros(len(self), dtype=bool)
        out[1:] = (self.marks[:-1] & CLEARS) > 0
        return out

    def fresh_share(self, turns: int) -> npt.NDArray[np.float64]:
        """Of the files the `turns` turns from each stop on touch, the share no earlier turn
        touched (0 where they touch none)."""
        touched = _window_sums(self.touched, turns)
        fresh = _window_sums(self.fresh, turns)
        return np.divide(fresh, touched, out=np.zeros(len(self)), where=touched > 0)


def empty_cues(stops: int = 0) -> StopCues:
    zeros = np.zeros(stops, dtype=np.int64)
    flags = np.zeros(stops, dtype=bool)
    return StopCues(flags, zeros.astype(np.int8), flags.copy(), zeros, zeros.copy())


def _window_sums(values: npt.NDArray[np.int64], turns: int) -> npt.NDArray[np.float64]:
    """For each position s, the sum of values[s : s + turns]."""
    total = np.concatenate([[0], np.cumsum(values)])
    ends = np.minimum(np.arange(len(values)) + turns, len(values))
    return np.asarray(total[ends] - total[: len(values)], dtype=np.float64)


class CueTally:
    """Each stop's cues, kept as the branch's messages arrive in order (O(their files))."""

    def __init__(self) -> None:
        self.finished: list[bool] = []
        self.marks: list[int] = []
        self.new_number: list[bool] = []
        self.touched: list[int] = []  # closed turns; the open one is counted apart
        self.fresh: list[int] = []
        self._seen_files: set[str] = set()
        self._seen_numbers: set[str] = set()
        self._turn: set[str] = set()
        self._turn_fresh = 0
        self._finishing = False
        self._prompt_words = PromptWords()
        self.novelty: list[float] = []
        self.replies: list[bool] = []
        self._arrays = {
            name: _Converted(dtype)
            for name, dtype in (
                ("finished", np.bool_),
                ("marks", np.int8),
                ("new_number", np.bool_),
                ("touched", np.int64),
                ("fresh", np.int64),
                ("novelty", np.float64),
                ("replies", np.bool_),
            )
        }

    def add(self, nodes: Iterable[Marked], stops: Sequence[bool]) -> None:
        """Takes messages in branch order; `stops[i]` says whether the i-th is a stop."""
        for node, is_stop in zip(nodes, stops, strict=True):
            if is_stop:
                self._open(node)
            elif node.is_prompt:
                self._seen_numbers.update(node.numbers)
            if node.marks & FINISHED:
                self._finishing = True
            for path in node.files:
                self._touch(path)

    def _open(self, node: Marked) -> None:
        if self.marks:
            self.touched.append(len(self._turn))
            self.fresh.append(self._turn_fresh)
        self._turn, self._turn_fresh = set(), 0
        self.finished.append(self._finishing)
        self._finishing = False
        self.marks.append(node.marks)
        self.new_number.append(any(n not in self._seen_numbers for n in node.numbers))
        self._seen_numbers.update(node.numbers)
        self.novelty.append(self._prompt_words.novelty(node.words))
        self.replies.append(replies(node.quote))

    def _touch(self, path: str) -> None:
        if path in self._turn:
            return
        self._turn.add(path)
        if path not in self._seen_files:
            self._seen_files.add(path)
            if self.marks:
                self._turn_fresh += 1

    def cues(self) -> StopCues:
        """The cues so far; only the stops added since the last call are converted."""
        arrays = self._arrays
        touched, fresh = arrays["touched"].of(self.touched), arrays["fresh"].of(self.fresh)
        if self.marks:
            touched = np.append(touched, len(self._turn))
            fresh = np.append(fresh, self._turn_fresh)
        return StopCues(
            arrays["finished"].of(self.finished),
            arrays["marks"].of(self.marks),
            arrays["new_number"].of(self.new_number),
            touched,
            fresh,
            asides=Asides(arrays["novelty"].of(self.novelty), arrays["replies"].of(self.replies)),
        )


class _Converted:
    """A growing list's numpy copy, extended by what was appended to the list since."""

    def __init__(self, dtype: type[np.generic]) -> None:
        self._array: np.ndarray = np.zeros(0, dtype=dtype)

    def of(self, values: Sequence[bool] | Sequence[int] | Sequence[float]) -> np.ndarray:
        """A fresh array of `values` (which only grew since the last call)."""
        done = len(self._array)
        if len(values) > done:
            new = np.array(values[done:], dtype=self._array.dtype)
            self._array = np.concatenate([self._array, new])
        return self._array.copy()
