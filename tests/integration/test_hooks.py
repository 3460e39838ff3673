"""`keepd hook precompact` as Claude Code runs it before a compaction: keepd's guidance for the
example session on stdout, and exit 0 with nothing on stdout for anything it cannot use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from keepd.api import analyse_file
from keepd.paths import example_session
from keepd.report.instructions import summary_instructions
from tests.integration.test_statusline import keepd_command


def hook_input(path: Path | str, trigger: str = "auto", **extra: Any) -> bytes:
    """The PreCompact input of Claude Code."""
    data = {
        "session_id": Path(path).stem,
        "transcript_path": str(path),
        "cwd": "/w/invoicer",
        "permission_mode": "default",
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": "" if trigger == "auto" else "keep the PDF work",
    } | extra
    return json.dumps(data).encode()


def hook(data: bytes, *options: str, module: bool = False) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "keepd"] if module else keepd_command()
    return subprocess.run(
        [*command, "hook", "precompact", *options],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_before_an_automatic_compaction_it_prints_what_to_keep_and_the_side_trips() -> None:
    result = hook(hook_input(example_session()))
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert text.startswith("When you summarize this conversation: the work from my message")
    assert "(message 170) on is what matters now" in text
    assert "Keep each one and what it refers to:" in text
    assert "invoice ×56" in text and "vat ×28" in text  # words the kept part borrows
    assert "Drop these earlier parts whole" in text  # the side trips
    assert "- messages 85-112," in text and "- messages 142-169," in text
    assert text == summary_instructions(analyse_file(example_session())) + "\n"
    assert result.stderr == b""


def test_a_manual_compaction_gets_guidance_only_when_asked() -> None:
    manual = hook_input(example_session(), "manual")
    quiet = hook(manual)
    assert (quiet.returncode, quiet.stdout) == (0, b"")
    asked = hook(manual, "--manual")
    assert asked.returncode == 0 and b"Drop these earlier parts whole" in asked.stdout


def test_python_m_keepd_runs_the_same_hook() -> None:
    result = hook(hook_input(example_session()), module=True)
    assert result.returncode == 0 and b"(message 170) on is what matters now" in result.stdout


def _not_a_session(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"type": "summary"}\nhello\n')
    return path


@pytest.mark.parametrize(
    "make",
    [
        lambda tmp: b"",
        lambda tmp: b"garbage",
        lambda tmp: b"[1, 2]",
        lambda tmp: b"{" * 10,
        lambda tmp: b"[" * 200_000,
        lambda tmp: b"\xff\xfe\x00",
        lambda tmp: b"{}",
        lambda tmp: hook_input(tmp / "missing.jsonl"),
        hook_input,  # the folder itself
        lambda tmp: hook_input(_not_a_session(tmp)),
        lambda tmp: hook_input(example_session(), trigger="sometimes"),
        lambda tmp: hook_input(example_session(), hook_event_name="Stop"),
        lambda tmp: hook_input(example_session(), transcript_path=7),
    ],
)
def test_bad_input_exits_0_with_nothing_on_stdout(tmp_path: Path, make: Any) -> None:
    result = hook(make(tmp_path))
    assert (result.returncode, result.stdout) == (0, b"")
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "/dev/urandom"])
def test_a_transcript_that_never_ends_is_refused_at_once(tmp_path: Path, target: str) -> None:
    """A FIFO would hang the compaction and /dev/zero fill the memory (5.5 GB in 5 s)."""
    path = tmp_path / "t.jsonl"
    if target == "fifo":
        os.mkfifo(path)
    else:
        path = Path(target)
    result = hook(hook_input(path))  # within the helper's 120 s timeout, or it raises
    assert (result.returncode, result.stdout) == (0, b"")
    kind = "a FIFO" if target == "fifo" else "a character device"
    assert result.stderr.decode().splitlines() == [
        f"keepd hook precompact: no guidance: cannot read session: {path}: "
        f"not a regular file ({kind})"
    ]


def test_unknown_options_and_events_never_fail_the_compaction() -> None:
    data = hook_input(example_session())
    assert hook(data, "--bogus").returncode == 0
    assert hook(data, "--bogus", module=True).returncode == 0
    for command in ([*keepd_command(), "hook"], [*keepd_command(), "hook", "postcompact"]):
        result = subprocess.run(command, input=data, capture_output=True, timeout=60, check=False)
        assert (result.returncode, result.stdout) == (0, b"")
