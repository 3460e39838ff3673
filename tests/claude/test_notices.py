"""A background task's notice, as the real Claude Code 2.1.332 sends it on resume: a user entry
whose `origin` is `{"kind": "task-notification"}` stays a message of its own in its place,
between the response that started the task and the one that answers the notice, its text in a
frame saying no person wrote it (tests/claude/requests.py, `NOTICE_HEAD`); keepd's context,
which holds it there, is the request's, message for message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, Request
from tests.claude.requests import (
    NOTICE_HEAD,
    NOTICE_TAIL,
    SCHEDULED_HEAD,
    newest_prompt_uuid,
    promised_messages,
    sent_messages,
)
from tests.claude.sessions import place_chain
from tests.unit.builders import Chain, Content, image, text, user

NEXT = "Next prompt after the notice"
NOTICE = (
    "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
    "<summary>Build finished</summary>\n</task-notification>"
)
NOTICE_ORIGIN = {"kind": "task-notification"}
STARTED = "The build is running in the background."
ANSWERED = "The build finished."


def notice_session(content: Content, origin: dict[str, str] | None, **extra: Any) -> Chain:
    """A prompt, a response that starts a background task, the task's notice, the response to
    it."""
    chain = Chain(prefix="n")
    chain.prompt("start the build in the background")
    chain.reply(STARTED, context=20_000)
    fields = {"origin": origin} if origin is not None else {}
    chain.add(user("notice", chain.last, content, promptSource="system", **fields, **extra))
    chain.reply(ANSWERED, context=21_000)
    return chain


def resumed(world: World, fake_api: FakeApi, chain: Chain) -> tuple[Path, Request]:
    """Resumes the session with one more prompt: the file after, and the request."""
    session_id = place_chain(world, chain)
    fake_api.queue(Reply(text="ok"))
    world.print_turn(NEXT, resume=session_id)
    return world.transcript(session_id), fake_api.conversation()[-1]


def the_notice(request: Request) -> Any:
    """The content of the message between the two responses, which must be in their places
    (reminders the client sends as `system` messages left aside)."""
    messages = [m for m in request.body["messages"] if m["role"] != "system"]
    assert [m["role"] for m in messages[:4]] == ["user", "assistant", "user", "assistant"]
    assert _texts(messages[1]) == [STARTED]
    assert _texts(messages[3]) == [ANSWERED]
    return messages[2]["content"]


def _texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if block.get("type") == "text"]


def as_keepd_reads_it(path: Path, request: Request) -> None:
    """Asserts the request holds keepd's context, message for message."""
    upto = newest_prompt_uuid(path, NEXT)
    assert sent_messages(path, request) == promised_messages(path, [], upto)


def test_a_notice_is_sent_in_its_place_in_the_notice_frame(
    world: World, fake_api: FakeApi
) -> None:
    path, request = resumed(world, fake_api, notice_session(NOTICE, NOTICE_ORIGIN))
    assert the_notice(request) == NOTICE_HEAD + NOTICE + NOTICE_TAIL
    as_keepd_reads_it(path, request)


def test_a_notices_texts_are_joined_in_one_frame_before_its_other_blocks(
    world: World, fake_api: FakeApi
) -> None:
    content = [text(NOTICE), text("Log ends with </system-reminder> here"), image()]
    path, request = resumed(world, fake_api, notice_session(content, NOTICE_ORIGIN))
    sent = the_notice(request)
    joined = NOTICE + "\nLog ends with &lt;/system-reminder&gt; here"
    assert [block["type"] for block in sent] == ["text", "image"]
    assert sent[0]["text"] == NOTICE_HEAD + joined + NOTICE_TAIL
    as_keepd_reads_it(path, request)


@pytest.mark.parametrize(
    ("content", "origin", "extra"),
    [
        (NOTICE, NOTICE_ORIGIN, {"isMeta": True}),
        (NOTICE, {"kind": "task-notification", "subkind": "external-event"}, {}),
        (NOTICE_HEAD + NOTICE + NOTICE_TAIL, NOTICE_ORIGIN, {}),
    ],
    ids=["meta", "another-subkind", "already-framed"],
)
def test_the_frame_is_put_once_whatever_else_the_notice_says(
    content: str,
    origin: dict[str, str],
    extra: dict[str, Any],
    world: World,
    fake_api: FakeApi,
) -> None:
    path, request = resumed(world, fake_api, notice_session(content, origin, **extra))
    assert the_notice(request) == NOTICE_HEAD + NOTICE + NOTICE_TAIL
    as_keepd_reads_it(path, request)


def test_a_scheduled_firing_has_a_frame_of_its_own(world: World, fake_api: FakeApi) -> None:
    origin = {"kind": "task-notification", "subkind": "scheduled-trigger"}
    path, request = resumed(world, fake_api, notice_session(NOTICE, origin))
    assert the_notice(request) == SCHEDULED_HEAD + NOTICE
    as_keepd_reads_it(path, request)


def test_a_notice_text_without_the_origin_is_sent_as_written(
    world: World, fake_api: FakeApi
) -> None:
    path, request = resumed(world, fake_api, notice_session(NOTICE, None))
    assert the_notice(request) == NOTICE
    as_keepd_reads_it(path, request)
