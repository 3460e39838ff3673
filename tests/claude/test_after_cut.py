"""The context keepd promises after "Summarize up to here" is the one Claude Code sends: at
several stops of sessions made by the real client (reads, writes and edits of real files), keepd's
`after` is within 15% of the next request's input tokens as the fake API counts them (its usage
figure, the request's bytes / 4, the same count the session's own usage was made with)."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from keepd.core import steps
from tests.claude import picker
from tests.claude.client import World
from tests.claude.fake_api import FakeApi
from tests.claude.scripted import model
from tests.claude.sessions import place
from tests.claude.tmux import Tmux

TOLERANCE = 0.15
NEXT = "prompt after the cut: go on"
PROMPTS = [
    "prompt 1: DO READ src0.py", "prompt 2: DO WRITE new.py", "prompt 3: plain talk",
    "prompt 4: DO READ src1.py", "prompt 5: DO EDIT new.py", "prompt 6: DO READ src2.py",
    "prompt 7: plain talk again", "prompt 8: DO WRITE other.py", "prompt 9: DO READ src0.py",
    "prompt 10: the last plain talk",
]


def _made(world: World, api: FakeApi, lines: int) -> bytes:
    """The session PROMPTS make, reading three modules of `lines` lines."""
    for n in range(3):
        (world.cwd / f"src{n}.py").write_text(f"value_{n} = {n}  # a line of the module\n" * lines)
    api.responder = model(world, lines=80)
    session: str | None = None
    for prompt in PROMPTS:
        session = str(world.print_turn(prompt, resume=session)["session_id"])
    assert session is not None
    return world.transcript(session).read_bytes()


def _cut_and_measure(
    world: World, api: FakeApi, tmux_ui: Callable[..., Tmux], stop: dict[str, Any]
) -> int:
    """Follows keepd's steps for `stop` to the end, sends NEXT; the next request's tokens."""
    said = steps.as_json(SimpleNamespace(**stop))
    assert said is not None
    ui = picker.resume(tmux_ui, world.sessions()[-1].stem)
    picker.open_picker(ui)
    picker.move(ui, "Up", said["presses"])
    ui.keys("Enter")
    ui.wait_for("Never mind", timeout=15)
    time.sleep(1.0)
    ui.keys(*["Down"] * said["downs"], "Enter")
    ui.wait_for("Conversation summarized", timeout=60)
    ui.wait_stable(quiet=1.0)
    asked = len(api.conversation())
    ui.type(NEXT)
    time.sleep(0.3)
    ui.keys("Enter")
    deadline = time.monotonic() + 60
    while len(api.conversation()) == asked and time.monotonic() < deadline:
        time.sleep(0.1)
    ui.close()
    request = api.conversation()[-1]
    assert NEXT in request.joined()
    return request.size // 4


# Modules of 120 lines come back whole; of 1,500 lines (about 14k tokens each) as references.
@pytest.mark.parametrize(("presses", "lines"), [(2, 120), (5, 120), (8, 120), (5, 1500)])
def test_the_promised_context_is_the_next_request(
    presses: int, lines: int, world: World, fake_api: FakeApi, tmux_ui: Callable[..., Tmux]
) -> None:
    data = _made(world, fake_api, lines)
    session = place(world, data.splitlines())  # a copy of its own: the cut changes it
    report = world.report(session)
    stop = next(s for s in report["stops"] if s["below"] == presses - 1)
    promised = stop["after"]
    sent = _cut_and_measure(world, fake_api, tmux_ui, stop)
    before = report["context"]["tokens"]
    print(f"stop ↑{presses}, {lines} lines: before {before}, promised {promised}, sent {sent}, "
          f"frees {stop['frees']:.0%}, error {promised / sent - 1:+.1%}")
    assert abs(promised - sent) <= TOLERANCE * sent
