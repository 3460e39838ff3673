"""Reads whether an assistant message wraps up a piece of work, as a person reading the
session sees it: it opens by reporting the work done ("Done.", "All three fixed", "✅"), says
the work is live or complete, carries a summary heading, reports passing tests, a pull request
or the work ready for review, or closes by offering more ("Let me know if you'd like ...").

The phrases were read from the calibration sessions' last messages before the prompts both
readers call a new task, against those before prompts no reader marked (docs/EVALUATION.md,
"What each cue and pick rule adds"); `CueTally` (core/cues.py) keeps, per stop, whether the
last assistant text of the turn before wrapped up.
"""

from __future__ import annotations

import re

# An opening that reports the work done: "Done.", "All three tasks done", "Both fixed", "✅".
_OPENING = re.compile(
    r"[\W_]*(?:(?:all|both|everything)(?:\s+\w+){0,2}?\s+(?:is\s+|are\s+)?)?"
    r"(?:done|fixed|committed|pushed|merged|deployed|updated|completed?|finished|implemented|"
    r"shipped|resolved)\b|\W*(?:✅|🎉)"
)
# Anywhere in the message: the work is live or complete, a summary of it, tests that pass, a
# pull request, ready for review, and the closers that offer more once the work is done.
_WRAPPING = re.compile(
    r"\b(?:is|are)\s+(?:now\s+)?(?:live|deployed|merged|complete|done)\b|\ball\s+(?:green|set)\b"
    r"|\bimplementation\s+(?:is\s+)?complete|^#+\s*(?:final\s+)?summary\b"
    r"|\bsummary\s+of\s+(?:the\s+|all\s+|what\s+)?(?:changes|fixes|work|what)"
    r"|\bwhat\s+(?:i|was)\s+(?:did|done|changed|added)\b|\bchanges\s+made\b"
    r"|here'?s\s+(?:the\s+|a\s+)?summary|\ball\s+(?:\d+\s+|the\s+)?(?:tests|checks)\s+(?:now\s+)?pass"
    r"|\b\d+\s+tests?\s+pass|\btests\s+pass\b|github\.com/\S+?/pull/\d+"
    r"|\bready\s+(?:for\s+review|to\s+merge)\b|let\s+me\s+know\s+if\s+(?:you(?:'d|\s+would)?\s+"
    r"(?:like|want)|anything)|\banything\s+else\b|you'?re\s+all\s+set",
    re.MULTILINE,
)
_READ = 2000  # the opening and the close read: a summary's heading comes early, closers last


def wraps_up(text: str) -> bool:
    """Whether an assistant's text reads as a finished piece of work.

    >>> [wraps_up(t) for t in ("Done. The parser is fixed.", "## Summary\\n- the map", "✅ ok")]
    [True, True, True]
    >>> wraps_up("All 42 tests pass."), wraps_up("Let me know if you'd like the docs too.")
    (True, True)
    >>> [wraps_up(t) for t in ("Which option do you prefer?", "Error: the build failed", "")]
    [False, False, False]
    >>> wraps_up("I'll first read the parser, then fix it."), wraps_up("Not done yet: the map")
    (False, False)
    """
    lowered = text.lower()
    if len(lowered) > 2 * _READ:
        lowered = lowered[:_READ] + "\n" + lowered[-_READ:]
    return _OPENING.match(lowered) is not None or _WRAPPING.search(lowered) is not None
