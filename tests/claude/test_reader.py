"""The reader of meaning against the real Claude Code and the fake Messages API: what `claude -p`
sends (the smallest model, no tools, keepd's rows and nothing else), and what keepd does with a
good, a malformed, a refused and a late answer."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from keepd.core.reader import SYSTEM
from keepd.paths import example_session
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, Request

MEMORY = "A RULE FROM THE PERSON'S CLAUDE.md"


def placed(world: World) -> Path:
    """The bundled example, copied beside the world (not in its projects folder)."""
    path = world.root / "example.jsonl"
    shutil.copyfile(example_session(), path)
    return path


def ask(world: World, path: Path, *extra: str, check: bool = True) -> dict[str, Any]:
    done = world.keepd("ask", str(path), "--json", *extra, check=check)
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def reader_posts(api: FakeApi) -> list[Request]:
    return [r for r in api.messages_posts() if SYSTEM in r.joined()]


def test_the_request_is_the_rows_to_the_smallest_model_without_tools(
    world: World, fake_api: FakeApi
) -> None:
    (world.config / "CLAUDE.md").write_text(MEMORY)
    (world.cwd / "CLAUDE.md").write_text(MEMORY)
    path = placed(world)
    request = world.keepd("ask", str(path), "--print").stdout
    fake_api.responder = lambda r: Reply(text='{"starts": [], "newest": 16}')
    ask(world, path)
    [asked] = reader_posts(fake_api)
    body = asked.body
    assert "haiku" in str(body.get("model"))
    assert body.get("tools", []) == []
    users = [m for m in body["messages"] if m.get("role") == "user"]
    assert [m["content"] for m in users] == [request]  # the rows and nothing else of keepd's
    sent = json.dumps(body)
    assert MEMORY not in sent  # --safe-mode: no CLAUDE.md
    assert str(world.cwd) not in sent and str(world.root) not in sent  # run in an empty folder
    assert "I'll start by looking at how invoices" not in sent  # no reply of the chat
    assert not list(world.config.glob("projects/*/*.jsonl"))  # --no-session-persistence
    size = len(json.dumps(body).encode())
    print(f"reader request: {len(request.encode())} bytes of rows, {size} bytes in all")


def test_a_good_answer_moves_the_pick_and_is_asked_once(world: World, fake_api: FakeApi) -> None:
    path = placed(world)
    local = world.report(str(path))
    answer = {"starts": [{"row": 1, "kind": "task"}, {"row": 16, "kind": "task"}], "newest": 16}
    fake_api.responder = lambda r: Reply(text=json.dumps(answer))
    merged = ask(world, path)
    assert merged["reader"]["source"] == "claude -p" and merged["reader"]["moved"]
    assert merged["pick"] == merged["reader"]["newest"] != local["pick"]
    again = ask(world, path)  # the same prompts: the cache answers, claude is not asked again
    assert again["reader"]["source"] == "cache" and again["pick"] == merged["pick"]
    assert len(reader_posts(fake_api)) == 1


def test_report_ask_claude_prints_the_reader_line(world: World, fake_api: FakeApi) -> None:
    path = placed(world)
    fake_api.responder = lambda r: Reply(text='```json\n{"starts": [], "newest": 21}\n```')
    out = world.keepd("report", str(path), "--ask-claude", "--width", "100").stdout
    assert "the reader (claude -p): the newest piece (step) began at prompt" in out


def test_a_malformed_or_refused_answer_leaves_the_local_grade(
    world: World, fake_api: FakeApi
) -> None:
    path = placed(world)
    local = world.report(str(path))
    replies = iter(['{"newest": 999, "starts": "all of them"}', "I can't help with that."])
    fake_api.responder = lambda r: Reply(text=next(replies) if SYSTEM in r.joined() else "OK.")
    for _ in range(2):
        state = world.home / ".local" / "state" / "keepd" / "reader"
        shutil.rmtree(state, ignore_errors=True)  # a fresh question each time
        done = world.keepd("ask", str(path), "--json")
        merged = json.loads(done.stdout)
        assert merged["pick"] == local["pick"] and merged["zones"] == local["zones"]
        assert merged["reader"]["failure"] == "the answer is not the JSON object asked for"
        assert done.stderr.count("the local grade stands") == 1  # one line logged


def test_a_late_answer_is_dropped(world: World, fake_api: FakeApi) -> None:
    path = placed(world)
    local = world.report(str(path))
    folder = world.home / ".config" / "keepd"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text("[reader]\ntimeout_seconds = 2\n")

    def slow(request: Request) -> Reply:
        if SYSTEM in request.joined():
            time.sleep(6)
        return Reply(text='{"starts": [], "newest": 16}')

    fake_api.responder = slow
    started = time.monotonic()
    merged = ask(world, path)
    assert time.monotonic() - started < 6
    assert merged["pick"] == local["pick"]
    assert merged["reader"]["failure"] == "claude -p gave no answer within 2 s"
