"""Files that misbehave under a real daemon; each test ends with nothing lost: the daemon's offset
is the file's size and its curve is a fresh report's."""

from __future__ import annotations

import ctypes
import json
import os
import random
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.integration.daemon_kit import (
    Tree,
    append,
    assert_nothing_lost,
    example_lines,
    make_tree,
    running,
    wait_until,
)

LINES = example_lines()
QUIET = {"enabled": False}


def quiet_tree(tmp_path: Path) -> Tree:
    return make_tree(tmp_path, notify=QUIET)


def test_garbage_and_half_lines(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    path = tree.session()
    with running(tree) as daemon:
        append(path, b"".join(LINES[:40]))
        append(path, b'not json\n\x00\xff\xfe binary\n[1, 2]\n\n   \n{"type": "user"')
        held = daemon.settled(path)
        assert held["offset"] == path.stat().st_size
        append(path, b', "cut": tru\n' + b"".join(LINES[40:80]))
        half = len(LINES[80]) // 2
        append(path, LINES[80][:half])
        daemon.settled(path)
        append(path, LINES[80][half:] + b"".join(LINES[81:120]))
        entry = assert_nothing_lost(daemon, path)
        live = daemon.call("session", {"name": str(path)})
        assert live["skipped_lines"] == 4
        assert entry["messages"] == live["messages"]


def test_a_line_written_in_two_parts(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    path = tree.session()
    with running(tree) as daemon:
        append(path, b"".join(LINES[:20]))
        for line in LINES[20:60]:
            cut = random.Random(len(line)).randrange(1, len(line))
            append(path, line[:cut])
            wait_until(lambda: (daemon.entry(path) or {}).get("offset") == path.stat().st_size)
            append(path, line[cut:])
        assert_nothing_lost(daemon, path)


def test_truncation_and_rewriting_in_place(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    path = tree.session()
    with running(tree) as daemon:
        append(path, b"".join(LINES[:100]))
        assert_nothing_lost(daemon, path)
        with path.open("r+b") as handle:
            handle.truncate(0)
        append(path, b"".join(LINES[:30]))
        assert_nothing_lost(daemon, path)
        before = path.stat().st_size
        # Rewritten in place by one writer, longer than what was read: looks like an append.
        rewritten = b"".join(LINES[30:200])
        assert len(rewritten) > before
        with path.open("r+b") as handle:
            handle.write(rewritten)
        assert_nothing_lost(daemon, path)


def test_atomic_replacement(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    path = tree.session()
    with running(tree) as daemon:
        append(path, b"".join(LINES[:150]))
        assert_nothing_lost(daemon, path)
        for piece in (LINES[150:300], LINES[:120]):
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_bytes(b"".join(piece))
            temporary.replace(path)
            assert_nothing_lost(daemon, path)


def test_deletion_and_recreation(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    path = tree.session()
    with running(tree) as daemon:
        append(path, b"".join(LINES[:150]))
        assert_nothing_lost(daemon, path)
        path.unlink()
        wait_until(lambda: daemon.entry(path) is None)
        append(path, b"".join(LINES[200:260]))
        assert_nothing_lost(daemon, path)
        path.unlink()
        path.parent.rmdir()
        wait_until(lambda: daemon.entry(path) is None)
        path.parent.mkdir()
        append(path, b"".join(LINES[:90]))
        assert_nothing_lost(daemon, path)


def _drop_file_capabilities() -> None:
    """Runs in the daemon's child before exec: root without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH obeys file modes like any user (PR_CAPBSET_DROP, then exec)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(24, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _can_drop_capabilities() -> bool:
    probe = Path(os.environ["HOME"]) / "probe"
    probe.write_bytes(b"x")
    probe.chmod(0)
    done = subprocess.run(
        [sys.executable, "-c", f"open({str(probe)!r}).read()"],
        preexec_fn=_drop_file_capabilities,
        capture_output=True,
        check=False,
    )
    return done.returncode != 0 and b"PermissionError" in done.stderr


def test_a_file_without_read_permission(tmp_path: Path) -> None:
    preexec = None
    if os.geteuid() == 0:
        if not _can_drop_capabilities():
            pytest.skip("running as root without the right to drop capabilities")
        preexec = _drop_file_capabilities
    tree = quiet_tree(tmp_path)
    path = tree.session()
    path.write_bytes(b"".join(LINES[:120]))
    path.chmod(0)
    other = tree.session("0ther-session", "/w/other")
    other.write_bytes(b"".join(LINES[:50]))
    with running(tree, preexec) as daemon:
        entry = wait_until(lambda: daemon.entry(path))
        assert entry["state"] == "unreadable" and "ermission" in entry["error"]
        assert_nothing_lost(daemon, other)
        append(other, b"".join(LINES[50:70]))
        assert_nothing_lost(daemon, other)
        path.chmod(0o600)
        assert_nothing_lost(daemon, path)


def test_two_hundred_sessions_appended_at_once(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    paths = [
        tree.session(f"{n:04d}aaaa-0000-4000-8000-000000000000", f"/w/project{n % 20}")
        for n in range(200)
    ]
    for path in paths:
        path.write_bytes(b"".join(LINES[:10]))
    with running(tree) as daemon:
        wait_until(lambda: len(daemon.call("sessions")) == 200)
        groups = [paths[k::8] for k in range(8)]
        writers = [threading.Thread(target=_append_all, args=(group,)) for group in groups]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
        for path in paths:
            assert_nothing_lost(daemon, path)
        assert daemon.call("status")["in_memory"] == 200


def _append_all(paths: list[Path]) -> None:
    for line in LINES[10:50]:
        for path in paths:
            append(path, line)


def test_a_new_project_folder_written_at_once(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    with running(tree) as daemon:
        path = tree.session(project="/w/brand-new")
        path.write_bytes(b"".join(LINES[:60]))
        assert_nothing_lost(daemon, path)
        for line in LINES[60:90]:
            append(path, line)
        assert_nothing_lost(daemon, path)
        registry = tree.root / "sessions"
        registry.mkdir()
        entry = {"pid": os.getpid(), "sessionId": path.stem, "cwd": "/w/brand-new"}
        (registry / f"{os.getpid()}.json").write_text(json.dumps(entry))
        assert wait_until(lambda: (daemon.entry(path) or {}).get("running"))


def _line(entry: Mapping[str, object]) -> bytes:
    return json.dumps(entry).encode() + b"\n"


def _prompt(uuid: str, parent: str | None, text: str, **flags: object) -> bytes:
    message = {"role": "user", "content": text}
    return _line({"type": "user", "uuid": uuid, "parentUuid": parent, "message": message, **flags})


def test_a_rewind_and_a_compaction_read_the_file_again(tmp_path: Path) -> None:
    tree = quiet_tree(tmp_path)
    path = tree.session()
    uuids = [json.loads(line)["uuid"] for line in LINES if b'"uuid"' in line]
    with running(tree) as daemon:
        append(path, b"".join(LINES[:200]))
        assert_nothing_lost(daemon, path)
        rewound = uuids[120]
        append(path, _prompt("rewind-1", rewound, "go back: rename the invoice module instead"))
        first = assert_nothing_lost(daemon, path)
        assert first["messages"] < 150
        assert "no longer continues its branch" in daemon.output()
        boundary = {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "boundary-1",
            "parentUuid": None,
            "logicalParentUuid": "rewind-1",
            "content": "Conversation compacted",
            "compactMetadata": {"trigger": "manual", "preTokens": 90000, "postTokens": 9000},
        }
        summary = "This session is being continued from a previous conversation. Invoices."
        append(path, _line(boundary))
        append(path, _prompt("summary-1", "boundary-1", summary, isCompactSummary=True))
        append(path, _prompt("after-1", "summary-1", "now the PDF export, from scratch"))
        after = assert_nothing_lost(daemon, path)
        assert after["messages"] <= 3 and after["context"]["source"] == "postTokens"
