"""keepd's stops are the real picker's entries, and its printed instruction, followed key by key in
the real picker, selects the stop it names: on corpus sessions and on made ones."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.claude import picker
from tests.claude.client import World
from tests.claude.sessions import made, place_chain, place_file
from tests.claude.tmux import Tmux
from tests.conftest import SHARED

CORPUS = SHARED / "corpus" / "sessions"
CURRENT = "(current)"


# Sessions with prompts queued while Claude worked (`attachment` lines of type
# `queued_command`, `commandMode: "prompt"`, `origin.kind: "human"`): the picker lists them,
# keepd's reader does not make them stops yet.
QUEUED = {
    "Esdeveniments__esdeveniments-frontend__08_d4a731985108_0_full.jsonl",
    "ebridges__wakil__8V_01M039H7ZNMZ1B9XCQH5HCX18V_0_full.jsonl",
    "flop-labs__technocore-chat__0V_01KZXV7XM5EW6P4TW5GVW90Y0V_0_full.jsonl",
}


def _corpus() -> list[Any]:
    """Main corpus sessions (sub-agent files are not sessions of their own), by name."""
    if not CORPUS.is_dir():
        return []
    names = sorted(p.name for p in CORPUS.glob("*.jsonl") if "agent-" not in p.name)
    queued = pytest.mark.xfail(strict=True, reason="queued prompts are picker entries, not stops")
    return [pytest.param(name, marks=[queued] if name in QUEUED else []) for name in names]


def same_row(shown: str, quote: str) -> bool:
    """Whether the picker's row is keepd's quote: the same text up to where either is cut
    ("…"), spacing aside (the terminal turns tabs into spaces)."""
    row, ours = " ".join(shown.split()).rstrip("…"), " ".join(quote.split()).rstrip("…")
    if not row or not ours:
        return row == ours
    return row.startswith(ours) or ours.startswith(row)


def resume(tmux_ui: Callable[..., Tmux], session_id: str) -> Tmux:
    ui = tmux_ui("--resume", session_id)
    ui.wait_for("❯", timeout=60)
    ui.wait_stable(quiet=0.8, timeout=60)
    return ui


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
    entries = picker.all_entries(ui)
    assert entries[-1] == CURRENT
    assert len(entries) - 1 == len(stops), (entries, [s["quote"] for s in stops])
    wrong = [(row, stop["quote"]) for row, stop in zip(entries, stops, strict=False)
             if not same_row(row, stop["quote"])]
    assert not wrong


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
