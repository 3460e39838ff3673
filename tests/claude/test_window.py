"""keepd's window and auto-compact point against the real client: every model keepd lists has
the window and output limit 2.1.332 reports for it (`modelUsage` of `claude -p`; for the two it
no longer serves, `REPLACED`, the client's answer is checked to be the model it serves instead,
so their own 200k entries stand on the registry alone), model settings resolve as the client
resolves them, a session of
the default model with no configuration is read with its 1M window, and the client compacts by
itself past the point keepd computes from `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE`, not before."""

from __future__ import annotations

import json
import re

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


@pytest.mark.parametrize(
    "case",
    [  # settings, keepd's trigger and its source, whether the client compacts
        ({"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "2"}}, 19_600, "environment", True),
        ({"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "3"}}, 29_400, "environment", False),
    ],
)
def test_the_client_compacts_past_keepds_trigger(
    world: World, fake_api: FakeApi, case: tuple[dict[str, object], int, str, bool]
) -> None:
    settings, trigger, source, compacts = case
    world.write_settings(**settings)
    session_id = world.print_turn("hello")["session_id"]
    world.print_turn(LONG, resume=session_id)  # a compaction needs an earlier reply to keep
    before = world.report(session_id)["context"]
    assert (before["trigger"], before["trigger_source"]) == (trigger, source)
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


def test_a_200k_model_has_no_auto_compact_point_of_its_own(world: World, fake_api: FakeApi) -> None:
    """Without a setting, 2.1.332 gives a 200k model no threshold to log (its window's source is
    "auto"), and does not compact even 1,000 tokens short of the window."""
    extra = ("--model", "claude-haiku-4-5")
    fake_api.queue(Reply(text="Read it.", input_tokens=199_000))
    session_id = world.print_turn("hello", extra=extra)["session_id"]
    context = world.report(session_id)["context"]
    assert (context["trigger"], context["trigger_source"]) == (200_000, "window")
    world.run("-p", "next", "--resume", session_id, "--debug", *extra)
    logs = [log.read_text(errors="replace") for log in (world.config / "debug").glob("*")]
    assert logs and not any("autocompact:" in text for text in logs)
    assert not _compactions(world, session_id)


@pytest.mark.parametrize(
    "case",
    [  # settings, model, keepd's trigger and its source
        ({}, None, 967_000, "model"),  # 1M - 20k room - 13k
        ({"autoCompactWindow": 150_000}, "claude-haiku-4-5", 117_000, "settings"),
        ({"autoCompactWindow": 300_000}, None, 267_000, "settings"),
        ({"env": {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "400000"}}, None, 367_000, "environment"),
        ({"env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}}, None, 490_000, "environment"),
    ],
)
def test_keepds_trigger_is_the_threshold_the_client_logs(
    world: World, fake_api: FakeApi, case: tuple[dict[str, object], str | None, int, str]
) -> None:
    """A reply that says it saw more tokens than the messages hold makes 2.1.332 log its
    threshold (`autocompact: fixed prefix ~N > threshold T`) on the next turn."""
    settings, model, trigger, source = case
    world.write_settings(**settings)
    extra = ("--model", model) if model else ()
    fake_api.queue(Reply(text="Read it.", input_tokens=trigger + 5_000))
    session_id = world.print_turn("hello", extra=extra)["session_id"]
    context = world.report(session_id)["context"]
    assert (context["trigger"], context["trigger_source"]) == (trigger, source)
    done = world.run("-p", "next", "--resume", session_id, "--debug", *extra)
    logged = [
        line
        for log in (world.config / "debug").glob("*")
        for line in log.read_text(errors="replace").splitlines()
        if "autocompact: fixed prefix" in line
    ]
    assert logged, done.stderr[-400:]
    assert re.search(r"> threshold (\d+)", logged[-1]).group(1) == str(trigger)  # type: ignore[union-attr]
