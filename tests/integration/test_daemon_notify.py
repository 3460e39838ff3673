"""The real daemon, a private D-Bus and a real notification server: one notice at the break."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import orjson

from keepd.core import steps
from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from tests.integration.daemon_kit import (
    EXAMPLE_ID,
    PrivateBus,
    StandIn,
    Tree,
    append,
    assert_nothing_lost,
    example_lines,
    fresh_report,
    make_tree,
    need,
    run_cli,
    running,
    wait_until,
)
from tests.integration.desktop import Dunst

THRESHOLD = 0.6


def crossing(lines: list[bytes]) -> int:
    """How many lines it takes for the context to reach the threshold."""
    state = SessionState(Scope.CURRENT, detail=False)
    for count, line in enumerate(lines, 1):
        state.feed(line)
        share = analyse_state(state).context["share"]
        if share is not None and share >= THRESHOLD:
            return count
    raise AssertionError("the example never reaches the threshold")


def write_lines(path: Path, lines: list[bytes]) -> None:
    for line in lines:
        append(path, line)
        time.sleep(0.002)


def register_running(tree: Tree) -> None:
    """Claude Code's registry of running sessions, naming this (live) process."""
    folder = tree.root / "sessions"
    folder.mkdir(exist_ok=True)
    entry = {"pid": os.getpid(), "sessionId": EXAMPLE_ID, "cwd": "/w/invoicer"}
    (folder / f"{os.getpid()}.json").write_text(json.dumps(entry))


def test_one_notice_at_the_break_opens_the_note_and_survives_a_restart(
    tmp_path: Path, bus: PrivateBus
) -> None:
    need("dbus-send")
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    server = StandIn(bus, tmp_path / "calls.jsonl")
    register_running(tree)
    path = tree.session()
    lines = example_lines()
    at = crossing(lines)
    try:
        with running(tree) as daemon:
            write_lines(path, lines[: at - 1])
            daemon.settled(path)
            time.sleep(0.6)
            assert server.calls() == [], "a notice before the threshold"
            write_lines(path, lines[at - 1 : at])
            [notice] = wait_until(server.calls)
            expected = fresh_report(path)
            _check_notice(notice, expected)
            server.press(notice["id"], "open-note")
            _check_note_opened(tree, expected)
            write_lines(path, lines[at:])
            entry = assert_nothing_lost(daemon, path)
            assert entry["notified"] == [f"break:{expected['pick']}"]
            assert entry["running"] is True
            time.sleep(0.6)
            assert len(server.calls()) == 1
            _check_cli(tree, path)
        _no_notice_after_a_restart(tree, path, server)
    finally:
        server.close()


def _no_notice_after_a_restart(tree: Tree, path: Path, server: StandIn) -> None:
    with running(tree) as daemon:
        assert_nothing_lost(daemon, path)
        time.sleep(1.0)
        assert len(server.calls()) == 1, "notified again after a restart"


def _check_notice(notice: dict[str, Any], expected: dict[str, Any]) -> None:
    pick = next(stop for stop in expected["stops"] if stop["uuid"] == expected["pick"])
    assert pick["grade"] == "●●●"
    assert notice["summary"] == f"invoicer: context {expected['context']['share']:.0%}"
    assert f"↑ {pick['below'] + 1} times" in notice["body"]
    left = steps.leaves(pick["after"], expected["context"]["tokens"], pick["frees"])
    assert left.startswith("leaves about ") and left in notice["body"]
    assert pick["quote"][:60] in notice["body"]
    assert {"open-note", "not-now"} <= set(notice["actions"])
    assert notice["urgency"] == 1


def _check_note_opened(tree: Tree, expected: dict[str, Any]) -> None:
    opened = wait_until(lambda: tree.opened.read_text().split())
    note = Path(opened[0])
    assert note.suffix == ".html" and note.is_file()
    html = note.read_text()
    assert expected["session_id"] in html and "fix PR is merged" in html


def _check_cli(tree: Tree, path: Path) -> None:
    status = run_cli(tree, "status", "--json")
    assert status.returncode == 0 and status.stderr == b""
    data = orjson.loads(status.stdout)
    assert data["daemon"] is True and data["notices_sent"] == 1 and data["sessions"] == 1
    sessions = run_cli(tree, "sessions", "--json")
    assert sessions.returncode == 0 and sessions.stderr == b""
    [item] = orjson.loads(sessions.stdout)
    assert item["path"] == str(path) and item["state"] == "active"
    assert item["offset"] == path.stat().st_size


def test_no_server_then_a_server_appears(tmp_path: Path, bus: PrivateBus) -> None:
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    path = tree.session()
    with running(tree) as daemon:
        append(path, b"".join(example_lines()))
        wait_until(lambda: daemon.call("status")["notices_pending"] == 1)
        wait_until(lambda: "not dispatched" in daemon.call("status")["notifier"])
        server = StandIn(bus, tmp_path / "calls.jsonl")
        try:
            wait_until(server.calls)
            time.sleep(1.2)
            assert len(server.calls()) == 1
            assert daemon.call("status")["notices_pending"] == 0
            assert_nothing_lost(daemon, path)
        finally:
            server.close()


def test_a_full_disk_delays_the_notice_and_a_restart_never_repeats_it(
    tmp_path: Path, bus: PrivateBus
) -> None:
    """The state file cannot be replaced (a folder stands in its place, as a full disk fails
    the rename): no notice goes out while its record cannot be saved, the mute of another
    session waits in memory; both are saved once the disk frees, and the notice is sent once,
    not again after a restart."""
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    server = StandIn(bus, tmp_path / "calls.jsonl")
    state = Path(os.environ["XDG_STATE_HOME"]) / "keepd" / "daemon.json"
    state.mkdir(parents=True)
    path, other = tree.session(), tree.session("0ther000-0000-4000-8000-000000000000", "/w/o")
    other.write_bytes(b"".join(example_lines()[:20]))
    try:
        with running(tree) as daemon:
            daemon.call("mute", {"name": str(other)})
            append(path, b"".join(example_lines()))
            wait_until(lambda: daemon.output().count("cannot save") >= 3)
            assert daemon.call("status")["notices_pending"] == 1
            assert server.calls() == [], "a notice went out that a restart would repeat"
            state.rmdir()
            wait_until(server.calls)
            saved = orjson.loads(state.read_bytes())
            assert [len(keys) for keys in saved["notified"].values()] == [1]
            assert list(saved["notified"]) == [EXAMPLE_ID]
            assert list(saved["mutes"]) == [other.stem]
        _no_notice_after_a_restart(tree, path, server)
    finally:
        server.close()


def test_not_now_mutes_the_session(tmp_path: Path, bus: PrivateBus) -> None:
    need("dbus-send")
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    server = StandIn(bus, tmp_path / "calls.jsonl")
    path = tree.session()
    try:
        with running(tree) as daemon:
            append(path, b"".join(example_lines()))
            [notice] = wait_until(server.calls)
            server.press(notice["id"], "not-now")
            entry = wait_until(lambda: (e := daemon.entry(path)) and e["muted"] and e)
            assert entry["muted_until"] > time.time() + 50 * 60
    finally:
        server.close()


def test_dunst_shows_it_and_a_click_opens_the_note(tmp_path: Path, bus: PrivateBus) -> None:
    dunst = Dunst(bus)
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    path = tree.session()
    try:
        with running(tree) as daemon:
            append(path, b"".join(example_lines()))
            wait_until(lambda: dunst.ctl("count", "displayed").strip() == "1")
            dunst.ctl("action", "0")
            opened = wait_until(lambda: tree.opened.read_text().split())
            assert Path(opened[0]).suffix == ".html"
            dunst.ctl("close-all")
            history = json.loads(dunst.ctl("history"))["data"][0]
            [shown] = history
            expected = fresh_report(path)
            pick = next(stop for stop in expected["stops"] if stop["uuid"] == expected["pick"])
            assert pick["quote"][:60] in shown["body"]["data"]
            assert shown["summary"]["data"].startswith("invoicer: context")
            assert daemon.call("status")["notices_sent"] == 1
    finally:
        dunst.close()


def test_a_restarted_bus_gets_the_next_notice(tmp_path: Path, bus: PrivateBus) -> None:
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    first_server = StandIn(bus, tmp_path / "first.jsonl")
    first, second = tree.session(), tree.session("5ec0nd00-0000-4000-8000-000000000000")
    with running(tree) as daemon:
        append(first, b"".join(example_lines()))
        wait_until(first_server.calls)
        first_server.close()
        bus.restart()
        assert bus.address == tree.env["DBUS_SESSION_BUS_ADDRESS"]
        server = StandIn(bus, tmp_path / "second.jsonl")
        try:
            append(second, b"".join(example_lines()))
            [notice] = wait_until(server.calls)
            assert "↑ 20 times" in notice["body"]
            assert daemon.call("status")["notices_sent"] == 2
            assert_nothing_lost(daemon, second)
        finally:
            server.close()


def test_the_sent_count_survives_a_restart(tmp_path: Path, bus: PrivateBus) -> None:
    """Two notices sent, the daemon restarted: `keepd status` still says two were sent (it
    said "0 sent" while remembering both), and neither notice goes out again."""
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    server = StandIn(bus, tmp_path / "calls.jsonl")
    first, second = tree.session(), tree.session("5ec0nd00-0000-4000-8000-000000000000")
    try:
        with running(tree) as daemon:
            for path in (first, second):
                append(path, b"".join(example_lines()))
            wait_until(lambda: len(server.calls()) == 2)
            assert daemon.call("status")["notices_sent"] == 2
        with running(tree) as daemon:
            for path in (first, second):
                assert_nothing_lost(daemon, path)
            assert daemon.call("status")["notices_sent"] == 2
            shown = run_cli(tree, "status")
            assert shown.returncode == 0, shown.stderr
            assert "  notices: 2 sent, 0 waiting" in shown.stdout.decode().splitlines()
            time.sleep(0.6)
            assert len(server.calls()) == 2, "notified again after a restart"
        stopped = run_cli(tree, "status", "--json")  # no daemon: the same count, from the file
        assert orjson.loads(stopped.stdout)["notices_sent"] == 2
    finally:
        server.close()


def test_no_notice_while_the_session_streams(tmp_path: Path, bus: PrivateBus) -> None:
    tree = make_tree(tmp_path, notify={"debounce_seconds": 1.0})
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    server = StandIn(bus, tmp_path / "calls.jsonl")
    path = tree.session()
    lines = example_lines()
    at = crossing(lines)
    try:
        with running(tree) as daemon:
            append(path, b"".join(lines[:at]))
            for line in lines[at : at + 12]:
                time.sleep(0.25)
                append(path, line)
                assert server.calls() == [], "a notice while lines were still coming"
            stopped = time.monotonic()
            wait_until(server.calls)
            assert time.monotonic() - stopped >= 0.9
            assert_nothing_lost(daemon, path)
    finally:
        server.close()
