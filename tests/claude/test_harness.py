"""The harness itself: the fake API answers as the real one does, and the real Claude Code runs
against it headless and in tmux, its tool calls executed and their results sent back."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable

from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, ToolCall
from tests.claude.tmux import Tmux


def test_fake_api_answers_plain_json_and_counts_tokens(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(text="plain"))
    tool = {"name": "Bash", "input_schema": {"type": "object"}}
    body = {"model": "m", "max_tokens": 5, "tools": [tool],
            "messages": [{"role": "user", "content": "hi"}]}
    request = urllib.request.Request(f"{fake_api.url}/v1/messages", json.dumps(body).encode(),
                                     {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        message = json.loads(answer.read())
    assert message["content"] == [{"type": "text", "text": "plain"}]
    assert message["stop_reason"] == "end_turn"
    count = urllib.request.Request(f"{fake_api.url}/v1/messages/count_tokens",
                                   json.dumps(body).encode())
    with urllib.request.urlopen(count, timeout=10) as answer:
        assert json.loads(answer.read())["input_tokens"] > 0
    assert [r.body for r in fake_api.requests] == [body, body]


def test_headless_turns_resume_with_the_whole_history(world: World, fake_api: FakeApi) -> None:
    fake_api.queue(Reply(text="first answer"), Reply(text="second answer"))
    first = world.print_turn("first question")
    assert first["result"] == "first answer"
    second = world.print_turn("second question", resume=first["session_id"])
    assert second["result"] == "second answer"
    last = fake_api.conversation()[-1]
    assert last.body["stream"] is True
    texts = last.texts()
    order = [texts.index(t) for t in ("first question", "first answer", "second question")]
    assert order == sorted(order)
    assert world.transcript(first["session_id"]).is_file()


def test_parallel_tool_calls_run_and_their_results_come_back_paired(
    world: World, fake_api: FakeApi
) -> None:
    calls = (ToolCall("Bash", {"command": "echo alpha-out", "description": "alpha"}),
             ToolCall("Bash", {"command": "echo beta-out", "description": "beta"}))
    fake_api.queue(Reply(text="Running both.", tools=calls), Reply(text="Both ran."))
    result = world.print_turn("run two commands", extra=("--dangerously-skip-permissions",))
    assert result["result"] == "Both ran."
    # Newer clients put a `role: "system"` message last: look through every message.
    follow = [block for message in fake_api.conversation()[-1].body["messages"]
              if isinstance(message["content"], list) for block in message["content"]]
    results = {b["tool_use_id"]: b for b in follow if b.get("type") == "tool_result"}
    assert set(results) == {call.id for call in calls}
    assert "alpha-out" in json.dumps(results[calls[0].id])
    assert "beta-out" in json.dumps(results[calls[1].id])


def test_interactive_turn_in_tmux(world: World, fake_api: FakeApi,
                                  tmux_ui: Callable[..., Tmux]) -> None:
    fake_api.queue(Reply(text="Interactive answer here."))
    ui = tmux_ui()
    ui.wait_for("❯", timeout=30)
    ui.wait_stable()
    ui.type("hello from tmux")
    ui.keys("Enter")
    ui.wait_for("Interactive answer here.", timeout=30)
    assert "hello from tmux" in fake_api.conversation()[-1].joined()
