"""`keepd statusline` as Claude Code runs it (the installed console script, JSON on stdin):
from a running daemon, from the glance it cached once it stopped, with nothing at all, and
never stuck on a stdin that stays open or a daemon that does not answer."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from keepd.core import steps
from keepd.ops.glance import Glance
from keepd.ops.operations import Operations
from keepd.ops.protocol import Reply, decode_request, encode_reply
from tests.integration.daemon_kit import (
    EXAMPLE_ID,
    Tree,
    append,
    example_lines,
    make_tree,
    run_cli,
    running,
    wait_until,
)


def keepd_command() -> list[str]:
    """The console script installed beside this Python (what Claude Code runs), else -m."""
    script = Path(sys.executable).with_name("keepd")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "keepd"]


def claude_json(path: Path, used: float | None = None, window: int | None = None) -> bytes:
    """The status-line JSON of a recent Claude Code."""
    context: dict[str, Any] = {"total_input_tokens": 1200, "total_output_tokens": 300}
    context |= {"used_percentage": used, "context_window_size": window or 200_000}
    data = {
        "hook_event_name": "Status",
        "session_id": path.stem,
        "transcript_path": str(path),
        "cwd": "/w/invoicer",
        "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
        "workspace": {"current_dir": "/w/invoicer", "project_dir": "/w/invoicer"},
        "version": "2.1.0",
        "output_style": {"name": "default"},
        "cost": {"total_cost_usd": 0.4, "total_duration_ms": 18000},
        "context_window": context,
    }
    return json.dumps(data).encode()


def statusline(
    tree: Tree, data: bytes, *options: str, **env: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*keepd_command(), "statusline", *options],
        input=data,
        env={**tree.env, **env},
        capture_output=True,
        timeout=30,
        check=False,
    )


def line_of(tree: Tree, data: bytes, *options: str, **env: str) -> str:
    result = statusline(tree, data, *options, **env)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    return result.stdout.decode()


def expected(entry: dict[str, Any], share: str) -> str:
    frees = steps.short(entry.get("after"), entry["frees"])
    downs = 4 if entry.get("code_changed") else 2
    reach = f"Esc Esc ↑{entry['below'] + 1} Enter ↓{downs}"
    return f"keepd {share} · {entry['grade']} {reach} · {frees}\n"


def _session(tree: Tree) -> Path:
    path = tree.session()
    path.write_bytes(b"".join(example_lines()))
    return path


def _cached(tree: Tree, session_id: str = EXAMPLE_ID) -> Path:
    return tree.runtime / "keepd" / "glance" / f"{session_id}.json"


def test_answers_from_the_running_daemon_then_from_its_cache(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False})
    path = _session(tree)
    with running(tree) as daemon:
        entry = daemon.settled(path)
        assert entry["grade"] == "●●●" and entry["below"] == 19
        share = f"{entry['context']['share']:.0%}"
        assert line_of(tree, claude_json(path), "--plain") == expected(entry, share)
        assert line_of(tree, claude_json(path, used=71.4), "--plain") == expected(entry, "71%")
        colored = line_of(tree, claude_json(path, used=71.4))
        assert "\x1b[33m71%\x1b[0m" in colored and "\x1b[1;32m●●●\x1b[0m" in colored
        assert "\x1b[" not in line_of(tree, claude_json(path), NO_COLOR="1")
        assert "\x1b[" in line_of(tree, claude_json(path), "--color", NO_COLOR="1")
        other = tree.session("0c0c0c0c-0000-4000-8000-000000000000", "/w/elsewhere")
        assert line_of(tree, claude_json(other, used=3), "--plain") == "keepd 3% · not followed\n"
    # The daemon is down: the line comes from the glance it cached, marked once the file grew.
    assert json.loads(_cached(tree).read_bytes())["below"] == entry["below"]
    assert line_of(tree, claude_json(path), "--plain") == expected(entry, share)
    append(path, example_lines()[-1])
    assert line_of(tree, claude_json(path), "--plain") == expected(entry, share)[:-1] + " · old\n"


def test_a_cut_the_daemon_has_not_analysed_yet_is_said_not_the_old_pick(tmp_path: Path) -> None:
    """Claude Code repaints the status line right after "Summarize up to here", before the
    daemon has analysed the new boundary, and then not until a key is pressed: the old pick
    (now a kept prompt) must not stand there. The daemon analyses 6 s after a write here (it
    gathers writes that long, and waits as long for quiet before it would notify), so it is
    still behind when the line is drawn (checked before and after), and then catches up."""
    notify = {"enabled": False, "debounce_seconds": 6.0}
    tree = make_tree(tmp_path, notify=notify, watch={"analyse_seconds": 6.0})
    path = _session(tree)
    ask = {"session_id": EXAMPLE_ID, "path": str(path)}
    with running(tree) as daemon:
        entry = daemon.settled(path, timeout=40)
        share = f"{entry['context']['share']:.0%}"
        assert line_of(tree, claude_json(path), "--plain") == expected(entry, share)
        read = path.stat().st_size
        cut = run_cli(tree, "cut", EXAMPLE_ID, "--pick", "--no-summary", "--force")
        assert cut.returncode == 0, cut.stderr
        assert path.stat().st_size > read
        size = path.stat().st_size
        wait_until(lambda: (daemon.entry(path) or {}).get("offset") == size)  # read, not yet
        assert daemon.call("glance", ask)["offset"] == read  # analysed
        line = line_of(tree, claude_json(path, used=9), "--plain")
        assert daemon.call("glance", ask)["offset"] == read, "the daemon caught up too soon"
        assert line == "keepd 9% · summarized · reading\n"
        assert line_of(tree, claude_json(path), "--plain") == "keepd · summarized · reading\n"
        after = daemon.settled(path, timeout=40)
        line = line_of(tree, claude_json(path, used=9), "--plain")
    assert after["analysed_offset"] > read and "summarized" not in line, line
    assert line.startswith("keepd 9% · ")


def test_the_window_the_status_line_names_is_kept_across_restarts(tmp_path: Path) -> None:
    """Claude Code names a 1M window the file cannot show below 200k: the daemon analyses the
    session with it at once, remembers it in its state file, and `keepd report` reads it."""
    tree = make_tree(tmp_path, notify={"enabled": False})
    path = _session(tree)

    def context(daemon: Any) -> dict[str, Any]:
        return dict(daemon.call("session", {"name": path.stem})["context"])

    with running(tree) as daemon:
        daemon.settled(path)
        before = context(daemon)
        assert before["window_source"] != "status line"
        line_of(tree, claude_json(path, used=4, window=1_000_000), "--plain")
        told = wait_until(lambda: (c := context(daemon))["window_source"] == "status line" and c)
        assert told["window"] == 1_000_000 and told["claude_share"] == 0.04
        assert told["share"] == round(told["tokens"] / 1_000_000, 4)
    with running(tree) as daemon:  # nothing said since the restart
        daemon.settled(path)
        assert context(daemon)["window_source"] == "status line"
    report = json.loads(run_cli(tree, "report", str(path), "--json").stdout)
    assert (report["context"]["window"], report["context"]["window_source"]) == (
        1_000_000, "status line"
    )


def test_the_daemons_glance_is_the_in_process_one(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False})
    path = _session(tree)
    with running(tree) as daemon:
        daemon.settled(path)
        live = daemon.call("glance", {"session_id": EXAMPLE_ID, "path": str(path)})
        by_id = daemon.call("glance", {"session_id": EXAMPLE_ID})
        unknown = daemon.call("glance", {"session_id": "nobody"})
    local = Operations().glance(EXAMPLE_ID, str(path)).to_dict()
    keys = ("known", "analysed", "offset", "tokens", "window", "share", "pick", "grade", "below")
    picked = [{k: glance[k] for k in keys} for glance in (live, local, by_id)]
    assert picked[0] == picked[1] == picked[2]
    assert unknown["known"] is False and unknown["analysed"] is False


def test_a_session_idle_since_before_the_daemon_started_is_read_when_asked(
    tmp_path: Path,
) -> None:
    """Just after `claude --resume` of a session idle for hours, the daemon knows the file but
    never read it: the status line's asking gets it read, and "reading" gives way to the pick."""
    tree = make_tree(tmp_path, notify={"enabled": False})
    path = _session(tree)
    hours_ago = time.time() - 3 * 3600
    os.utime(path, (hours_ago, hours_ago))
    ask = {"session_id": path.stem, "path": str(path)}
    with running(tree) as daemon:
        assert wait_until(lambda: daemon.entry(path))["state"] == "idle"  # too old to read
        assert daemon.call("glance", ask)["known"] is True
        wait_until(lambda: daemon.call("glance", ask)["analysed"])
        entry = daemon.entry(path)
        assert entry is not None
        share = f"{entry['context']['share']:.0%}"
        assert line_of(tree, claude_json(path), "--plain") == expected(entry, share)


def test_with_no_daemon_and_nothing_cached_a_neutral_line(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    path = _session(tree)
    assert line_of(tree, claude_json(path, used=64.2), "--plain") == "keepd 64% · no daemon\n"
    assert line_of(tree, claude_json(path), "--plain") == "keepd · no daemon\n"
    assert not _cached(tree).exists()


def test_a_daemon_that_does_not_answer_costs_at_most_the_timeout(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    path = _session(tree)
    folder = tree.runtime / "keepd"
    folder.mkdir(mode=0o700)
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(str(folder / "keepd.sock"))
    mute.listen(8)  # accepts connections into its backlog and never answers
    try:
        started = time.monotonic()
        line = line_of(tree, claude_json(path, used=10), "--plain")
        elapsed = time.monotonic() - started
    finally:
        mute.close()
    assert line == "keepd 10% · no daemon\n"
    assert elapsed < 5.0, elapsed  # a bound on hanging, not a timing claim: see the benchmark


def _answer_once(listener: socket.socket, result: dict[str, Any]) -> None:
    """Serves one glance request with `result`, as a daemon that has not analysed yet would."""
    connection, _ = listener.accept()
    with connection:
        request = decode_request(connection.makefile("rb").readline().strip())
        connection.sendall(encode_reply(Reply(id=request.id, ok=True, result=result)))


def test_a_daemon_without_an_analysis_yet_leaves_the_line_to_the_cache(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False})
    path = _session(tree)
    with running(tree) as daemon:
        entry = daemon.settled(path)
    share = f"{entry['context']['share']:.0%}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(tree.runtime / "keepd" / "keepd.sock"))
    listener.listen(1)
    fresh = Glance(EXAMPLE_ID, known=True).to_dict()  # as just after a restart
    server = threading.Thread(target=_answer_once, args=(listener, fresh))
    server.start()
    try:
        line = line_of(tree, claude_json(path), "--plain")
    finally:
        server.join(10)
        listener.close()
    assert line == expected(entry, share)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"garbage",
        b"[]",
        b"{",
        b"\xff\xfe\x00\x01",
        b"[" * 200_000,
        b'{"session_id": 5, "transcript_path": null}',
        b'{"session_id": "../../etc/passwd"}',
        b'{"session_id": "' + b"a" * (2 << 20) + b'"}',
    ],
)
def test_garbage_on_stdin_prints_nothing_and_exits_0(tmp_path: Path, data: bytes) -> None:
    result = statusline(make_tree(tmp_path), data)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_a_stdin_left_open_does_not_hold_it(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    process = subprocess.Popen(
        [*keepd_command(), "statusline", "--plain"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=tree.env,
    )
    assert process.stdin is not None
    process.stdin.write(b'{"session_id": "abc", "context_window": {"used_percentage": 5}}')
    process.stdin.flush()
    try:
        code = process.wait(timeout=10)  # stdin still open: the command stops reading on its own
        assert process.stdout is not None and process.stderr is not None
        out, err = process.stdout.read(), process.stderr.read()
    finally:
        process.stdin.close()
        if process.poll() is None:
            process.kill()
        process.wait()
    assert (code, out, err) == (0, b"keepd 5% \xc2\xb7 no daemon\n", b"")


def test_python_m_keepd_statusline_is_the_same_command(tmp_path: Path) -> None:
    tree = make_tree(tmp_path)
    path = _session(tree)
    result = subprocess.run(
        [sys.executable, "-m", "keepd", "statusline", "--plain"],
        input=claude_json(path, used=64.2),
        env=tree.env,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert (result.returncode, result.stdout) == (0, "keepd 64% · no daemon\n".encode())
