"""The report command's errors, discovery of sessions, and the example fallback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from keepd.cli.main import main
from keepd.paths import example_session, project_slug


def _install(root: Path, project: str, session_id: str, source: Path) -> Path:
    folder = root / "projects" / project_slug(project)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{session_id}.jsonl"
    shutil.copyfile(source, target)
    return target


def test_missing_file_is_one_line_and_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "/nonexistent/x.jsonl"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such session" in err


def test_garbage_file_is_not_a_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"not json\n{\"type\": \"file-history-snapshot\"}\n\x00\xff\n")
    assert main(["report", str(garbage)]) == 5
    assert "not a session" in capsys.readouterr().err


def test_a_folder_is_said_to_be_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "d.jsonl"
    folder.mkdir()
    assert main(["report", str(folder)]) == 3
    assert "d.jsonl is a folder with no session files" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_exit_4(tmp_path: Path) -> None:
    locked = tmp_path / "locked.jsonl"
    locked.write_bytes(example_session().read_bytes())
    locked.chmod(0)
    assert main(["report", str(locked)]) == 4


def test_ambiguous_prefix_exit_6(
    private_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = private_home / ".claude"
    _install(root, "/w/a", "abcd1111-0000", example_session())
    _install(root, "/w/b", "abcd2222-0000", example_session())
    assert main(["report", "abcd"]) == 6
    assert "ambiguous" in capsys.readouterr().err
    assert main(["report", "abcd1", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["path"].endswith("abcd1111-0000.jsonl")
    assert main(["report", "zzzz"]) == 3


def test_newest_session_of_this_project_is_the_default(
    private_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = private_home / "cfg"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{root}, {private_home / 'other'}")
    mine = _install(root, str(tmp_path), "mine-0001", example_session())
    theirs = _install(root, "/elsewhere", "theirs-0001", example_session())
    os.utime(mine, (1_000_000, 1_000_000))
    os.utime(theirs, (2_000_000, 2_000_000))
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--json"]) == 0
    assert orjson.loads(capsys.readouterr().out)["path"] == str(mine)


def test_no_sessions_falls_back_to_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report"]) == 0
    captured = capsys.readouterr()
    assert "example" in captured.err
    assert "keepd's example session" in captured.out


def test_example_flag_and_width(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--example", "--width", "60"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # a file:// link cannot be wrapped; every other line fits
    assert max(len(line) for line in lines if "file://" not in line) <= 60
