"""2.1.332's attachments: their rendered reminders count only where they are the person's own
work, and the large ones are read without their objects."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest

from keepd.core.analysis import analyse_state
from keepd.core.entries import EntryReader, is_bookkeeping
from keepd.core.messages import TextPolicy
from keepd.core.session import SessionState
from tests.unit.builders import Chain, attachment, bookkeeping, tool_result, tool_use_block

QUEUED = "also rename the frobnicator in the widget module"


def turn_with_attachments() -> Chain:
    """A prompt, Claude Code's own reminders, a tool call, a message the person queued while
    it ran, and the reply that follows."""
    chain = Chain()
    prompt = chain.prompt("fix the parser tokenizer")
    chain.add(attachment("env", prompt, "environment", "Primary working directory: /srv"))
    chain.add(attachment("skills", "env", "skill_listing", "dataviz: charts and plots"))
    chain.reply([tool_use_block("t1", command="pytest")], context=1000)
    chain.add(tool_result("r1", chain.last or "", "t1", "3 passed"))
    chain.add(attachment("queued", "r1", "queued_command", f"The user sent: {QUEUED}"))
    chain.add(bookkeeping("api-request", id="req1"))
    chain.reply("done, and the frobnicator is renamed", context=1500)
    return chain


def turn_with_a_queued_prompt(mode: str = "prompt", kind: str = "human") -> Chain:
    """A prompt, a tool call, a prompt the person queued while it ran (as 2.1.332 writes one:
    `commandMode`, `origin`, no `rendered`), and the reply that follows."""
    chain = Chain()
    chain.turn("fix the parser tokenizer", "on it", context=900)
    chain.reply([tool_use_block("t1", command="pytest")], context=1000)
    chain.add(tool_result("r1", chain.last or "", "t1", "3 passed"))
    queued: dict[str, Any] = {"commandMode": mode, "origin": {"kind": kind}}
    chain.add(
        attachment("queued", "r1", "queued_command", prompt=f"{QUEUED}\nand its tests", **queued)
    )
    chain.add(attachment("delta", "queued", "deferred_tools_delta"))
    chain.reply("done, and the frobnicator is renamed", context=1500)
    return chain


def _names(state: SessionState) -> set[str]:
    state.branch()
    return set(state.index.names.values())


def test_the_persons_queued_words_count_and_claude_codes_reminders_do_not() -> None:
    state = SessionState()
    state.feed(turn_with_attachments().jsonl())
    names = _names(state)
    assert {"frobnicator", "widget", "rename"} <= names
    assert not {"dataviz", "charts", "srv", "reminder"} & names
    # The words join the reply the chain leads to: the turn they were written in.
    reply = state.branch().messages[-1]
    assert reply.chars > len("done, and the frobnicator is renamed")


def test_a_policy_without_prompts_leaves_the_queued_words_out() -> None:
    state = SessionState(policy=TextPolicy(counted=frozenset({"reply"})))
    state.feed(turn_with_attachments().jsonl())
    assert "widget" not in _names(state)


@pytest.mark.parametrize("made", [turn_with_attachments, turn_with_a_queued_prompt])
def test_followed_line_by_line_it_ends_as_read_whole(made: Callable[[], Chain]) -> None:
    data = made().jsonl()
    for compact in (False, True):
        followed = SessionState(compact=compact)
        for line in data.splitlines(keepends=True):
            followed.feed(line)
            followed.branch()
        whole = SessionState(compact=compact)
        whole.feed(data)
        got, expected = analyse_state(followed).to_dict(), analyse_state(whole).to_dict()
        assert got == expected


def test_a_large_boilerplate_attachment_is_read_without_its_object() -> None:
    snapshot = attachment("snap", "u001", "prompt_snapshot", systemPrompt=["You are..." * 900])
    snapshot["rendered"] = [{"content": "x"}]
    lean = EntryReader().parse_lean(orjson.dumps(snapshot))
    assert lean is not None and "attachment" not in lean
    assert (lean["uuid"], lean["parentUuid"], lean["rendered"]) == (
        "snap",
        "u001",
        [{"content": "x"}],
    )
    queued = attachment("q", "u001", "queued_command", "words " * 900)
    assert EntryReader().parse_lean(orjson.dumps(queued)) == queued  # read whole


def test_bookkeeping_lines_are_known_by_their_leading_type() -> None:
    assert is_bookkeeping(orjson.dumps(bookkeeping("api-request", id="r")))
    assert is_bookkeeping(memoryview(b'{"type":"cost-state","totalCostUSD":1}'))
    assert not is_bookkeeping(b'{"type":"attachment","uuid":"a"}')
    assert not is_bookkeeping(b'{"uuid":"a","type":"api-request"}')  # not written type first
    assert not is_bookkeeping(b'{"type":"api-request-unknown-kind"}')


def test_a_prompt_queued_by_the_person_is_a_stop_of_its_own_as_the_picker_lists_it() -> None:
    state = SessionState()
    state.feed(turn_with_a_queued_prompt().jsonl())
    state.finish()
    stops = analyse_state(state).to_dict()["stops"]
    assert [(stop["uuid"], stop["quote"]) for stop in stops] == [
        ("u001", "fix the parser tokenizer"),
        ("queued", f"{QUEUED}…"),
    ]
    assert {"frobnicator", "widget"} <= _names(state)
    reply = state.branch().messages[-1]
    assert reply.chars == len("done, and the frobnicator is renamed")  # no longer carried


def test_a_queued_task_notification_or_a_prompt_from_elsewhere_is_no_stop() -> None:
    for mode, kind in (("task-notification", "human"), ("prompt", "peer")):
        state = SessionState()
        state.feed(turn_with_a_queued_prompt(mode, kind).jsonl())
        state.finish()
        assert [stop["uuid"] for stop in analyse_state(state).to_dict()["stops"]] == ["u001"]
