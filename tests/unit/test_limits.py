"""The window and the trigger of a session from each of their sources (core/limits.py), the
settings file and environment read outside the core (system/settings.py), and what the
status line told the daemon surviving its state file (ops/memory.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from keepd.core.limits import Settings, Setup, Told, limits, urgent_share
from keepd.ops.memory import Memory, load_memory, save_memory
from keepd.system.settings import claude_settings

OPUS = "claude-opus-5-5"  # 2.1.332's default: 1M window, 128k output (room 20k)
SONNET4 = "claude-sonnet-4-5"  # a 200k window that opens to 1M, 32k output (room 20k)


def test_window_sources() -> None:
    assert limits(OPUS, 41_898, None, Setup(window=300_000)).window_source == "option"
    told = limits(SONNET4, 0, None, Setup(told=Told(1_000_000, 0.04)))
    assert (told.window, told.window_source) == (1_000_000, "status line")
    found = limits(OPUS, 41_898, None, Setup())
    assert (found.window, found.window_source) == (1_000_000, "model")


def test_model_settings_usage_default_and_assumed() -> None:
    assert limits(SONNET4, 41_898, None, Setup()).window == 200_000
    wide = Setup(settings=Settings(model="claude-sonnet-4-5[1m]"))
    assert (
        limits(SONNET4, 1000, None, wide).window,
        limits(SONNET4, 1000, None, wide).window_source,
    ) == (1_000_000, "settings")
    alias = limits(None, 0, None, Setup(settings=Settings(model="haiku")))
    assert (alias.window, alias.window_source, alias.model) == (
        1_000_000,
        "settings",
        "claude-haiku-5-5",
    )
    assert limits(SONNET4, 250_000, None, Setup()).window_source == "usage"
    unknown = limits("claude-3-5-sonnet-20241022", 250_000, None, Setup())
    assert (unknown.window, unknown.window_source) == (1_000_000, "usage")
    assert limits("claude-3-5-sonnet-20241022", 1, None, Setup()).window_source == "assumed"
    nothing = limits(None, 0, None, Setup())
    assert (nothing.window, nothing.window_source, nothing.model) == (
        1_000_000,
        "default model",
        OPUS,
    )
    assert limits("claude-opus-4-5-20251101", 1, None, Setup()).model == "claude-opus-4-5"
    assert limits("claude-sonnet-4-20250514", 1, None, Setup()).model == "claude-sonnet-4-0"


@pytest.mark.parametrize(
    ("settings", "compacted", "expected"),
    [
        (Settings(), None, (967_000, "model")),  # 1M - 20k room - 13k
        (Settings(compact_window=400_000), None, (367_000, "settings")),
        (Settings(env_window=300_000, compact_window=400_000), None, (267_000, "environment")),
        (Settings(percent=50), None, (490_000, "environment")),  # half of 980k
        (Settings(auto_compact=False), None, (None, "off")),
        (Settings(), 500_123, (500_123, "compactions")),  # it compacted there by itself
        (Settings(percent=10), 500_123, (98_000, "environment")),
    ],
)
def test_trigger_sources(
    settings: Settings, compacted: int | None, expected: tuple[int | None, str]
) -> None:
    found = limits(OPUS, 1000, compacted, Setup(settings=settings))
    assert (found.trigger, found.trigger_source) == expected


def test_a_200k_window_and_the_urgent_point() -> None:
    found = limits(SONNET4, 1000, None, Setup())  # no auto-compact window of its own
    assert (found.trigger, found.trigger_source) == (200_000, "window")
    assert limits(SONNET4, 1000, 150_000, Setup()).trigger_source == "compactions"
    assert limits(SONNET4, 1000, None, Setup(settings=Settings(percent=50))).trigger == 200_000
    set_window = limits(SONNET4, 1000, None, Setup(settings=Settings(compact_window=200_000)))
    assert (set_window.trigger, set_window.trigger_source) == (167_000, "settings")
    context = {"window": set_window.window, "trigger": set_window.trigger}
    assert urgent_share(context, 0.95) == pytest.approx(0.79325)


def test_settings_file_and_environment(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    session = root / "projects" / "-w" / "s1.jsonl"
    session.parent.mkdir(parents=True)
    assert claude_settings(session, {}) == Settings()
    (root / "settings.json").write_text(
        json.dumps(
            {
                "model": "opus[1m]",
                "autoCompactWindow": 400000,
                "env": {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "60"},
            }
        )
    )
    read = claude_settings(
        session, {"DISABLE_AUTO_COMPACT": "1", "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "5"}
    )
    assert read == Settings(
        model="opus[1m]", compact_window=400_000, percent=60.0, auto_compact=False
    )
    (root / "settings.json").write_text(json.dumps({"autoCompactWindow": 99_999}))
    assert claude_settings(session, {}).compact_window is None  # the client drops it too
    (root / "settings.json").write_text("{not json")
    assert claude_settings(session, {"ANTHROPIC_MODEL": "sonnet"}).model == "sonnet"


def test_what_the_status_line_told_survives_a_restart(tmp_path: Path) -> None:
    memory = Memory()
    assert memory.tell("s1", Told(1_000_000, 0.04, 5.0))
    assert not memory.tell("s1", Told(1_000_000, 0.05, 6.0))  # only the share moved
    save_memory(tmp_path / "state.json", memory)
    again = load_memory(tmp_path / "state.json")
    assert again.told == {"s1": Told(1_000_000, 0.05, 6.0)}
