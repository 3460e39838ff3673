"""Reads what a prompt says beside its work, as a person reading the prompts sees it: how many
of its words no earlier prompt used, and whether it opens as a reply to the turn before ("yes",
"but", "also", "still", an option's letter, a quote).

These follow what the labelling readers read (the prompts alone, the minutes between them and
the git branch) rather than the vocabulary of tool output; `CueTally` (core/cues.py) keeps them
per stop as the branch grows, and core/points.py gives them points.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from keepd.core.quote import NO_PROMPT

# The opening of a prompt that replies to the turn before it rather than starting something.
_REPLYING = re.compile(
    r"\W*(?:(?:yes|yeah|yep|yup|no|nope|nah|but|also|and|still|hmm+|wait|or|same|again)\b"
    r"|(?:option\s*)?[a-d1-9][.)]\s|>)"
)


def replies(quote: str) -> bool:
    """Whether a prompt (as the rewind picker quotes it) opens as a reply to the turn before.

    >>> [replies(q) for q in ("yes, do it", "But can it show two?", "b. also this", "> quoted")]
    [True, True, True, True]
    >>> [replies(q) for q in ("noted: fix the map", "Add the tests", "Now the docs", "")]
    [False, False, False, False]
    >>> replies(NO_PROMPT)  # the picker's row for an image alone: no words of the person's
    False
    """
    return quote != NO_PROMPT and _REPLYING.match(quote[:40].lower()) is not None


@dataclass(slots=True)
class PromptWords:
    """The words every earlier stop's prompt used: what a prompt's novelty is measured on."""

    seen: set[str] = field(default_factory=set)

    def novelty(self, words: Sequence[str]) -> float:
        """The share of `words`' distinct words no earlier prompt used; then they are seen.

        >>> tally = PromptWords()
        >>> tally.novelty(["parser", "fix"]), tally.novelty(["parser", "map"]), tally.novelty([])
        (1.0, 0.5, 0.0)
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
    replies: npt.NDArray[np.bool_]  # the prompt opens as a reply to the turn before


def no_asides(stops: int) -> Asides:
    """Asides of `stops` stops where nothing is known: none marked."""
    return Asides(np.zeros(stops), np.zeros(stops, dtype=bool))
