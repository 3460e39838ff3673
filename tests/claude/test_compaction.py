"""Stops after a partial compaction: after keepd's cut and prune, Claude Code's own "Summarize
up to here" and its `/compact`, `keepd report` lists the stops the resumed session's picker
shows (the kept prompts included)."""

from __future__ import annotations

from collections.abc import Callable

from tests.claude import picker
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply
from tests.claude.sessions import made, place_chain
from tests.claude.tmux import Tmux
from tests.cut_kit import age

NEXT = "Next prompt after the compaction"
SUMMARY = "<summary>The parser and the database work, done.</summary>"


def made_session(world: World, fake_api: FakeApi) -> str:
    fake_api.responder = lambda request: Reply(text=SUMMARY)
    session_id = place_chain(world, made(16))
    age(world.transcript(session_id))
    return session_id


def picker_matches_report(world: World, tmux_ui: Callable[..., Tmux], session_id: str) -> None:
    """Resumes the session, reads every picker row and sets them against keepd's stops."""
    report = world.report(session_id)
    ui = picker.resume(tmux_ui, session_id)
    picker.open_picker(ui)
    picker.assert_rows_are_stops(picker.all_entries(ui), report["stops"])


def test_after_keepd_cut(world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]) -> None:
    session_id = made_session(world, fake_api)
    world.keepd("cut", session_id, "--pick", "--no-summary")
    world.print_turn(NEXT, resume=session_id)
    picker_matches_report(world, tmux_ui, session_id)


def test_after_keepd_prune(world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]) -> None:
    session_id = made_session(world, fake_api)
    world.keepd("prune", session_id, "--keep-last", "2", "--working", "2")
    world.print_turn(NEXT, resume=session_id)
    picker_matches_report(world, tmux_ui, session_id)


def test_after_native_compact(
    world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]
) -> None:
    session_id = made_session(world, fake_api)
    world.print_turn("/compact", resume=session_id)
    assert '"compact_boundary"' in world.transcript(session_id).read_text()
    world.print_turn(NEXT, resume=session_id)
    picker_matches_report(world, tmux_ui, session_id)


def test_after_native_summarize_up_to_here(
    world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]
) -> None:
    session_id = made_session(world, fake_api)
    report = world.report(session_id)
    ui = picker.resume(tmux_ui, session_id)
    picker.open_picker(ui)
    picker.move(ui, "Up", report["steps"]["presses"])
    ui.keys("Enter")
    ui.wait_for("Summarize up to here")
    ui.keys(*["Down"] * report["steps"]["downs"], "Enter")  # keepd's steps, as they say
    path = world.transcript(session_id)
    ui.wait_for(lambda screen: '"direction":"up_to"' in path.read_text(), timeout=60)
    ui.wait_stable(quiet=1.0, timeout=60)
    ui.close()
    world.print_turn(NEXT, resume=session_id)
    picker_matches_report(world, tmux_ui, session_id)
