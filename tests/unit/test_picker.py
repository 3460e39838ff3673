"""The rewind picker's rules (sessions.md, "The rewind picker"), through `is_prompt`."""

from __future__ import annotations

from typing import Any

import pytest

from keepd.core.listed import NOT_PROMPT_MARKERS, SYNTHETIC_PROMPTS, is_prompt
from keepd.core.messages import make_node

from .builders import (
    Content,
    Entry,
    assistant,
    compact_summary,
    image,
    sidechain,
    text,
    tool_result,
    tool_result_block,
    user,
)

MARKERS = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<task-notification>",
    "<tick>",
    "<teammate-message",
)
SYNTHETIC = (
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
    "No response requested.",
)


def _user(content: Content, **extra: Any) -> Entry:
    return user("u1", "p0", content, **extra)


def _listed(entry: Entry) -> bool:
    """`is_prompt` both ways it can be called, and as `make_node` records it; all must agree."""
    plain = is_prompt(entry)
    node = make_node(entry, 0)
    assert node.is_prompt is plain
    return plain


def test_the_documented_lists_are_the_ones_used() -> None:
    assert set(NOT_PROMPT_MARKERS) == set(MARKERS)
    assert set(SYNTHETIC_PROMPTS) == set(SYNTHETIC)


@pytest.mark.parametrize(
    "content",
    [
        "fix the parser in keepd/core/entries.py",
        [text("fix the parser")],
        [text("first part"), text("second part")],
    ],
)
def test_a_typed_prompt_is_listed(content: Content) -> None:
    assert _listed(_user(content))


def test_tool_result_first_block_is_not_listed() -> None:
    assert not _listed(tool_result("u1", "a0", "toolu_1", "3 passed"))
    assert not _listed(_user([tool_result_block("toolu_1"), text("and also this")]))


def test_tool_result_after_a_text_block_does_not_hide_the_prompt() -> None:
    assert _listed(_user([text("look at this"), tool_result_block("toolu_1")]))


@pytest.mark.parametrize("synthetic", SYNTHETIC)
def test_synthetic_texts_are_not_listed(synthetic: str) -> None:
    assert not _listed(_user(synthetic))
    assert not _listed(_user([text(synthetic)]))


def test_synthetic_text_inside_a_longer_prompt_is_still_a_prompt() -> None:
    assert _listed(_user("No response requested. Why did you stop?"))
    assert _listed(_user("[Request interrupted by user] then go on with the parser"))


@pytest.mark.parametrize("flag", ["isMeta", "isCompactSummary", "isVisibleInTranscriptOnly"])
def test_flagged_entries_are_not_listed(flag: str) -> None:
    assert not _listed(_user("an ordinary looking prompt", **{flag: True}))


@pytest.mark.parametrize("flag", ["isMeta", "isCompactSummary", "isVisibleInTranscriptOnly"])
def test_flags_set_to_false_do_not_hide(flag: str) -> None:
    assert _listed(_user("an ordinary looking prompt", **{flag: False}))


def test_compact_summary_is_not_listed() -> None:
    assert not _listed(compact_summary("s1", "b1"))
    assert not _listed(compact_summary("s1", "b1", full=False))


@pytest.mark.parametrize("marker", MARKERS)
def test_marker_in_the_last_text_block_is_not_listed(marker: str) -> None:
    body = f"{marker}output here" if marker.endswith("-message") else f"{marker}output</x>"
    assert not _listed(_user(body))
    assert not _listed(_user([text("caveat"), text(f"before {body} after")]))
    assert not _listed(_user([text("caveat"), image(), text(body)]))


@pytest.mark.parametrize("marker", MARKERS)
def test_a_marker_hides_a_prompt_with_no_other_tag(marker: str) -> None:
    # is_prompt looks for the markers only in text holding a "<": each brings its own.
    assert not _listed(_user(f"ran {marker} here"))


@pytest.mark.parametrize("marker", MARKERS)
def test_marker_only_in_an_earlier_text_block_is_listed(marker: str) -> None:
    assert _listed(_user([text(f"{marker}old output"), text("now fix the parser")]))


def test_slash_command_invocation_is_listed() -> None:
    body = (
        "<command-message>review</command-message>\n"
        "<command-name>/review</command-name>\n"
        "<command-args>keepd/core</command-args>"
    )
    assert _listed(_user(body))
    assert _listed(_user([text("<command-name>/foo</command-name>")]))


def test_bash_input_is_listed() -> None:
    assert _listed(_user("<bash-input>git status</bash-input>"))


def test_bash_output_is_not_listed() -> None:
    assert not _listed(
        _user("<bash-stdout>On branch main</bash-stdout><bash-stderr></bash-stderr>")
    )


def test_local_command_output_is_not_listed() -> None:
    body = "<local-command-stdout>Set model to opus</local-command-stdout>"
    assert not _listed(_user(body))


def test_sidechain_prompt_is_not_listed() -> None:
    assert not _listed(sidechain(_user("the sub-agent's task: search the parser")))


def test_image_only_prompt_is_listed() -> None:
    assert _listed(_user([image()]))
    assert _listed(_user([image(), image()]))


def test_image_with_text_prompt_is_listed() -> None:
    assert _listed(_user([image(), text("what is wrong in this screenshot?")]))


def test_assistant_lines_are_not_listed() -> None:
    assert not _listed(assistant("a1", "u1", "Here is the plan.", msg_id="msg_1"))


def test_other_entry_types_are_not_listed() -> None:
    for kind in ("system", "progress", "summary", "attachment", "queue-operation"):
        entry: Entry = {"type": kind, "uuid": "x", "message": {"content": "hello there"}}
        assert not _listed(entry)
