"""Each `keepd cut` placement and `keepd prune`, resumed by the real Claude Code: the next request
holds exactly the context keepd's reader rebuilds (texts and tool ids in order, nothing from
before the stop, every tool call paired), the summary where keepd puts it; undo gives the whole
history back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, Request
from tests.claude.requests import (
    compare,
    newest_prompt_uuid,
    promised_messages,
    sent_items,
    sent_messages,
    unpaired,
)
from tests.claude.sessions import made, place, place_chain
from tests.cut_kit import age
from tests.unit.builders import Chain, attachment

SUMMARY = "KEEPD-SUMMARY: the parser and the database work, done and committed."
NEXT = "Next prompt after the cut"


def session_with_tools(world: World) -> tuple[str, Path]:
    """Sixteen turns in four topics, some with a tool call, placed and an hour old."""
    chain: Chain = made(16)
    for number in (5, 11):
        chain.tool_call(f"grep -rn topic{number} src", f"src/mod{number}.py:3: topic{number}")
        chain.turn(f"Prompt {number}b: after the grep of topic{number}",
                   f"Answer {number}b: grep found topic{number}", context=60_000 + number)
    session_id = place_chain(world, chain)
    path = world.transcript(session_id)
    age(path)
    return session_id, path


def resume_once(world: World, fake_api: FakeApi, session_id: str) -> None:
    fake_api.queue(Reply(text="Continuing after the cut."))
    world.print_turn(NEXT, resume=session_id)


def roles_around(fake_api: FakeApi, text: str) -> tuple[str, str]:
    """The roles of the last request's message before the one that is `text`, and of that one;
    the one before must hold the summary."""
    messages = fake_api.conversation()[-1].body["messages"]
    said = [json.dumps(m["content"]) for m in messages]
    at = next(i for i, content in enumerate(said) if json.dumps(text) in content)
    assert SUMMARY in said[at - 1]
    return messages[at - 1]["role"], messages[at]["role"]


def check_request(world: World, fake_api: FakeApi, path: Path) -> list[str]:
    """The request Claude Code sent for NEXT is the context keepd promised; its texts."""
    request = fake_api.conversation()[-1]
    promised, sent = compare(path, request, newest_prompt_uuid(path, NEXT))
    assert sent == promised
    assert not unpaired(request)
    return [text for kind, text in sent if kind == "text"]


@pytest.mark.parametrize("placement", ["first", "last", "none", "empty"])
def test_cut_gives_the_promised_request(placement: str, world: World, fake_api: FakeApi) -> None:
    session_id, path = session_with_tools(world)
    summary_file = world.root / "summary.txt"
    summary_file.write_text(SUMMARY)
    flag = {"first": [], "last": ["--summary-last"], "none": ["--no-summary"],
            "empty": ["--empty"]}[placement]
    where = [] if placement == "empty" else ["--pick"]
    source = [] if placement in ("none", "empty") else ["--summary-file", str(summary_file)]
    report = world.report(session_id)
    stop = next(s for s in report["stops"] if s["uuid"] == report["pick"])
    world.keepd("cut", session_id, *where, *flag, *source)
    resume_once(world, fake_api, session_id)
    texts = check_request(world, fake_api, path)
    joined = "\n".join(fake_api.conversation()[-1].texts())
    prompts = [t for t in texts if t.startswith("Prompt ")]
    if placement == "empty":
        assert texts == [NEXT] and SUMMARY not in joined
        return
    assert prompts[0] == stop["quote_raw"], "the kept part starts at keepd's stop"
    assert texts[-1] == NEXT
    summary = [i for i, text in enumerate(texts) if SUMMARY in text]
    if placement == "first":
        assert summary == [0]
    elif placement == "last":
        assert summary == [texts.index(prompts[-1]) + 2]  # after the last kept answer
        # 2.1.332 answers the summary itself on resume (README's claim that a written boundary
        # gets no "No response requested." held on older versions only).
        assert texts[summary[0] + 1] == "No response requested."
        assert roles_around(fake_api, "No response requested.") == ("user", "assistant")
    else:
        assert not summary and SUMMARY not in joined


def test_prune_gives_the_promised_request(world: World, fake_api: FakeApi) -> None:
    session_id, path = session_with_tools(world)
    world.keepd("prune", session_id, "--keep-last", "2", "--working", "2", "--notes")
    resume_once(world, fake_api, session_id)
    texts = check_request(world, fake_api, path)
    assert "Prompt 16: about" in " ".join(texts) and texts[-1] == NEXT
    assert len([t for t in texts if t.startswith("Prompt ")]) < 18


def test_undo_gives_the_whole_history_back(world: World, fake_api: FakeApi) -> None:
    session_id, path = session_with_tools(world)
    data = path.read_bytes()
    world.keepd("cut", session_id, "--pick", "--no-summary")
    world.keepd("undo", session_id)
    assert path.read_bytes() == data
    resume_once(world, fake_api, session_id)
    texts = check_request(world, fake_api, path)
    assert texts[0].startswith("Prompt 1: about")


def test_summarize_gives_its_claude_no_tools(world: World, fake_api: FakeApi) -> None:
    """`keepd cut --summarize` runs the real `claude -p`: its request carries no tool, and its
    answer becomes the summary Claude Code sends next."""
    session_id, path = session_with_tools(world)

    def answer(request: Request) -> Reply:
        if "which your summary replaces" in request.joined():
            return Reply(text=SUMMARY)
        return Reply(text="Continuing after the cut.")

    fake_api.responder = answer
    out = world.keepd("cut", session_id, "--pick", "--summarize").stdout
    assert "(summary first: claude -p," in out
    [asked] = [r for r in fake_api.messages_posts() if "which your summary replaces" in r.joined()]
    assert asked.body.get("tools", []) == []
    assert "Prompt 1: about" in asked.joined()
    world.print_turn(NEXT, resume=session_id)
    texts = check_request(world, fake_api, path)
    assert SUMMARY in texts[0]


QUEUED = "Queued while it worked: also rename the frobnicator"


@pytest.mark.parametrize("at", ["queued", "before"])
def test_a_cut_keeps_a_queued_prompt(at: str, world: World, fake_api: FakeApi) -> None:
    """A prompt queued while Claude worked (a `queued_command` attachment) is a stop; a cut
    there or before it keeps it, and the resumed request is the context keepd promised."""
    chain: Chain = made(8)
    call = chain.tool_call("grep -rn frobnicator src", "src/frob.py:3: frobnicator")
    queued: dict[str, Any] = {"commandMode": "prompt", "origin": {"kind": "human"}}
    uuid = "q0000000-0000-4000-8000-000000000001"
    chain.add(attachment(uuid, call, "queued_command", prompt=QUEUED, **queued))
    chain.reply("Renamed the frobnicator too.", context=60_000)
    session_id = place_chain(world, chain)
    path = world.transcript(session_id)
    age(path)
    stops = world.report(session_id)["stops"]
    index = next(i for i, s in enumerate(stops) if s["quote"] == QUEUED)
    stop = stops[index if at == "queued" else index - 1]
    world.keepd("cut", session_id, "--at", stop["uuid"], "--no-summary")
    resume_once(world, fake_api, session_id)
    texts = check_request(world, fake_api, path)
    joined = "\n".join(fake_api.conversation()[-1].texts())
    assert QUEUED in joined, "the queued prompt is kept"
    prompts = [text for text in texts if text.startswith("Prompt ")]
    assert prompts == ([] if at == "queued" else [stop["quote_raw"]])
    assert texts[-2:] == ["Renamed the frobnicator too.", NEXT]


LATE_RESULTS = "Nishanth-sebastin__eagerminds-bookmarks__fe_621fef064f_0_full.jsonl"
# Results whose lines Claude Code 2.1.168 wrote before their calls' lines, linked to them.
WRITTEN_EARLY = ("toolu_01V2wgkZTUTmPxRhXYEeyHMD", "toolu_012DtyKGLQdQTtGywi2oXgBS")


@pytest.mark.parametrize("placement", ["first", "last", "none"])
def test_a_cut_keeps_results_written_before_their_calls_after_them(
    placement: str, shared: Path, world: World, fake_api: FakeApi
) -> None:
    """On the corpus session with results written before their calls (as it stood before its
    last line, a call still running), keepd's cut at its pick is accepted, and the resumed
    request is keepd's context as Claude Code assembles messages from it: each call first."""
    lines = (shared / "corpus" / "sessions" / LATE_RESULTS).read_bytes().splitlines()
    session_id = place(world, lines[:-1])
    path = world.transcript(session_id)
    age(path)
    summary_file = world.root / "summary.txt"
    summary_file.write_text(SUMMARY)
    flag = {"first": [], "last": ["--summary-last"], "none": ["--no-summary"]}[placement]
    source = [] if placement == "none" else ["--summary-file", str(summary_file)]
    world.keepd("cut", session_id, "--pick", *flag, *source)
    # 2.1.332 answers a summary that comes last itself on resume (as test_cut_gives_... shows)
    answer = [("assistant", [("text", "No response requested.")])] if placement == "last" else []
    promised = promised_messages(path, [*answer, ("user", [("text", NEXT)])])
    resume_once(world, fake_api, session_id)
    request = fake_api.conversation()[-1]
    assert sent_messages(path, request) == promised
    assert not unpaired(request)
    order = sent_items(request)
    for tool in WRITTEN_EARLY:
        assert order.index(("tool_use", tool)) < order.index(("tool_result", tool))
