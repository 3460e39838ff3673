"""Notes of real and hostile sessions in a real headless Chromium, and the `note` command."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from keepd.api import analyse_file
from keepd.cli.main import main
from keepd.core.analysis import Analysis
from keepd.paths import example_session
from keepd.report.note import note_name, write_note
from tests.integration.browser import Browser, chromium, png_colors
from tests.unit.hostile import hostile_session

PROBE = """JSON.stringify({
  title: document.title,
  pwned: typeof window.pwned,
  pwnedNodes: document.getElementsByTagName("pwned").length,
  scripts: document.scripts.length,
  unwanted: document.querySelectorAll(
    "img, iframe, a, link:not([rel=icon]), base, object, embed").length,
  icons: Array.from(document.querySelectorAll("link[rel=icon]"), (l) => l.href.slice(0, 26)),
  styles: document.querySelectorAll("style").length,
  points: document.querySelectorAll("svg.curve circle.pt").length,
  curves: document.querySelectorAll("svg.curve").length,
  rows: document.querySelectorAll("table.stops tbody tr").length,
  visible: document.body.offsetHeight > 500
})"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = chromium()
    if executable is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    with Browser(executable) as running:
        yield running


def probe(browser: Browser, path: Path) -> dict[str, object]:
    browser.open(path)
    found: dict[str, object] = json.loads(browser.evaluate(PROBE))
    found["errors"] = browser.errors()
    return found


def assert_clean(found: dict[str, object], analysis: Analysis) -> None:
    assert found["errors"] == []
    title = str(found["title"])
    assert title.startswith("keepd · ") and "pwned" not in title
    assert found["pwned"] == "undefined" and found["pwnedNodes"] == 0
    assert found["scripts"] == 1 and found["styles"] == 1 and found["unwanted"] == 0
    assert found["icons"] == ["data:image/svg+xml;base64,"]  # keepd's icon, inline
    assert found["points"] == len(analysis.stops)
    assert found["rows"] == len(analysis.stops)
    assert found["curves"] == (1 if analysis.stops else 0)


@pytest.fixture
def hostile_note(tmp_path: Path) -> tuple[Path, Analysis]:
    source = tmp_path / "hostile.jsonl"
    source.write_bytes(hostile_session())
    analysis = analyse_file(source)
    return write_note(analysis, tmp_path / "notes"), analysis


def test_hostile_note_runs_nothing_from_the_session(
    browser: Browser, hostile_note: tuple[Path, Analysis]
) -> None:
    path, analysis = hostile_note
    found = probe(browser, path)
    assert_clean(found, analysis)


def test_hostile_note_is_safe_even_without_its_csp(
    browser: Browser, hostile_note: tuple[Path, Analysis]
) -> None:
    """The escaping alone must hold: strip the policy and nothing from the session runs."""
    path, analysis = hostile_note
    page = path.read_text(encoding="utf-8")
    bare, count = re.subn(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
    assert count == 1
    unguarded = path.with_name("unguarded.html")
    unguarded.write_text(bare, encoding="utf-8")
    found = probe(browser, unguarded)
    assert_clean(found, analysis)


def test_corpus_notes_load_cleanly(
    browser: Browser, corpus_sessions: list[Path], tmp_path: Path
) -> None:
    assert corpus_sessions
    for source in corpus_sessions:
        analysis = analyse_file(source)
        found = probe(browser, write_note(analysis, tmp_path))
        assert_clean(found, analysis)


def _with_pick(corpus_sessions: list[Path]) -> Analysis:
    for source in corpus_sessions:
        analysis = analyse_file(source)
        if analysis.pick and len(analysis.stops) >= 8:
            return analysis
    pytest.skip("no corpus session with a pick")


def test_screenshot_is_not_blank_in_light_dark_and_print(
    browser: Browser, corpus_sessions: list[Path], tmp_path: Path
) -> None:
    path = write_note(_with_pick(corpus_sessions), tmp_path)
    browser.open(path)
    backgrounds = {}
    for scheme, media in (("light", "screen"), ("dark", "screen"), ("dark", "print")):
        browser.color_scheme(scheme, media)
        assert png_colors(browser.screenshot(full=False, scale=0.25)) > 20
        body = browser.evaluate("getComputedStyle(document.body).backgroundColor")
        backgrounds[scheme, media] = body
    assert backgrounds["light", "screen"] != backgrounds["dark", "screen"]
    assert backgrounds["dark", "print"] == "rgb(255, 255, 255)"  # paper is white
    browser.color_scheme("light", "print")
    assert browser.evaluate("getComputedStyle(document.querySelector('.noprint')).display") == (
        "none"
    )
    browser.color_scheme("light")


def test_sorting_by_a_column(browser: Browser, corpus_sessions: list[Path], tmp_path: Path) -> None:
    analysis = _with_pick(corpus_sessions)
    browser.open(write_note(analysis, tmp_path))
    first = "document.querySelector('table.stops tbody tr td').getAttribute('data-v')"
    assert browser.evaluate(first) == str(analysis.stops[0].below)
    browser.evaluate("document.querySelector('table.stops th[data-sort] button').click()")
    assert browser.evaluate(first) == "0"
    browser.evaluate("document.querySelector('table.stops th[data-sort] button').click()")
    assert browser.evaluate(first) == str(len(analysis.stops) - 1)
    assert browser.errors() == []


def test_note_command_prints_the_file_uri(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "hostile.jsonl"
    source.write_bytes(hostile_session())
    assert main(["note", str(source), "--dir", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out == (tmp_path / "out" / note_name(analyse_file(source))).as_uri() + "\n"


def test_note_command_cannot_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["note", "--example", "--dir", str(blocker / "sub")]) == 73
    assert "cannot write the note" in capsys.readouterr().err


def test_report_writes_the_note_and_links_it_last(
    private_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--example", "--width", "100"]) == 0
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert last.startswith("  the note and every stop: file://")
    note = Path(last.split("file://", 1)[1])
    assert note.is_relative_to(private_home) and note.name.endswith(".html")
    assert note.stat().st_mode & 0o777 == 0o600
    analysis = analyse_file(example_session())
    assert note.name == note_name(analysis)


def test_report_json_writes_no_note(private_home: Path) -> None:
    assert main(["report", "--example", "--json"]) == 0
    assert not list(private_home.rglob("*.html"))


def test_quick_commands_do_not_import_numpy() -> None:
    code = "import sys, keepd.cli.main; keepd.cli.main._parser(); print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
