"""What keepd registers in Claude Code's settings shows up in the real client: the status line's
text in the pane, and the PreCompact hook's instructions inside the compaction request."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from keepd.claude.hooks import instructions_for
from keepd.core.limits import MODELS
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply
from tests.claude.sessions import made, place_chain
from tests.claude.tmux import Tmux

KEEPD = f"{sys.executable} -m keepd"
COMPACTION = "When you summarize this conversation"


@pytest.fixture
def daemon(world: World) -> Iterator[subprocess.Popen[bytes]]:
    """keepd's daemon following the world's sessions (its socket in a short folder)."""
    runtime = Path(tempfile.mkdtemp(prefix="kr", dir="/tmp"))
    world.extra_env["XDG_RUNTIME_DIR"] = str(runtime)
    log = (world.root / "daemon.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "keepd", "run"], env=world.env(),
                               cwd=world.cwd, stdout=log, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        process.terminate()
        process.wait(15)
        log.close()
        shutil.rmtree(runtime, ignore_errors=True)


def _followed(world: World, session_id: str, timeout: float = 30.0) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = world.keepd("sessions", "--json", "--all", check=False)
        if done.returncode == 0 and "no daemon" not in done.stderr:
            for item in json.loads(done.stdout):
                if item["session_id"] == session_id and item.get("below") is not None:
                    return dict(item)
        time.sleep(0.3)
    raise AssertionError(f"the daemon never analysed {session_id}: {done.stderr}")


def test_status_line_shows_the_instruction(
    world: World, daemon: subprocess.Popen[bytes], tmux_ui: Callable[..., Tmux]
) -> None:
    world.write_settings(statusLine={"type": "command", "command": f"{KEEPD} statusline --plain",
                                     "padding": 0})
    session_id = place_chain(world, made(16))
    item = _followed(world, session_id)
    presses = int(str(item["below"])) + 1
    ui = tmux_ui("--resume", session_id)
    screen = ui.wait_for(f"Esc Esc ↑{presses}", timeout=45)
    line = next(row for row in screen.splitlines() if f"Esc Esc ↑{presses}" in row)
    report = world.report(session_id)
    assert report["steps"]["presses"] == presses
    stop = next(s for s in report["stops"] if s["uuid"] == report["steps"]["stop"])
    assert line.strip().startswith("keepd ")
    assert f"Enter ↓{report['steps']['downs']} · leaves ~" in line, (line, stop["after"])


def test_the_status_lines_window_reaches_the_report(
    world: World, daemon: subprocess.Popen[bytes], tmux_ui: Callable[..., Tmux]
) -> None:
    seen = world.root / "status-input.json"
    command = f"tee {seen} | {KEEPD} statusline --plain"
    world.write_settings(statusLine={"type": "command", "command": command, "padding": 0})
    session_id = place_chain(world, made(16))
    _followed(world, session_id)
    ui = tmux_ui("--resume", session_id)
    ui.wait_for("Esc Esc ↑", timeout=45)
    said = json.loads(seen.read_text())
    told = said["context_window"]
    # the resumed session keeps its replies' model; keepd's table has the window the line names
    assert MODELS[said["model"]["id"]].window == told["context_window_size"]
    deadline = time.monotonic() + 30
    context = world.report(session_id)["context"]
    while context["window_source"] != "status line" and time.monotonic() < deadline:
        time.sleep(0.3)
        context = world.report(session_id)["context"]
    assert (context["window"], context["window_source"]) == (
        told["context_window_size"], "status line"
    )
    if told.get("used_percentage") is not None:
        assert context["claude_share"] == round(told["used_percentage"] / 100, 4)


def test_a_new_session_of_the_default_model_reads_as_claude_code_says(
    world: World, daemon: subprocess.Popen[bytes], tmux_ui: Callable[..., Tmux]
) -> None:
    """No configuration, a prompt typed into a new session: the status line names the default
    model's 1M window and its share, and `keepd report --json` says both."""
    seen = world.root / "status-input.json"
    command = f"tee {seen} | {KEEPD} statusline --plain"
    world.write_settings(statusLine={"type": "command", "command": command, "padding": 0})
    ui = tmux_ui()
    ui.wait_for("keepd", timeout=45)
    ui.type("hello there")
    ui.keys("Enter")
    deadline = time.monotonic() + 45
    said: dict[str, Any] = {}
    while time.monotonic() < deadline:
        said = json.loads(seen.read_text()) if seen.exists() else {}
        if said.get("context_window", {}).get("used_percentage") is not None:
            break
        time.sleep(0.3)
    told = said["context_window"]
    assert (said["model"]["id"], told["context_window_size"]) == ("claude-opus-5-5", 1_000_000)
    session_id = said["session_id"]
    context = world.report(session_id)["context"]
    while context["window_source"] != "status line" and time.monotonic() < deadline:
        ui.keys("Escape")  # a repaint: the status line asks the daemon again
        time.sleep(0.3)
        context = world.report(session_id)["context"]
    assert (context["window"], context["window_source"]) == (1_000_000, "status line")
    assert context["claude_share"] == round(told["used_percentage"] / 100, 4)
    assert context["share"] == round(context["tokens"] / 1_000_000, 4)


def test_precompact_hook_instructions_reach_the_compaction_request(
    world: World, fake_api: FakeApi
) -> None:
    hook = {"type": "command", "command": f"{KEEPD} hook precompact --manual", "timeout": 60}
    world.write_settings(hooks={"PreCompact": [{"matcher": "manual|auto", "hooks": [hook]}]})
    session_id = place_chain(world, made(16))
    expected = instructions_for(world.transcript(session_id))
    assert expected.startswith(COMPACTION)
    fake_api.responder = lambda request: Reply(text="<summary>The work so far.</summary>")
    world.print_turn("/compact", resume=session_id)
    [compaction] = [r for r in fake_api.messages_posts() if COMPACTION in r.joined()]
    sent = compaction.joined()
    assert all(line in sent for line in expected.splitlines())
