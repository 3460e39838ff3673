"""The live story, as a person meets it: keepd's daemon follows an interactive Claude Code 2.1.332
in tmux (prompts typed, the fake API replying with Read, Write, Edit and Bash calls), two tasks
with a commit between them; the daemon's real notifier shows the notice on dunst (Xvfb, a private
D-Bus) after the turn that crosses the threshold, naming the prompt that starts the second task;
its steps, pressed as written, reach "Summarize up to here" (in the six-option menu when a file
was edited after the stop, the four-option one when none was); the request after the summary
holds the summary and the kept turns word for word; a restarted daemon does not repeat it.

The window is keepd's `watch.window` and the threshold low, so two small tasks cross it: the
last prompt reads a 500-line file, a jump of about 6k tokens, and the threshold sits inside it.
The project folder's path is the same few words in every run: its words are in every tool call
and result, and pytest's folder (the test's name, its number) sways where the words peak.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from keepd.core import steps
from tests.claude import picker
from tests.claude.client import Installed, World
from tests.claude.fake_api import FakeApi, Request
from tests.claude.requests import Item, file_items, sent_items
from tests.claude.scripted import SUMMARY, model
from tests.claude.tmux import Tmux, send_prompt
from tests.cut_kit import context
from tests.integration.daemon_kit import Daemon, PrivateBus, Tree, make_tree, running
from tests.integration.daemon_kit import wait_until as wait
from tests.integration.desktop import Dunst

WINDOW = 100_000
THRESHOLD = 0.29
TASK_ONE = [
    "Let's work on the parser. First read the tokenizer. DO READ tokenizer.py",
    "Write the parser with precedence climbing for binary operators. DO WRITE parser.py",
    "The grammar misses unary minus, fix the parser for it. DO EDIT parser.py",
    "Run the parser tests. DO RUN `ls`",
    "great, that works. commit it. DO RUN `git add -A && git commit -qm parser`",
]
AFTER = "After the cut: go on with the migration."
_UP = re.compile(r"↑ (once|(\d+) times) from “\(current\)”")
_ROW = re.compile(r"the row reads “(.+?)”")
_DOWN = re.compile(r"Enter, then ↓ (\d+) to “Summarize up to here”")
_worlds = itertools.count(1)


@pytest.fixture
def world(private_home: Path, fake_api: FakeApi, claude_code: Installed) -> Iterator[World]:
    """The conftest's world at /tmp/keepd-live-PID-N: words that do not change between runs."""
    root = Path("/tmp") / f"keepd-live-{os.getpid()}-{next(_worlds)}"
    shutil.rmtree(root, ignore_errors=True)
    yield World(root, fake_api.url, claude_code)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the client, hung up on, still writes as it exits
        shutil.rmtree(root, ignore_errors=True)
        time.sleep(1.0)
        if not root.exists():
            break


def task_two(edits: bool) -> list[str]:
    """The second task: its first prompt writes a file (edits after the stop) or reads one."""
    first = "DO WRITE migration.sql" if edits else "DO READ invoices.sql"
    return [
        f"Next task: the database migration for the invoices schema. {first}",
        "Which columns of the invoices table need an index for the migration?",
        "Check it against the customers table. DO READ customers.sql",
    ]


def _project(world: World) -> None:
    """The files the prompts work on, in a git repository (the commit is a real one)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (world.home / ".gitconfig").write_text("[user]\n\tname = Test\n\temail = t@example.com\n")
    for name, line, count in (
        ("tokenizer.py", "token = 1  # one token of the tokenizer\n", 900),
        ("invoices.sql", "create table invoices (a int);\n", 30),
        ("customers.sql", "alter table customers add column c int;\n", 500),
    ):
        (world.cwd / name).write_text(line * count)
    subprocess.run(["git", "init", "-q"], cwd=world.cwd, env=world.env(), check=True)


def _daemon_tree(tmp_path: Path, world: World, bus: PrivateBus) -> Tree:
    """keepd's daemon on the world's Claude Code folder, its notices to the private bus."""
    tree = make_tree(tmp_path / "daemon", watch={"window": WINDOW},
                     notify={"threshold": THRESHOLD})
    tree.env["CLAUDE_CONFIG_DIR"] = str(world.config)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    return tree


def _shown(dunst: Dunst) -> int:
    """Notifications dunst has shown: on screen, waiting, and in its history."""
    return sum(int(dunst.ctl("count", what).strip() or 0)
               for what in ("displayed", "waiting", "history"))


def _notice(dunst: Dunst) -> dict[str, str]:
    """The one notification dunst has shown, its summary and body as it displayed them."""
    wait(lambda: _shown(dunst) == 1, timeout=20)
    dunst.ctl("close-all")
    [shown] = wait(lambda: json.loads(dunst.ctl("history"))["data"][0], timeout=5)
    return {"summary": shown["summary"]["data"], "body": shown["body"]["data"]}


def _turns(ui: Tmux, api: FakeApi, world: World, daemon: Daemon, *, dunst: Dunst,
           prompts: list[str]) -> dict[str, Any]:
    """Types the prompts; before each, dunst has shown nothing; the last turn crosses the
    threshold (the daemon's own share says so). The analysis after it."""
    share = 0.0
    for prompt in prompts:
        assert _shown(dunst) == 0, f"a notice before the threshold (context {share:.1%})"
        send_prompt(ui, prompt, lambda: len(api.conversation()), 2 if "DO " in prompt else 1)
        path = world.sessions()[-1]
        daemon.settled(path)
        share = daemon.call("session", {"name": str(path)})["context"]["share"]
        print(f"{prompt[:40]!r}: context {share:.2%} of {WINDOW}")
        assert (share >= THRESHOLD) == (prompt == prompts[-1]), (prompt, share)
    analysis: dict[str, Any] = daemon.call("session", {"name": str(world.sessions()[-1])})
    return analysis


def _steps(body: str) -> tuple[int, str, int]:
    """The ↑ presses, the row and the ↓ presses the notice's body says, read as a person would."""
    assert body.startswith("Esc Esc → "), body
    up, row, down = _UP.search(body), _ROW.search(body), _DOWN.search(body)
    assert up and row and down, body
    assert body.index(down.group(0)) > body.index(row.group(0)) > body.index(up.group(0))
    return int(up.group(2) or 1), row.group(1), int(down.group(1))


def _follow(ui: Tmux, ups: int, row: str, downs: int, menu: tuple[str, ...]) -> None:
    """Esc Esc, ↑ `ups` times, Enter, ↓ `downs` times: the cursor on "Summarize up to here"."""
    picker.open_picker(ui)
    reached = picker.move(ui, "Up", ups)
    assert picker.same_row(picker.selected_text(reached), row), (reached, row)
    ui.keys("Enter")
    ui.wait_for("Never mind", timeout=15)
    time.sleep(1.0)  # the menu learns whether code changed after it opens
    options, cursor = picker.menu_options(ui.wait_stable(quiet=0.8))
    assert cursor == 0 and tuple(options) == menu, options
    ui.keys(*["Down"] * downs)
    options, cursor = picker.menu_options(ui.wait_stable(quiet=0.5))
    assert cursor is not None and options[cursor] == steps.OPTION, (options, cursor)


def _kept(path: Path, stop: str) -> list[Item]:
    """The items of the context from `stop` on, as the file holds them before the cut."""
    uuids = context(path)
    by_uuid = file_items(path)
    return [item for uuid in uuids[uuids.index(stop):] for item in by_uuid.get(uuid, [])
            if item != ("text", "")]


def _results(path: Path, stop: str) -> list[str]:
    """The texts of the tool results from `stop` on, as the file holds them."""
    uuids = set(context(path)[context(path).index(stop):])
    found: list[str] = []
    for raw in path.read_bytes().splitlines():
        entry = json.loads(raw)
        content = (entry.get("message") or {}).get("content")
        if entry.get("uuid") not in uuids or not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                found += [inner] if isinstance(inner, str) else [b["text"] for b in inner]
    return found


def _in_order(wanted: list[Item], sent: list[Item]) -> bool:
    """Whether `wanted` is `sent` with items left out (reminders the client adds)."""
    rest = iter(sent)
    return all(item in rest for item in wanted)


def _check_request(request: Request, kept: list[Item], results: list[str]) -> None:
    """The request after the cut: the summary, then the kept turns word for word, and not one
    prompt of the first task."""
    summary = SUMMARY.split("<summary>")[1].split("</summary>")[0].strip()
    sent = sent_items(request)
    at = next(i for i, (kind, text) in enumerate(sent) if kind == "text" and summary in text)
    assert _in_order([*kept, ("text", AFTER)], sent[at + 1:]), (kept, sent)
    texts = [text for kind, text in sent if kind == "text"]
    assert all(result in request.texts() for result in results)
    assert not [p for p in TASK_ONE if any(p in text for text in texts)]


@pytest.mark.parametrize("edits", [True, False], ids=["six-options", "four-options"])
def test_the_live_story(edits: bool, tmp_path: Path, *, world: World, fake_api: FakeApi,
                        tmux_ui: Callable[..., Tmux], bus: PrivateBus, desktop: Dunst) -> None:
    _project(world)
    fake_api.responder = model(world)
    tree = _daemon_tree(tmp_path, world, bus)
    prompts = TASK_ONE + task_two(edits)
    ui = tmux_ui("--dangerously-skip-permissions")
    ui.wait_for("❯", timeout=60)
    ui.wait_stable(quiet=1.0, timeout=60)
    with running(tree) as daemon:
        analysis = _turns(ui, fake_api, world, daemon, dunst=desktop, prompts=prompts)
        notice = _notice(desktop)
    path = world.sessions()[-1]
    pick = next(s for s in analysis["stops"] if s["uuid"] == analysis["pick"])
    assert notice["summary"].endswith(f"context {analysis['context']['share']:.0%}")
    ups, row, downs = _steps(notice["body"])
    assert picker.same_row(row, prompts[len(TASK_ONE)]), row  # the new work's first prompt
    assert pick["code_changed"] is edits
    with running(tree) as daemon:  # restarted: it remembers the notice and does not repeat it
        daemon.settled(path)
        time.sleep(3 * 0.3)  # thrice the debounce: the daemon has considered the session
        assert daemon.call("status")["notices_pending"] == 0
        assert daemon.call("status")["notices_sent"] == 1
        assert _shown(desktop) == 1
    kept, results = _kept(path, pick["uuid"]), _results(path, pick["uuid"])
    _follow(ui, ups, row, downs, steps.menu(edits))
    ui.keys("Enter")
    ui.wait_for("Conversation summarized", timeout=60)
    ui.wait_stable(quiet=1.0)
    send_prompt(ui, AFTER, lambda: len(fake_api.conversation()))
    _check_request(fake_api.conversation()[-1], kept, results)
