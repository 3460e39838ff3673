"""The rewind menu, live and resumed, against the real Claude Code: keepd tells from the file
which menu a stop gets (six options when a tracked file was edited after it, else four), and
its steps, followed key by key (Esc Esc, ↑, Enter, ↓), land on "Summarize up to here" in both
menus; pressing Enter there summarizes."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from keepd.core import steps
from tests.claude import picker
from tests.claude.client import World
from tests.claude.fake_api import FakeApi
from tests.claude.scripted import model
from tests.claude.tmux import Tmux

PROMPTS = [
    "prompt 1: DO READ src0.py", "prompt 2: DO WRITE new.py", "prompt 3: DO EDIT new.py",
    "prompt 4: plain talk about the parser", "prompt 5: DO READ src1.py",
]


def _live(world: World, api: FakeApi, tmux_ui: Callable[..., Tmux]) -> Tmux:
    for n in range(2):
        (world.cwd / f"src{n}.py").write_text(f"x = {n}\n" * 50)
    api.responder = model(world)
    ui = tmux_ui("--dangerously-skip-permissions")
    ui.wait_for("❯", timeout=60)
    ui.wait_stable(quiet=1.0, timeout=60)
    for prompt in PROMPTS:
        asked = len(api.conversation())
        ui.type(prompt)
        time.sleep(0.3)
        ui.keys("Enter")
        deadline = time.monotonic() + 60
        while len(api.conversation()) == asked and time.monotonic() < deadline:
            time.sleep(0.1)
        ui.wait_stable(quiet=1.5, timeout=60)
    return ui


def _follow(ui: Tmux, stop: dict[str, Any]) -> list[str]:
    """Does what keepd's steps for `stop` say, up to the menu's last ↓; returns the menu."""
    said: dict[str, Any] | None = steps.as_json(SimpleNamespace(**stop))
    assert said is not None
    picker.open_picker(ui)
    reached = picker.move(ui, "Up", said["presses"])
    assert picker.same_row(picker.selected_text(reached), stop["quote"])
    ui.keys("Enter")
    ui.wait_for("Never mind", timeout=15)
    time.sleep(1.0)  # the menu learns whether code changed after it opens
    options, cursor = picker.menu_options(ui.wait_stable(quiet=0.8))
    assert cursor == 0 and options[0].startswith("Restore"), options
    assert options == said["menu"], (options, said["text"])
    ui.keys(*["Down"] * said["downs"])
    options, cursor = picker.menu_options(ui.wait_stable(quiet=0.5))
    assert cursor is not None and options[cursor] == steps.OPTION, (options, cursor)
    return options


def _leave(ui: Tmux) -> None:
    for _ in range(3):
        ui.keys("Escape")
        time.sleep(0.4)
        if picker.FOOTER not in ui.screen() and "Never mind" not in ui.screen():
            break
    ui.wait_stable(quiet=0.6)


def _stops(world: World) -> dict[str, dict[str, Any]]:
    session = world.sessions()[-1].stem
    report = world.report(session)
    return {stop["quote"]: stop for stop in report["stops"]}


def _both_menus(ui: Tmux, world: World) -> None:
    stops = _stops(world)
    edited, plain = stops[PROMPTS[1]], stops[PROMPTS[3]]
    assert edited["code_changed"] and not plain["code_changed"]
    assert len(_follow(ui, edited)) == 6
    _leave(ui)
    assert len(_follow(ui, plain)) == 4
    _leave(ui)


def test_live_and_resumed_menus_are_the_ones_keepd_names_and_its_steps_reach_the_option(
    world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]
) -> None:
    ui = _live(world, fake_api, tmux_ui)
    _both_menus(ui, world)
    ui.close()
    session = world.sessions()[-1].stem
    resumed = tmux_ui("--dangerously-skip-permissions", "--resume", session)
    resumed.wait_for("❯", timeout=60)
    resumed.wait_stable(quiet=1.0, timeout=60)
    _both_menus(resumed, world)
    # Followed to the end, the steps summarize (the six-option menu's Enter), and the next
    # request is as large as keepd said the context would be (tests/claude/test_after_cut.py).
    stop = _stops(world)[PROMPTS[2]]
    _follow(resumed, stop)
    resumed.keys("Enter")
    resumed.wait_for("Conversation summarized", timeout=60)
    resumed.wait_stable(quiet=1.0)
    asked = len(fake_api.conversation())
    resumed.type("prompt 6: after the cut")
    time.sleep(0.3)
    resumed.keys("Enter")
    deadline = time.monotonic() + 60
    while len(fake_api.conversation()) == asked and time.monotonic() < deadline:
        time.sleep(0.1)
    sent = fake_api.conversation()[-1].size // 4
    print(f"live then resumed, cut at prompt 3: promised {stop['after']}, sent {sent}")
    assert abs(stop["after"] - sent) <= 0.15 * sent
