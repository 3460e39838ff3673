"""The daemon's notice with and without the reader: the real daemon, a private D-Bus with the
stand-in notification server, and the real Claude Code 2.1.332 as the reader against the fake
Messages API."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from keepd.core.reader import SYSTEM, safe
from keepd.ops.reader import read_for_reader
from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, Request
from tests.integration.daemon_kit import (
    PrivateBus,
    StandIn,
    Tree,
    append,
    example_lines,
    make_tree,
    need,
    running,
    wait_until,
)
from tests.integration.test_daemon_notify import crossing, register_running

CLAUDE_ENV = ("PATH", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "IS_SANDBOX")


def daemon_tree(tmp_path: Path, world: World, bus: PrivateBus, reader: bool) -> Tree:
    """The daemon's folders, its `claude` the world's (the real client, the fake API)."""
    tree = make_tree(tmp_path / "daemon", reader={"enabled": reader, "timeout_seconds": 60})
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    env = world.env()
    tree.env.update({key: env[key] for key in CLAUDE_ENV})
    tree.env.update({key: value for key, value in env.items() if key.startswith("DISABLE_")})
    tree.env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    register_running(tree)
    return tree


def notice_of(tree: Tree, server: StandIn, lines: list[bytes]) -> dict[str, Any]:
    path = tree.session()
    with running(tree) as daemon:
        for line in lines:
            append(path, line)
            time.sleep(0.002)
        [notice] = wait_until(server.calls, timeout=90)
        daemon.settled(path)
    return dict(notice)


def safe_row_elsewhere(path: Path) -> tuple[int, str]:
    """A row the curve calls safe that is not the local pick, and its quote."""
    read = read_for_reader(path)
    local = read.analysis
    for row in reversed(read.rows):
        stop = local.stop(row.uuid)
        if stop is not None and row.uuid != local.pick and stop.eligible and safe(stop, local):
            return row.number, stop.quote
    raise AssertionError("no safe row besides the pick")


def crossing_copy(folder: Path) -> tuple[list[bytes], Path]:
    """The example's lines up to the turn that crosses the threshold, and a copy of them in
    `folder` to read the analysis the daemon will make."""
    lines = example_lines()[: crossing(example_lines())]
    scratch = folder / "scratch.jsonl"
    scratch.write_bytes(b"".join(lines))
    return lines, scratch


@pytest.mark.parametrize("reader", [False, True], ids=["without", "with"])
def test_the_notice_with_and_without_the_reader(
    reader: bool, tmp_path: Path, world: World, fake_api: FakeApi, bus: PrivateBus
) -> None:
    need("dbus-send")
    tree = daemon_tree(tmp_path, world, bus, reader)
    lines, scratch = crossing_copy(tmp_path)
    local = read_for_reader(scratch).analysis
    row, quote = safe_row_elsewhere(scratch)

    def answer(request: Request) -> Reply:
        if SYSTEM in request.joined():
            return Reply(text=json.dumps({"starts": [{"row": row, "kind": "task"}], "newest": row}))
        return Reply(text="OK.")

    fake_api.responder = answer
    server = StandIn(bus, tmp_path / "calls.jsonl")
    try:
        notice = notice_of(tree, server, lines)
    finally:
        server.close()
    asked = [r for r in fake_api.messages_posts() if SYSTEM in r.joined()]
    picked = local.stop(local.pick)
    assert picked is not None and picked.quote[:60] != quote[:60]
    if reader:
        assert len(asked) == 1 and asked[0].body.get("tools", []) == []
        assert quote[:60] in notice["body"]
    else:
        assert asked == []
        assert picked.quote[:60] in notice["body"]


def test_a_break_notice_waits_while_the_reader_names_no_task_start_there(
    tmp_path: Path, world: World, fake_api: FakeApi, bus: PrivateBus
) -> None:
    need("dbus-send")
    tree = daemon_tree(tmp_path, world, bus, True)
    lines, scratch = crossing_copy(tmp_path)
    read = read_for_reader(scratch)
    row = next(r.number for r in read.rows if r.uuid == read.analysis.pick)
    said = json.dumps({"starts": [{"row": row, "kind": "step"}], "newest": row})

    def answer(request: Request) -> Reply:
        return Reply(text=said if SYSTEM in request.joined() else "OK.")

    fake_api.responder = answer
    server = StandIn(bus, tmp_path / "calls.jsonl")
    path = tree.session()
    try:
        with running(tree) as daemon:
            for line in lines:
                append(path, line)
                time.sleep(0.002)
            wait_until(lambda: "the reader names no task start" in daemon.output(), timeout=90)
            daemon.settled(path)
            assert server.calls() == [], "keepd alone sends a break notice here; it waits"
    finally:
        server.close()
    asked = [r for r in fake_api.messages_posts() if SYSTEM in r.joined()]
    assert len(asked) == 1
