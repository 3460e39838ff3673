"""A reply that wraps up a piece of work, against one that ends mid-work."""

from __future__ import annotations

import pytest

from keepd.core.cues import SAYS, WRAPS
from keepd.core.messages import make_node
from keepd.core.wrapping import wraps_up


@pytest.mark.parametrize(
    "text",
    [
        "Done. The parser handles nested lists now.",
        "All three tasks done. Here's the summary:",
        "Both edits are done and pushed.",
        "✅ **Committed and pushed!**",
        "🎉 It's working!",
        "The fix is now live at https://example.org.",
        "Updated the config.\n\n## Summary\n- timeouts raised",
        "I changed two files.\n\n### Final Summary of All Fixes Today:",
        "Implementation is complete. Let me provide a summary:",
        "Full suite: all 187 tests pass.",
        "PR: https://github.com/o/r/pull/54",
        "Both PRs are green and ready to merge.",
        "The page loads. Let me know if you want the footer changed too.",
        "Is there anything else you'd like me to help with?",
    ],
)
def test_a_reply_that_reports_the_work_done_wraps_up(text: str) -> None:
    assert wraps_up(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'll first look at the grammar, then draft the fix.",
        "Which option do you prefer: A or B?",
        "The build failed: `ModuleNotFoundError: numpy`.",
        "Here's the plan. Shall I start with step 1?",
        "Not done yet: the map still needs its tiles.",
        "**Select:** [A] Advanced [P] Party Mode [C] Continue",
        "",
    ],
)
def test_a_reply_that_ends_mid_work_does_not(text: str) -> None:
    assert not wraps_up(text)


def test_a_long_reply_is_read_at_its_opening_and_its_close_only() -> None:
    middle = "the grammar, step by step. " * 400
    assert wraps_up("Looking at " + middle + "Let me know if you'd like the lexer too.")
    assert not wraps_up("Looking at " + middle + "## Summary " + middle + "Which one?")


def test_an_assistant_message_marks_its_last_text_only() -> None:
    def marks(*texts: str) -> int:
        blocks = [{"type": "text", "text": text} for text in texts]
        entry = {"type": "assistant", "uuid": "a", "message": {"id": "m", "content": blocks}}
        return make_node(entry, 0).marks

    assert marks("Done.") == SAYS | WRAPS
    assert marks("Done.", "Now the lexer: which grammar?") == SAYS
    assert marks("  ") == 0
