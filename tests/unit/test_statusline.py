"""The status line's pieces: what it reads of Claude Code's JSON, its line in each case, its
colours, and a stdin that never closes."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from keepd.claude.statusline import (
    STDIN_SECONDS,
    Found,
    StatusInput,
    default_color,
    parse_input,
    read_input,
    render,
)
from keepd.cli.launch import statusline_color

Glance = dict[str, object]
PICKED: Glance = {
    "session_id": "s1", "known": True, "analysed": True, "offset": 10, "tokens": 50_000,
    "window": 200_000, "share": 0.25, "pick": "u1", "grade": "●●●", "below": 19, "frees": 0.54,
}  # fmt: skip
STATUS = StatusInput("s1")


def _with(glance: Glance, **changes: object) -> Glance:
    return {key: value for key, value in {**glance, **changes}.items() if value is not None}


def _status(**changes: object) -> StatusInput:
    fields = {"transcript_path": None, "used": None, "window": None, **changes}
    return StatusInput("s1", **fields)  # type: ignore[arg-type]


def _plain(
    status: StatusInput, glance: Glance | None, *, daemon: bool = True, cached: bool = False
) -> str:
    return render(status, Found(glance, daemon, cached), color=False)


def test_the_line_in_each_case() -> None:
    assert _plain(STATUS, PICKED) == "keepd 25% · ●●● Esc Esc ↑20 Enter ↓2 · frees 54%"
    trade = _with(PICKED, grade=None, below=7, frees=0.2)
    assert _plain(STATUS, trade) == "keepd 25% · no clear break Esc Esc ↑8 Enter ↓2 · frees 20%"
    after = _with(PICKED, after=22_209, code_changed=True)
    assert _plain(STATUS, after) == "keepd 25% · ●●● Esc Esc ↑20 Enter ↓4 · leaves ~22k"
    nothing = _with(PICKED, pick=None, grade=None, below=None, frees=None)
    assert _plain(STATUS, nothing) == "keepd 25% · nothing to do yet"
    assert _plain(STATUS, {"session_id": "s1", "known": True}) == "keepd · reading"
    assert _plain(STATUS, {"session_id": "s1", "known": False}) == "keepd · not followed"
    assert _plain(STATUS, None, daemon=False) == "keepd · no daemon"
    assert _plain(STATUS, None, daemon=True) == "keepd · no answer"
    with_share = _status(used=0.642)
    assert _plain(with_share, None, daemon=False) == "keepd 64% · no daemon"
    assert _plain(_status(used=0.0), None, daemon=False) == "keepd 0% · no daemon"


def test_the_share_prefers_claude_codes_own_figure_then_its_window() -> None:
    assert _plain(_status(used=0.7), PICKED).startswith("keepd 70% ·")
    # 50k tokens of a 1M window: the file alone cannot tell the window
    assert _plain(_status(window=1_000_000), PICKED).startswith("keepd 5% ·")
    no_tokens = _with(PICKED, tokens=None)
    assert _plain(_status(window=1_000_000), no_tokens).startswith("keepd 25% ·")


def test_a_cached_glance_of_a_grown_transcript_is_marked_old(tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    transcript.write_bytes(b"x" * 10)
    status = _status(transcript_path=str(transcript))
    assert not _plain(status, PICKED, daemon=False, cached=True).endswith("old")
    transcript.write_bytes(b"x" * 11)
    assert _plain(status, PICKED, daemon=False, cached=True).endswith(" · frees 54% · old")
    assert _plain(status, PICKED, daemon=True, cached=True).endswith(" · old")
    assert not _plain(status, PICKED, daemon=True).endswith("old")  # the daemon's own answer


BOUNDARY_LINE = (
    b'{"parentUuid":null,"logicalParentUuid":"a9","isSidechain":false,"type":"system",'
    b'"subtype":"compact_boundary","content":"Conversation compacted","uuid":"b1"}\n'
)  # the head of 2.1.332's line: its type is not first


def test_a_compaction_written_since_the_glance_replaces_the_pick(tmp_path: Path) -> None:
    """Right after "Summarize up to here" Claude Code repaints before the daemon has read the
    boundary: the old pick would point at a kept prompt, so the line says what happened."""
    transcript = tmp_path / "s1.jsonl"
    transcript.write_bytes(b"x" * 9 + b"\n")  # the 10 bytes PICKED was made from
    status = _status(transcript_path=str(transcript))
    line = "keepd 25% · ●●● Esc Esc ↑20 Enter ↓2 · frees 54%"
    assert _plain(status, PICKED) == line
    with transcript.open("ab") as handle:  # a turn, quoting a boundary inside a string
        handle.write(
            b'{"type":"user","message":{"content":"\\"subtype\\":\\"compact_boundary\\""}}\n'
        )
    assert _plain(status, PICKED) == line
    with transcript.open("ab") as handle:
        handle.write(BOUNDARY_LINE + b'{"type":"user","isCompactSummary":true}\n')
    assert _plain(status, PICKED) == "keepd · summarized · reading"
    assert _plain(_status(transcript_path=str(transcript), used=0.12), PICKED) == (
        "keepd 12% · summarized · reading"  # Claude Code's own figure, never the old tokens
    )
    assert _plain(status, PICKED, daemon=False, cached=True) == "keepd · summarized · no daemon"
    read = _with(PICKED, offset=transcript.stat().st_size)  # the daemon has read the cut
    assert _plain(status, read) == line
    transcript.write_bytes(b"short")  # replaced by a shorter file (keepd undo)
    assert _plain(status, PICKED) == "keepd · summarized · reading"
    gone = _status(transcript_path=str(tmp_path / "gone.jsonl"))
    assert _plain(gone, PICKED) == line


def test_a_boundary_far_past_the_glance_is_found_in_the_newest_bytes(tmp_path: Path) -> None:
    transcript = tmp_path / "s1.jsonl"
    filler = b'{"type":"progress","data":"' + b"p" * 4000 + b'"}\n'
    with transcript.open("wb") as handle:
        for _ in range(5000):  # 20 MB the daemon has not read, then the boundary
            handle.write(filler)
        handle.write(BOUNDARY_LINE)
    status = _status(transcript_path=str(transcript))
    assert _plain(status, PICKED) == "keepd · summarized · reading"
    assert _plain(_status(transcript_path=str(transcript)), _with(PICKED, offset=0)) == (
        "keepd · summarized · reading"
    )


def test_colours_mark_the_share_against_the_daemons_thresholds() -> None:
    def colored(used: float, glance: Glance = PICKED) -> str:
        return render(_status(used=used), Found(glance, True), color=True)

    assert "\x1b[1;31m85%\x1b[0m" in colored(0.85) and "\x1b[1;32m●●●\x1b[0m" in colored(0.85)
    assert "\x1b[33m65%\x1b[0m" in colored(0.65)
    assert " 65% " in colored(0.65, _with(PICKED, threshold=0.7))
    assert "\x1b[" not in render(_status(used=0.85), Found(PICKED, True), color=False)


def test_no_color_and_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_color()
    monkeypatch.setenv("NO_COLOR", "")
    assert not default_color()
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not default_color()
    assert statusline_color(["--plain"]) is False and statusline_color(["--color"]) is True


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"garbage",
        b"[]",
        b"{",
        b"null",
        b"\xff\xfe\x00",
        b"[" * 100_000,
        b'{"session_id": 5}',
        b'{"session_id": "../../etc/passwd"}',
        b'{"session_id": ""}',
        b'{"transcript_path": 7}',
        b'"' + b"x" * 100_000 + b'"',
    ],
)
def test_input_that_names_no_session_is_none(raw: bytes) -> None:
    assert parse_input(raw) is None


def test_the_fields_keepd_uses() -> None:
    raw = (
        b'{"session_id": "abc-1", "transcript_path": "/h/.claude/projects/-w/abc-1.jsonl",'
        b' "cwd": "/w", "model": {"id": "claude-opus-4-1", "display_name": "Opus"},'
        b' "workspace": {"current_dir": "/w", "project_dir": "/w"}, "version": "2.1.0",'
        b' "context_window": {"context_window_size": 1000000, "used_percentage": 12,'
        b' "current_usage": null}}'
    )
    status = parse_input(raw)
    assert status is not None
    assert status.fields() == ("abc-1", "/h/.claude/projects/-w/abc-1.jsonl", 0.12, 1_000_000)
    for odd in (b"null", b'"12"', b"true", b"101", b"-1", b"NaN"):
        line = b'{"session_id": "a", "context_window": {"used_percentage": ' + odd + b"}}"
        parsed = parse_input(line)
        assert parsed is not None and parsed.fields() == ("a", None, None, None)


@pytest.fixture
def open_pipe(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """stdin as a pipe whose writer stays open; yields the writing end."""
    reading, writing = os.pipe()
    monkeypatch.setattr(sys, "stdin", os.fdopen(reading, "rb", buffering=0))
    yield writing
    os.close(writing)


def test_a_stdin_that_never_closes_is_read_until_the_deadline(open_pipe: int) -> None:
    os.write(open_pipe, b'{"session_id": "ab"}')
    started = time.monotonic()
    assert read_input() == b'{"session_id": "ab"}'
    assert time.monotonic() - started < STDIN_SECONDS + 0.5


def test_stdin_is_read_only_up_to_the_limit(open_pipe: int) -> None:
    os.write(open_pipe, b"y" * 5000)
    assert read_input(timeout=0.05, limit=1000) == b"y" * 1000
