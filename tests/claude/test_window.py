"""keepd's window and auto-compact point against the real client: every model keepd lists has
the window and output limit 2.1.332 reports for it (`modelUsage` of `claude -p`; for the two it
no longer serves, `REPLACED`, the client's answer is checked to be the model it serves instead,
so their own 200k entries stand on the registry alone), model settings resolve as the client
resolves them, a session of
the default model with no configuration is read with its 1M window, and the client compacts by
itself past the point keepd computes from `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, not before."""

from __future__ import annotations

import json

import pytest

from keepd.core.limits import API_IDS, MODELS, REPLACED, resolve
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply

# About 8,000 tokens of prompt as the fake API counts them (a quarter of the request's bytes).
LONG = "Here is the log of the failing build, line by line, for you to read. " * 460


@pytest.mark.parametrize("model", [*sorted(MODELS), *API_IDS])
def test_each_model_has_the_clients_window(world: World, model: str) -> None:
    result = world.print_turn("hello", extra=("--model", model))
    ((served, usage),) = result["modelUsage"].items()
    listed = API_IDS.get(model, model)
    known = resolve(served)[0]
    assert known == REPLACED.get(listed, listed) == resolve(model)[0]
    assert (usage["contextWindow"], usage["maxOutputTokens"]) == (
        MODELS[known].window,
        MODELS[known].output,
    )
    context = world.report(result["session_id"])["context"]
    assert (context["window"], context["window_source"]) == (usage["contextWindow"], "model")


def test_the_default_model_without_configuration(world: World) -> None:
    result = world.print_turn("hello")
    ((model, usage),) = result["modelUsage"].items()
    context = world.report(result["session_id"])["context"]
    assert model == context["model"] == "claude-opus-5-5"
    assert context["window"] == usage["contextWindow"] == 1_000_000
    assert context["window_source"] == "model"
    assert context["share"] == round(context["tokens"] / 1_000_000, 4)  # Claude Code's share
    assert (context["trigger"], context["trigger_source"]) == (967_000, "model")


def _compactions(world: World, session_id: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in world.transcript(session_id).read_text().splitlines()]
    return [e["compactMetadata"] for e in lines if e.get("subtype") == "compact_boundary"]


@pytest.mark.parametrize(("percent", "compacts"), [("2", True), ("3", False)])
def test_the_client_compacts_past_keepds_trigger(
    world: World, fake_api: FakeApi, percent: str, compacts: bool
) -> None:
    world.write_settings(env={"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": percent})
    session_id = world.print_turn("hello")["session_id"]
    world.print_turn(LONG, resume=session_id)  # a compaction needs an earlier reply to keep
    before = world.report(session_id)["context"]
    assert before["trigger_source"] == "environment"
    assert before["trigger"] == int(980_000 * int(percent) / 100)  # (1M - 20k room) x percent
    assert (before["tokens"] >= before["trigger"]) is compacts
    fake_api.responder = lambda request: Reply(text="<summary>The build log, read.</summary>")
    world.print_turn("and now?", resume=session_id)
    done = _compactions(world, session_id)
    assert bool(done) is compacts
    if compacts:
        assert done[0]["trigger"] == "auto"
        assert int(str(done[0]["preTokens"])) >= before["trigger"]


@pytest.mark.parametrize(
    "setting", ["opus", "sonnet", "haiku", "claude-sonnet-4-5[1m]", "opus[1m]"]
)
def test_a_model_setting_names_the_clients_model_and_window(world: World, setting: str) -> None:
    world.write_settings(model=setting)
    result = world.print_turn("hello")
    ((served, usage),) = result["modelUsage"].items()
    wanted, large = resolve(setting)
    assert served.removesuffix("[1m]") == wanted  # the client's name keeps the suffix
    window = 1_000_000 if large and MODELS[wanted].large else MODELS[wanted].window
    assert usage["contextWindow"] == window
    context = world.report(result["session_id"])["context"]
    assert context["window"] == window
