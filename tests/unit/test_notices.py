"""A background task's notice (a user entry whose `origin` is `{"kind": "task-notification"}`)
is a message of keepd's context in its place, between the response that started the task and
the one that answers it, as the real Claude Code 2.1.332 sends it (tests/claude/test_notices.py:
in a frame of its own, not left out and not joined to the responses around it); it is no stop.
Read whole, followed line by line, or skimmed, alike."""

from __future__ import annotations

from typing import Any

import pytest

from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState, read_current
from keepd.core.tree import Scope
from tests.unit.builders import (
    Content,
    Entry,
    assistant,
    compact_boundary,
    compact_summary,
    image,
    jsonl,
    system,
    text,
    usage,
    user,
)

NOTICE = (
    "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n"
    "<summary>Build finished</summary>\n</task-notification>"
)
ORIGIN = {"kind": "task-notification"}
CONTEXT = ["p1", "a1", "n1", "a2", "p2", "a3"]


def notice_session(
    content: Content = NOTICE, origin: dict[str, str] | None = ORIGIN, **extra: Any
) -> list[Entry]:
    """A response that starts a background task, the end of its turn, the task's notice (with
    `origin`, unless None) and the response to it; then a prompt and its answer."""
    fields = {"promptSource": "system", **extra}
    if origin is not None:
        fields["origin"] = origin
    return [
        user("p1", None, "start the build in the background"),
        assistant("a1", "p1", "The build runs in the background.", msg_id="msg_1",
                  usage_=usage(20_000)),
        system("s1", "a1", "turn_duration", durationMs=900),
        user("n1", "s1", content, **fields),
        assistant("a2", "n1", "The build finished.", msg_id="msg_2", usage_=usage(21_000)),
        user("p2", "a2", "now deploy it"),
        assistant("a3", "p2", "Deployed.", msg_id="msg_3", usage_=usage(22_000)),
    ]


def _whole(data: bytes, scope: Scope = Scope.CURRENT) -> SessionState:
    state = SessionState(scope)
    state.feed(data)
    state.finish()
    return state


def _uuids(state: SessionState) -> list[str]:
    return [node.uuid or "" for node in state.branch().messages]


VARIANTS: dict[str, dict[str, Any]] = {
    "string": {},
    "texts-and-an-image": {"content": [text(NOTICE), text("log tail"), image()]},
    "meta": {"isMeta": True},
    "another-subkind": {"origin": {**ORIGIN, "subkind": "external-event"}},
    "scheduled": {"origin": {**ORIGIN, "subkind": "scheduled-trigger"}},
    "no-origin": {"origin": None},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("scope", list(Scope))
def test_a_notice_is_a_message_of_its_own_in_its_place(variant: str, scope: Scope) -> None:
    state = _whole(jsonl(notice_session(**VARIANTS[variant])), scope)
    assert _uuids(state) == CONTEXT


def test_a_notice_is_no_stop() -> None:
    stops = analyse_state(_whole(jsonl(notice_session()))).to_dict()["stops"]
    assert [stop["uuid"] for stop in stops] == ["p1", "p2"]


def test_followed_line_by_line_a_notice_agrees_with_the_whole_read() -> None:
    lines = jsonl(notice_session()).splitlines(keepends=True)
    followed = SessionState(Scope.CURRENT)
    for count, line in enumerate(lines, start=1):
        followed.feed(line)
        whole = _whole(b"".join(lines[:count]))
        assert _uuids(followed) == _uuids(whole), count
        assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict(), count
    assert _uuids(followed) == CONTEXT


def test_notices_either_side_of_a_compaction_skim_as_they_read_whole() -> None:
    """The skim passes over the notice before the boundary and reads the one after."""
    before = notice_session()
    after = [
        {**entry, "uuid": f"{entry['uuid']}b", "parentUuid": f"{entry['parentUuid']}b"}
        for entry in notice_session()
    ]
    after[0]["parentUuid"] = "s001"
    for entry in after:
        if entry["type"] == "assistant":
            entry["message"]["id"] += "b"
    data = jsonl([*before, compact_boundary("b001", "a3"), compact_summary("s001", "b001"), *after])
    skimmed = read_current(data)
    assert skimmed.tree.partial
    assert analyse_state(skimmed).to_dict() == analyse_state(_whole(data)).to_dict()
    assert _uuids(skimmed) == ["s001", *(f"{uuid}b" for uuid in CONTEXT)]
