"""Stops after a partial compaction, against the real Claude Code: after its own "Summarize up to
here" and after a keepd cut at a prompt that compaction kept, the resumed picker lists exactly
keepd's stops, and the next request carries the context keepd promised."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from keepd.api import analyse_file
from tests.claude import picker
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, Request
from tests.claude.tmux import Tmux
from tests.cut_kit import age

COMPACTING = "CRITICAL: Respond with TEXT ONLY"
SUMMARY = "<analysis>a</analysis>\n<summary>1. Primary Request: the parser's tokenizer.</summary>"
PROMPTS = [f"prompt {n}: the parser step {n} and its tokenizer" for n in range(1, 6)]


def _model(request: Request) -> Reply:
    if COMPACTING in request.joined()[-4000:]:
        return Reply(text=SUMMARY)
    return Reply(text=f"Answer {len(request.body.get('messages', []))}: the step is done.")


def _session(world: World, api: FakeApi) -> str:
    api.responder = _model
    session: str | None = None
    for prompt in PROMPTS:
        session = str(world.print_turn(prompt, resume=session)["session_id"])
    assert session is not None
    return session


def _resumed(tmux_ui: Callable[..., Tmux], session: str) -> Tmux:
    ui = tmux_ui("--resume", session)
    ui.wait_for("❯", timeout=40)
    ui.wait_stable()
    return ui


def _picker_entries(tmux_ui: Callable[..., Tmux], session: str) -> list[str]:
    ui = _resumed(tmux_ui, session)
    picker.open_picker(ui)
    rows = picker.all_entries(ui)
    ui.close()
    assert rows[-1].startswith(picker.CURRENT)
    return rows[:-1]


def _summarize_up_to(tmux_ui: Callable[..., Tmux], session: str, presses: int) -> None:
    """Esc Esc, ↑ `presses` times from "(current)", Enter, "Summarize up to here", Enter."""
    ui = _resumed(tmux_ui, session)
    picker.open_picker(ui)
    picker.move(ui, "Up", presses)
    ui.keys("Enter")
    menu = ui.wait_for("Summarize up to here", timeout=15).splitlines()
    options = [line for line in menu if any(w in line for w in ("Restore", "Summarize", "Never"))]
    target = next(i for i, line in enumerate(options) if "Summarize up to here" in line)
    selected = next(i for i, line in enumerate(options) if "❯" in line)
    ui.keys(*["Down"] * (target - selected), "Enter")
    ui.wait_for("Summarized", timeout=60)
    ui.wait_stable(quiet=1.0)
    ui.close()


def _matches(rows: list[str], quotes: list[str]) -> bool:
    """Whether the picker's rows are keepd's stops, one for one (a slash command's row shows
    its name, `/compact`, where the prompt's text holds `<command-name>/compact</...>`)."""
    shown = [_COMMAND.sub(r"\1", quote).strip() for quote in quotes]
    return len(rows) == len(quotes) and all(
        text.startswith(row.rstrip("…").strip()[:40]) for row, text in zip(rows, shown, strict=True)
    )


_COMMAND = re.compile(r"<command-name>(/\S+?)</command-name>.*")


def test_native_summarize_up_to_here_then_a_stacked_keepd_cut(
    world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]
) -> None:
    session = _session(world, fake_api)
    _summarize_up_to(tmux_ui, session, presses=4)  # prompt 2: turns 2-5 are kept
    path = world.transcript(session)
    stops = analyse_file(path).stops
    assert [s.quote for s in stops] == PROMPTS[1:]
    rows = _picker_entries(tmux_ui, session)
    assert _matches(rows, [s.quote for s in stops]), rows

    # keepd's own cut at prompt 4, which the native boundary kept, stacks on it.
    _settled(path)
    age(path)  # Claude Code has quit: the file is at rest
    _keepd("cut", str(path), "--at", stops[2].uuid, "--summary-file", "-", text="parser notes")
    after = analyse_file(path).stops
    assert [s.quote for s in after] == PROMPTS[3:]
    world.print_turn("prompt 6: the docs", resume=session)
    sent = fake_api.conversation()[-1].texts()
    assert not any(PROMPTS[1] in text or PROMPTS[2] in text for text in sent)
    order = [next(i for i, t in enumerate(sent) if p in t) for p in [*PROMPTS[3:], "prompt 6"]]
    assert order == sorted(order)
    rows = _picker_entries(tmux_ui, session)
    assert _matches(rows, [s.quote for s in analyse_file(path).stops]), rows


def _settled(path: Path, quiet: float = 1.5, timeout: float = 20.0) -> None:
    """Waits until a Claude Code that was just closed has stopped writing the file."""
    deadline = time.monotonic() + timeout
    last = path.stat().st_mtime_ns
    since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = path.stat().st_mtime_ns
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise AssertionError(f"{path.name} kept changing for {timeout} s")


def _keepd(*args: str, text: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "keepd", *args],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_made_session_with_compact_lists_what_keepd_counts(
    world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]
) -> None:
    session = _session(world, fake_api)
    world.print_turn("/compact", resume=session)
    world.print_turn("prompt 6: after the compaction", resume=session)
    path: Path = world.transcript(session)
    quotes = [s.quote for s in analyse_file(path).stops]
    assert quotes[-1] == "prompt 6: after the compaction"
    assert _matches(_picker_entries(tmux_ui, session), quotes)
