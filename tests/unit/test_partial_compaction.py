"""Stops after a partial compaction: the prompts a boundary preserved are stops, as the picker of
a resumed session lists them, and cuts stack on them. Sessions are shaped like Claude Code
2.1.332's (attachments on the parent chain, bookkeeping lines, "Summarize up to here")."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from keepd.api import analyse_file
from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState, read_current
from keepd.core.tree import Scope
from keepd.cut.load import load
from keepd.cut.model import Placement
from keepd.cut.plan import plan_cut, resolve_stop
from keepd.cut.summary import SummaryRequest
from keepd.cut.write import apply
from tests.cut_kit import context, continued
from tests.unit.builders import (
    Chain,
    attachment,
    bookkeeping,
    compact_boundary,
    compact_summary,
    summarized_up_to,
    tool_result,
    tool_use_block,
    user,
)
from tests.unit.cut_sessions import write_session

TOPICS = ("tokenizer grammar", "precedence climbing", "lexer errors", "docs screenshots")


def working_turn(chain: Chain, n: int, topic: str) -> str:
    """One 2.1.332 turn: prompt, attachments, a response of two lines (text, tool call), the
    result, a closing reply, and the bookkeeping around them; returns the prompt's uuid."""
    chain.add(bookkeeping("queue-operation", operation="enqueue", content=topic))
    prompt = chain.prompt(f"turn {n}: work on the {topic}", promptId=f"p{n}")
    chain.add(attachment(f"at{n}", prompt, "date", "Today's date is 2025-06-01."))
    chain.reply(f"looking at the {topic} first", context=10_000 * n)
    tool = f"toolu_{n}"
    chain.reply([tool_use_block(tool, command="echo ok")], context=10_000 * n)
    chain.entries[-1]["message"]["id"] = chain.entries[-2]["message"]["id"]  # one response
    chain.add(tool_result(f"r{n}", chain.last or "", tool, "ok"))
    chain.add(attachment(f"snap{n}", f"r{n}", "prompt_snapshot", systemPrompt=["You are..."]))
    chain.reply(f"the {topic} is done", context=10_000 * n + 500)
    chain.add(bookkeeping("api-request", id=f"req{n}", tail=["hash"] * 3))
    chain.add(bookkeeping("cost-state", totalCostUSD=0.1 * n))
    return prompt


def session(turns: int = 4) -> tuple[Chain, list[str]]:
    chain = Chain()
    prompts = [working_turn(chain, n + 1, TOPICS[n % len(TOPICS)]) for n in range(turns)]
    return chain, prompts


def summarize_up_to(chain: Chain, head: str) -> list[str]:
    """Claude Code's "Summarize up to here" at prompt `head`: the uuids it keeps."""
    messages = [e for e in chain.entries if e.get("type") in ("user", "assistant", "attachment")]
    at = next(i for i, e in enumerate(messages) if e["uuid"] == head)
    kept = [str(e["uuid"]) for e in messages[at:]]
    before = str(messages[at - 1]["uuid"])
    for entry in summarized_up_to("b-native", "s-native", before, kept):
        chain.add(entry)
    chain.add(attachment("at-after", "s-native", "skill_listing", "The following skills..."))
    return kept


def quotes(data: bytes, scope: Scope = Scope.CURRENT) -> list[tuple[str, bool]]:
    state = SessionState(scope)
    state.feed(data)
    state.finish()
    return [(stop.quote, stop.in_picker) for stop in analyse_state(state).stops]


def test_native_summarize_up_to_here_keeps_its_prompts_as_stops() -> None:
    chain, prompts = session()
    summarize_up_to(chain, prompts[1])
    data = chain.jsonl()
    listed = [(f"turn {n}: work on the {TOPICS[n - 1]}", True) for n in (2, 3, 4)]
    assert quotes(data) == listed
    # The whole history runs through the kept turns (its logical parent is before them).
    assert quotes(data, Scope.WHOLE) == [("turn 1: work on the tokenizer grammar", False), *listed]


def test_the_skim_starts_at_a_preserving_boundary_and_analyses_alike() -> None:
    chain, prompts = session(6)
    summarize_up_to(chain, prompts[3])
    chain.prompt("turn 7: and the release notes")
    data = chain.jsonl()
    skimmed, whole = read_current(data), SessionState()
    whole.feed(data)
    whole.finish()
    assert skimmed.tree.partial
    assert analyse_state(skimmed).to_dict() == analyse_state(whole).to_dict()
    assert [s.quote[:6] for s in analyse_state(skimmed).stops] == [
        "turn 4",
        "turn 5",
        "turn 6",
        "turn 7",
    ]


def test_compact_keeps_the_last_response_and_lists_the_command() -> None:
    chain, _ = session()
    last = chain.last or ""
    chain.add(compact_boundary("b-c", last, preserved=("s-c", [last]), trigger="manual"))
    chain.add(compact_summary("s-c", "b-c", full=False))
    chain.add(
        user("caveat", "s-c", "<local-command-caveat>Caveat</local-command-caveat>", isMeta=True)
    )
    chain.add(user("cmd", "caveat", "<command-name>/compact</command-name>"))
    chain.add(user("out", "cmd", "<local-command-stdout>Compacted</local-command-stdout>"))
    chain.last = "out"
    chain.prompt("turn 5: the changelog")
    data = chain.jsonl()
    assert [q for q, _ in quotes(data)] == [
        "/compact",  # as the picker shows it (core/quote.py)
        "turn 5: the changelog",
    ]
    assert read_current(data).tree.partial


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_followed_in_pieces_equals_read_whole_across_partial_compactions(seed: int) -> None:
    chain, prompts = session(5)
    summarize_up_to(chain, prompts[2])
    working_turn(chain, 6, "release notes")
    data = chain.jsonl()
    rng = random.Random(seed)
    for scope in Scope:
        followed = SessionState(scope)
        at = 0
        while at < len(data):
            end = min(len(data), at + rng.randint(1, 900))
            followed.feed(data[at:end])
            followed.branch()
            at = end
        whole = SessionState(scope)
        whole.feed(data)
        assert analyse_state(followed).to_dict() == analyse_state(whole).to_dict()


def _cut(path: Path, at: str) -> list[str]:
    loaded = load(path)
    stop = resolve_stop(loaded.analysis, at)
    plan = plan_cut(
        loaded, stop, Placement.FIRST, SummaryRequest(text="parser work", origin="test")
    )
    apply(plan)
    assert context(path) == list(plan.written.intended)
    assert continued(path, plan.written.tail) == list(plan.written.intended)
    return list(plan.preserved)


def test_a_cut_at_a_kept_prompt_and_a_second_cut_stack(tmp_path: Path) -> None:
    chain, prompts = session(5)
    summarize_up_to(chain, prompts[1])  # keeps turns 2-5
    path = write_session(tmp_path, chain)
    kept = _cut(path, prompts[2])  # a prompt the native boundary kept
    assert kept[0] == prompts[2]
    after = analyse_file(path)
    assert [s.uuid for s in after.stops] == prompts[2:]
    assert all(s.in_picker for s in after.stops)
    assert _cut(path, prompts[4])[0] == prompts[4]  # kept by keepd's own boundary
    again = analyse_file(path)
    assert [s.uuid for s in again.stops] == [prompts[4]]
    assert read_current(path.read_bytes()).tree.partial  # the skim starts at keepd's boundary
    assert again.to_dict() == analyse_state(_whole(path), path=str(path)).to_dict()


def _whole(path: Path) -> SessionState:
    state = SessionState()
    state.feed(path.read_bytes())
    state.finish()
    return state


REAL = Path(__file__).resolve().parents[1] / "data" / "claude-2.1.332-summarize-up-to.jsonl"


def test_a_real_transcript_after_summarize_up_to_here() -> None:
    """Claude Code 2.1.332 itself, 4 turns, "Summarize up to here" at prompt 2 (made with
    tests/claude's fake API and tmux; long bookkeeping values trimmed to keep the file small)."""
    data = REAL.read_bytes()
    listed = [f"prompt {n} about topic{n} words" for n in (2, 3, 4)]
    assert [q for q, _ in quotes(data)] == listed
    whole = quotes(data, Scope.WHOLE)
    assert whole == [("prompt 1 about topic1 words", False), *((q, True) for q in listed)]
    skimmed = read_current(data)
    assert skimmed.tree.partial
    full = SessionState()
    full.feed(data)
    assert analyse_state(skimmed).to_dict() == analyse_state(full).to_dict()
