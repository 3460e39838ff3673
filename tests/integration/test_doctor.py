"""`keepd doctor`: each check on a machine made to pass or fail it, the JSON, the exit code, and
`--notify` through a private bus to a real (stand-in) notification server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from keepd.login import checks
from keepd.login.checks import FAIL, OK, SKIP, WARN
from keepd.paths import config_file, notes_dir, project_slug
from tests.integration.daemon_kit import (
    EXAMPLE_ID,
    PrivateBus,
    StandIn,
    example_lines,
    make_tree,
    need,
    running,
)


def doctor(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "keepd", "doctor", "--json", *args],
        env=env or dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    data = json.loads(done.stdout)
    return done.returncode, {item["name"]: item for item in data["checks"]} | {"ok": data["ok"]}


def test_an_empty_machine_fails_with_fixes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    code, found = doctor()
    assert code == 1 and found["ok"] is False
    roots = found["claude roots"]
    assert roots["status"] == FAIL and "CLAUDE_CONFIG_DIR" in roots["fix"]
    assert found["session format"]["status"] == SKIP
    assert found["socket"]["status"] == FAIL and "keepd service install" in found["socket"]["fix"]
    assert found["config"]["status"] == OK and found["notes"]["status"] == OK
    for name, item in found.items():
        if name != "ok" and item["status"] in (WARN, FAIL):
            assert item["fix"], item


def test_sessions_format_config_and_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "claude"
    folder = root / "projects" / project_slug("/w/invoicer")
    folder.mkdir(parents=True)
    (folder / f"{EXAMPLE_ID}.jsonl").write_bytes(b"".join(example_lines()))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    assert checks.check_roots().data["sessions"] == 1
    seen = checks.check_session_format()
    newest = checks.newest_version(folder / f"{EXAMPLE_ID}.jsonl")
    assert seen.status == OK and newest and seen.data["version"] == newest
    with (folder / f"{EXAMPLE_ID}.jsonl").open("ab") as handle:
        handle.write(b'{"type":"user","version":"3.0.1"}\n')
    assert checks.check_session_format().status == FAIL
    with (folder / f"{EXAMPLE_ID}.jsonl").open("ab") as handle:
        handle.write(b'{"type":"user","version":"2.9.0"}\n')
    assert checks.check_session_format().status == WARN
    config_file().parent.mkdir(parents=True)
    config_file().write_text("[notify]\ntreshold = 0.5\n")
    bad = checks.check_config()
    assert bad.status == FAIL and "treshold" in bad.summary
    notes_dir().mkdir(parents=True)
    notes_dir().chmod(0o500)
    try:
        if os.geteuid() != 0:  # root writes whatever the mode
            assert checks.check_notes().status == FAIL
    finally:
        notes_dir().chmod(0o700)
    assert checks.check_notes().status == OK


def test_the_windows_of_the_newest_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "claude"
    folder = root / "projects" / project_slug("/w/invoicer")
    folder.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    assert checks.check_windows().status == SKIP
    (folder / f"{EXAMPLE_ID}.jsonl").write_bytes(b"".join(example_lines()))
    (root / "settings.json").write_text(json.dumps({"autoCompactWindow": 300_000}))
    seen = checks.check_windows()
    context = checks.analyse_file_context(folder / f"{EXAMPLE_ID}.jsonl")
    assert seen.status == OK and EXAMPLE_ID[:8] in seen.summary
    assert checks.window_words(context) in seen.summary
    # the example's model has 200k: the setting's 300k is cut to it, less 20k room and 13k
    assert "200k window (model), auto-compact at 167k (settings)" in seen.summary


def test_inotify_counts_folders_against_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not checks.WATCHES_FILE.exists():
        pytest.skip("no inotify here")
    root = tmp_path / "claude"
    for index in range(5):
        (root / "projects" / f"p{index}" / "sub").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(root))
    assert checks.folders_to_watch() == 2 + 1 + 5 * 2
    assert checks.check_inotify(daemon_running=False).status == OK
    small = tmp_path / "max_user_watches"
    small.write_text(str(checks.watches_in_use() + 5))
    monkeypatch.setattr(checks, "WATCHES_FILE", small)
    found = checks.check_inotify(daemon_running=False)
    assert found.status == FAIL and "max_user_watches" in found.fix


def test_a_running_daemon_and_a_notification_server(tmp_path: Path, bus: PrivateBus) -> None:
    need("dbus-daemon")
    tree = make_tree(tmp_path, notify={"enabled": False})
    env = {**tree.env, "DBUS_SESSION_BUS_ADDRESS": bus.address}
    _, found = doctor(env=env)
    assert found["notifications"]["status"] == FAIL  # a bus, but no server on it
    assert "notification server" in found["notifications"]["fix"]
    server = StandIn(bus, tmp_path / "calls.jsonl")
    try:
        with running(tree):
            _, found = doctor("--notify", env=env)
            assert found["socket"]["status"] == OK
            assert found["notifications"]["status"] == OK
            assert found["test notice"]["status"] == OK, found["test notice"]
        sent = server.calls("Notify")
        assert [call["summary"] for call in sent] == ["keepd doctor"]
    finally:
        server.close()


def test_the_recall_store_is_checked_before_and_after_a_cut_made_it() -> None:
    _, found = doctor()
    store = found["recall store"]
    assert store["status"] == OK and "will be made by the first cut" in store["summary"]
    assert store["data"]["exists"] is False
    from keepd.paths import recall_db
    from keepd.recall.store import Store

    with Store():
        pass
    path = recall_db()
    assert path.stat().st_mode & 0o777 == 0o600
    _, found = doctor()
    assert found["recall store"]["status"] == OK and found["recall store"]["data"]["mode"] == "600"
    path.chmod(0o644)
    _, found = doctor()
    store = found["recall store"]
    assert store["status"] == WARN and store["fix"] == f"chmod 600 {path}"
    assert found["mcp"]["status"] in (OK, SKIP)
