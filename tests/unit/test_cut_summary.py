"""Where a summary comes from: a file, `claude -p` with keepd's guidance, or keepd's own gist."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from keepd.cut.gist import gist, transcript
from keepd.cut.load import Loaded, load
from keepd.cut.summary import SummaryRequest, read_summary_file, summary_body
from keepd.errors import SummaryError
from tests.unit.builders import Chain, tool_result, tool_use_block
from tests.unit.cut_sessions import conversation, write_session

CLAUDE = """#!{python}
import os, sys
prompt = sys.stdin.read()
with open(os.environ["FAKE_CLAUDE_LOG"], "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n" + prompt)
if os.environ.get("FAKE_CLAUDE_FAIL"):
    print("boom: no credit", file=sys.stderr)
    sys.exit(3)
print("A summary from claude.")
"""


@pytest.fixture
def loaded(tmp_path: Path) -> Loaded:
    chain = conversation()
    edit = tool_use_block("t-edit", "Edit", file_path="/home/dev/project/src/tokenizer.py")
    chain.prompt("fix the tokenizer grammar file")
    chain.reply([edit], context=4000)
    chain.add(tool_result("r-edit", "u014", "t-edit"))
    chain.reply("fixed the tokenizer grammar", context=4100)
    chain.turn("thanks, now the tokenizer grammar docs", "docs written", context=4200)
    return load(write_session(tmp_path, chain))


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "claude"
    script.write_text(CLAUDE.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "claude.log"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    return log


def test_gist_quotes_requests_files_endings_and_words(loaded: Loaded) -> None:
    text = gist(loaded, 20)
    assert "no model wrote this" in text
    assert "- message 2: “what is the weather like in lisbon today”" in text
    assert "- changed: src/tokenizer.py" in text
    assert "- messages 7-9 ended with: “the tokenizer is written and its grammar" in text
    assert "- messages 17-19: a side trip; nothing kept refers back to it" in text
    assert "Words the kept part still uses" in text and "tokenizer" in text


def test_the_users_claude_writes_it_with_keepds_guidance(loaded: Loaded, fake_claude: Path) -> None:
    body, source = summary_body(loaded, 20, SummaryRequest(summarize=True))
    assert (body, source) == ("A summary from claude.", "claude -p")
    sent = fake_claude.read_text()
    assert sent.startswith(
        "-p --output-format text --tools  --strict-mcp-config --no-session-persistence\n"
    )
    assert "It relies on these words from before that message" in sent
    assert "[2] User: what is the weather like in lisbon today" in sent
    assert "[17] Assistant calls Edit:" in sent


def test_a_failing_claude_falls_back_to_the_gist(
    loaded: Loaded, fake_claude: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "1")
    body, source = summary_body(loaded, 20, SummaryRequest(summarize=True))
    assert source == "keepd's gist (claude -p failed: boom: no credit)"
    assert "no model wrote this" in body


def test_without_claude_the_gist(loaded: Loaded, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    body, source = summary_body(loaded, 20, SummaryRequest(summarize=True))
    assert source == "keepd's gist (claude is not installed)" and body


def test_a_dry_run_never_starts_claude(loaded: Loaded, fake_claude: Path) -> None:
    _, source = summary_body(loaded, 20, SummaryRequest(summarize=True, run=False))
    assert "gist shown" in source and not fake_claude.exists()


def test_given_text_wins(loaded: Loaded, fake_claude: Path) -> None:
    request = SummaryRequest(text="mine\n", origin="stdin", summarize=True)
    assert summary_body(loaded, 20, request) == ("mine", "stdin")
    assert not fake_claude.exists()


def test_summary_files(tmp_path: Path) -> None:
    good, empty = tmp_path / "s.md", tmp_path / "e.md"
    good.write_text("  the summary \n")
    empty.write_text(" \n")
    assert read_summary_file(good) == "the summary"
    with pytest.raises(SummaryError, match="empty"):
        read_summary_file(empty)
    with pytest.raises(SummaryError):
        read_summary_file(tmp_path / "missing.md")


def test_transcript_keeps_head_and_tail_within_its_budget(tmp_path: Path) -> None:
    chain = Chain()
    for i in range(200):
        chain.turn(f"request number {i} " + "x" * 80, f"answer {i}")
    loaded = load(write_session(tmp_path, chain))
    text = transcript(loaded, range(400), budget=5000)
    assert len(text) <= 5100
    assert "request number 0 " in text and "answer 199" in text
    assert "the middle is left out" in text
