"""Reads what a prompt says beside its work, as a person reading the prompts sees it: how many of
its words no earlier prompt used, whether it opens by moving on ("now", "next", "let's"),
whether the assistant's message before it asked a question it answers, whether the prompt
before it switched git branch by shell-mode input (`! git switch main`), and the pause before
it even where the git branch changed too.

These follow what the labelling readers read (the prompts alone, the minutes between them and
the git branch), not the vocabulary of tool output; `CueTally` (core/cues.py) keeps them per
stop as the branch grows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
import numpy.typing as npt

ASKS = 256  # an assistant message's marks: its last text ends with a question
# The opening of a prompt that moves on: "now ...", "next, ...", "let's ...", "ok, now ...".
_OPENS = re.compile(r"\W*(?:(?:ok(?:ay)?|so|great|good|alright|cool)\W+)?(?:now|next|let'?s)\b")
_SHELL_SWITCH = re.compile(r"<bash-input>\s*git\s+(?:-C\s+\S+\s+)?(?:switch|checkout)\b")


def asks(texts: Sequence[str]) -> int:
    """`ASKS` when the last of an assistant message's texts ends with a question.

    >>> asks(["Done. Shall I also update the tests?"]), asks(["Done.", "What next? Tests."])
    (256, 0)
    """
    return ASKS if texts and texts[-1].rstrip().endswith("?") else 0


def opens_on(quote: str) -> bool:
    """Whether a prompt (as the picker quotes it) opens by moving on to something.

    >>> opens_on("Now add the tests"), opens_on("ok, next: the map"), opens_on("nowhere")
    (True, True, False)
    """
    return _OPENS.match(quote[:40].lower()) is not None


def switches_branch(raw_quote: str) -> bool:
    """Whether a prompt is shell-mode input that switches git branch.

    >>> switches_branch("<bash-input>git switch main</bash-input>"), switches_branch("git switch")
    (True, False)
    """
    return _SHELL_SWITCH.match(raw_quote.lstrip()) is not None


@dataclass(slots=True)
class PromptWords:
    """The words every earlier stop's prompt used: what a prompt's novelty is measured on."""

    seen: set[str] = field(default_factory=set)

    def novelty(self, words: Sequence[str]) -> float:
        """The share of `words`' distinct words no earlier prompt used; then they are seen.

        >>> tally = PromptWords()
        >>> tally.novelty(["parser", "fix"]), tally.novelty(["parser", "map"])
        (1.0, 0.5)
        """
        distinct = set(words)
        if not distinct:
            return 0.0
        new = len(distinct - self.seen)
        self.seen |= distinct
        return new / len(distinct)


@dataclass(frozen=True, slots=True)
class Asides:
    """Per stop, oldest first: what its prompt says beside its work."""

    novelty: npt.NDArray[np.float64]  # the share of the prompt's words no earlier prompt used
    opens: npt.NDArray[np.bool_]  # the prompt opens by moving on ("now", "next", "let's")
    asked: npt.NDArray[np.bool_]  # the assistant's message before it ended with a question
    switched: npt.NDArray[np.bool_]  # the prompt before switched git branch (shell-mode input)
    pause: npt.NDArray[np.float64]  # seconds since the message before the prompt, whatever
    # else happened there (core/events.py names one event per stop: a branch switch hides it)


def no_asides(stops: int) -> Asides:
    flags = np.zeros(stops, dtype=bool)
    return Asides(np.zeros(stops), flags, flags.copy(), flags.copy(), np.zeros(stops))


def seconds_between(earlier: str, later: str) -> float:
    """Seconds from one ISO 8601 timestamp to another; 0 when either does not parse."""
    if not earlier or not later:
        return 0.0
    try:
        return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds()
    except (ValueError, TypeError):
        return 0.0
