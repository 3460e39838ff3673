"""The order of keepd's context is the order Claude Code sends: every corpus session, resumed
with `claude -p --resume`, sends the context keepd reads from the file afterwards, message for
message, as the client assembles messages from it (a response's lines joined, each call's
results after it, a background task's notice in its frame). Left aside: the notices of
background tasks the client writes into the file as it resumes (a queued
`<task-notification>`, or "didn't finish before the previous session ended"), which it does not
send in that request."""

from __future__ import annotations

from pathlib import Path

import pytest

from keepd.api import load_state
from keepd.core.tree import Scope
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply
from tests.claude.requests import (
    file_items,
    newest_prompt_uuid,
    notices_written,
    promised_messages,
    sent_messages,
    unpaired,
)
from tests.claude.sessions import place_file
from tests.conftest import SHARED

NEXT = "Next prompt after the whole session"
# Sessions holding user entries with `origin.kind: "task-notification"` (a background task's
# notice) are compared like every other: 2.1.332 sends each in its place, in a frame the
# comparison takes off (tests/claude/requests.py, tests/claude/test_notices.py).
CORPUS = sorted(path.name for path in (SHARED / "corpus" / "sessions").glob("*.jsonl"))


@pytest.mark.parametrize("name", CORPUS)
def test_a_resumed_corpus_session_sends_keepds_context(
    name: str, shared: Path, world: World, fake_api: FakeApi
) -> None:
    source = shared / "corpus" / "sessions" / name
    if load_state(source, Scope.CURRENT).tree.sidechain_only:
        pytest.skip("a sub-agent's file: claude --resume does not take it")
    session_id = place_file(world, source)
    path = world.transcript(session_id)
    before = set(file_items(path))
    fake_api.queue(Reply(text="ok"))
    world.print_turn(NEXT, resume=session_id)
    request = fake_api.conversation()[-1]
    upto = newest_prompt_uuid(path, NEXT)
    promised = promised_messages(path, [], upto, notices_written(path, before))
    assert sent_messages(path, request) == promised
    assert not unpaired(request)

