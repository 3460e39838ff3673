"""The command line's rough edges from a newcomer's first hour (issue 16): bad options, empty
stdin, copies of sessions, folders, help, and the names a dry run gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from keepd.cli.main import _parser, main
from keepd.paths import example_session, project_slug
from tests.cut_kit import quiet_copy

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"


@pytest.fixture
def example(private_home: Path) -> Path:
    folder = private_home / ".claude" / "projects" / project_slug("/home/dev/invoicer")
    return quiet_copy(example_session(), folder / f"{EXAMPLE_ID}.jsonl")


def keepd(*args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    """The console script in a child process, with this test's HOME and no terminal."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from keepd.cli.launch import main; sys.exit(main())",
            *args,
        ],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
        check=False,
    )


@pytest.mark.parametrize("window", ["0", "-5", "12.5", "many"])
def test_a_window_that_is_no_window_is_a_usage_error(window: str) -> None:
    done = keepd("report", "--example", f"--window={window}")
    assert done.returncode == 2, done.stderr
    assert "--window" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_a_real_window_is_taken() -> None:
    done = keepd("report", "--example", "--window", "1_000_000")
    assert done.returncode == 0, done.stderr
    assert "of 1M" in done.stdout and "1000k" not in done.stdout


@pytest.mark.parametrize("command", ["report", "show"])
@pytest.mark.parametrize("width", ["-5", "0", "3", "39", "wide"])
def test_a_width_under_40_is_a_one_line_usage_error(command: str, width: str) -> None:
    done = keepd(
        command, *(["--example"] if command == "report" else ["2bcaea32"]), "--width", width
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"keepd {command}: argument --width: ")


def test_a_width_of_40_is_taken() -> None:
    done = keepd("report", "--example", "--width", "40")
    assert done.returncode == 0, done.stderr
    assert "session 2bcaea32" in done.stdout and "project invoicer" in done.stdout


@pytest.mark.parametrize("dry", [True, False])
def test_an_empty_stdin_asks_for_keepds_gist(example: Path, dry: bool) -> None:
    """cron, scripts and IDE tasks run with stdin at /dev/null: that is no summary."""
    done = keepd("cut", EXAMPLE_ID, "--pick", *(["--dry-run"] if dry else []))
    assert done.returncode == 0, done.stderr
    assert "keepd's gist" in done.stdout
    written = example.read_bytes().count(b'"isCompactSummary":true')
    assert written == (0 if dry else 1)


def test_an_empty_summary_named_as_stdin_is_still_refused(example: Path) -> None:
    done = keepd("cut", EXAMPLE_ID, "--pick", "--summary-file", "-")
    assert done.returncode == 16 and "empty" in done.stderr


def test_the_dry_run_names_the_cut_id_the_cut_gets(example: Path) -> None:
    dry = keepd("cut", EXAMPLE_ID, "--pick", "--no-summary", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    named = dry.stdout.rsplit("the cut would be cut ", 1)[1].split(")")[0]
    real = keepd("cut", EXAMPLE_ID, "--pick", "--no-summary")
    assert real.returncode == 0, real.stderr
    assert f"as cut {named}:" in real.stdout
    boundary = orjson.loads(example.read_bytes().splitlines()[-1])
    assert boundary["uuid"].startswith(named)


def test_a_copy_of_a_session_keeps_its_own_note(example: Path, tmp_path: Path) -> None:
    real = keepd("report", str(example))
    note = Path(real.stdout.rsplit("file://", 1)[1].strip())
    assert note.name == f"{EXAMPLE_ID}.html"
    before = note.read_bytes()
    copy = tmp_path / "one-line.jsonl"
    lines = example.read_bytes().splitlines(keepends=True)
    copy.write_bytes(next(line for line in lines if b'"type":"user"' in line))
    copied = keepd("report", str(copy))
    assert copied.returncode == 0, copied.stderr
    other = Path(copied.stdout.rsplit("file://", 1)[1].strip())
    assert other != note and other.name.startswith(EXAMPLE_ID)
    assert note.read_bytes() == before


def test_a_project_folder_means_its_newest_session(example: Path) -> None:
    done = keepd("report", str(example.parent))
    assert done.returncode == 0, done.stderr
    assert "session 2bcaea32" in done.stdout


def test_a_folder_without_sessions_is_named_a_folder(tmp_path: Path) -> None:
    done = keepd("report", str(tmp_path))
    assert done.returncode == 3
    assert done.stderr.strip().endswith(
        "is a folder with no session files (*.jsonl) in it: "
        "name a session file, or a project's folder under projects/"
    )


def test_verbose_is_taken_after_the_command_too() -> None:
    parser = _parser()
    assert parser.parse_args(["report", "--verbose", "x.jsonl"]).verbose is True
    assert parser.parse_args(["-v", "report", "x.jsonl"]).verbose is True
    assert parser.parse_args(["report", "x.jsonl"]).verbose is False
    assert parser.parse_args(["service", "status", "-v"]).verbose is True
    done = keepd("report", "--verbose", "no-such-session")
    assert done.returncode == 7 and "no sessions" in done.stderr  # not a usage error


def test_bare_keepd_is_a_usage_error_with_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: keepd") and "report" in err


def test_the_hook_answers_help() -> None:
    done = keepd("hook", "precompact", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: keepd hook precompact [--manual]")
    assert "ignoring" not in done.stderr


def test_help_shows_the_defaults() -> None:
    prune = keepd("prune", "--help").stdout
    assert "the newest turns kept (default: 3)" in prune and "(default: 6)" in prune
    assert "default: until unmuted" in keepd("mute", "--help").stdout
    assert "default: until resumed" in keepd("pause", "--help").stdout
    assert "ever" not in keepd("mute", "--help").stdout


@pytest.mark.parametrize("options", [["--typo"], ["--plain", "--nope", "x"]])
def test_the_status_line_exits_0_whatever_its_options(options: list[str]) -> None:
    for done in (keepd("statusline", *options), module("statusline", *options)):
        assert done.returncode == 0
        assert done.stderr.startswith("keepd statusline: ignoring ")


def module(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m keepd`, which must behave as the console script does."""
    return subprocess.run(
        [sys.executable, "-m", "keepd", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
