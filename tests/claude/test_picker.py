"""keepd's stops are the real picker's entries, and its printed instruction, followed key by key in
the real picker, selects the stop it names: on corpus sessions and on made ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.claude import picker
from tests.claude.client import World
from tests.claude.picker import CURRENT, resume, same_row
from tests.claude.sessions import made, place_chain, place_file
from tests.claude.tmux import Tmux
from tests.conftest import SHARED

CORPUS = SHARED / "corpus" / "sessions"


def _corpus() -> list[str]:
    """Main corpus sessions (sub-agent files are not sessions of their own), by name."""
    if not CORPUS.is_dir():
        return []
    return sorted(p.name for p in CORPUS.glob("*.jsonl") if "agent-" not in p.name)


def follow(ui: Tmux, steps: dict[str, Any]) -> picker.Window:
    """Does what keepd's instruction says: Esc Esc, then ↑ the number of times it names."""
    opened = picker.open_picker(ui)
    assert picker.selected_text(opened) == CURRENT, "the picker no longer opens on (current)"
    return picker.move(ui, "Up", steps["presses"])


def check_instruction_and_entries(ui: Tmux, report: dict[str, Any]) -> None:
    steps = report["steps"]
    stops = [stop for stop in report["stops"] if stop["in_picker"]]
    target = next(stop for stop in stops if stop["uuid"] == steps["stop"])
    assert f"the row reads “{' '.join(target['quote'].split())[:20]}" in steps["text"]
    reached = follow(ui, steps)
    assert same_row(picker.selected_text(reached), target["quote"]), (
        f"{steps['text']!r} selected {picker.selected_text(reached)!r}"
    )
    picker.assert_rows_are_stops(picker.all_entries(ui), stops)


@pytest.mark.parametrize("name", _corpus())
def test_corpus_session_instruction_selects_the_stop_and_entries_are_the_stops(
    name: str, shared: Path, world: World, tmux_ui: Callable[..., Tmux]
) -> None:
    session_id = place_file(world, shared / "corpus" / "sessions" / name)
    report = world.report(session_id)
    if report["steps"] is None:
        pytest.skip("keepd names no stop here (no pick, no trade)")
    check_instruction_and_entries(resume(tmux_ui, session_id), report)


@pytest.mark.parametrize("prompts", [3, 15, 16, 60])
def test_made_session_instruction_selects_the_stop(
    prompts: int, world: World, tmux_ui: Callable[..., Tmux]
) -> None:
    session_id = place_chain(world, made(prompts))
    report = world.report(session_id)
    assert report["steps"] is not None, "a made session of four topics has a pick or a trade"
    assert len(report["stops"]) == prompts
    check_instruction_and_entries(resume(tmux_ui, session_id), report)
