"""The report's first screen adds up (issue 26): rows and counts, a key for exactly the marks
shown, one mark for a stop in the terminal, the JSON and the note, quotes without markup that
stay readable at 80 columns, and one recommended stop that `keepd cut --pick` takes too.

Each check runs on the bundled example and, where ../shared is present, on every corpus
session in both scopes."""

from __future__ import annotations

import functools
import html
import re
from dataclasses import replace
from pathlib import Path

import pytest

from keepd.api import analyse_file
from keepd.core.analysis import Analysis, Stop
from keepd.core.cues import BARE, prompt_marks
from keepd.core.steps import presses
from keepd.cut.plan import pick_stop, resolve_stop
from keepd.errors import NoSuchStopError
from keepd.ops.overview import pick_fields
from keepd.paths import example_session
from keepd.report.chart import LABEL
from keepd.report.legend import mark, marks_key
from keepd.report.note import render_note
from keepd.report.terminal import ROWS_HEADING, Style, position, render, row_stops

ROW = re.compile(r"^   [ →] (↑\d+)\s")
SHOWN = re.compile(r"^  (\d+) of (\d+) places? to stop shown")
HEADER = re.compile(r"(\d+) places? to stop")
# Claude Code's own tags around a prompt, and terminal escapes: a quote shows neither
MARKUP = re.compile(
    r"</?(?:command-(?:name|message|args)|local-command-std(?:out|err)|bash-(?:input|stdout|stderr)"
    r"|system-reminder|ide_(?:opened_file|selection|diagnostics)|task-notification)>|\x1b"
)
NOTE_ROW = re.compile(
    r'<td class="num" data-v="(\d+)">(?:→ )?↑\d+</td>.*?<td class="glyph">(.*?)</td>'
)


@functools.cache
def analyses(paths: tuple[Path, ...]) -> tuple[tuple[str, Analysis], ...]:
    """Read once for the module's tests: they only read an analysis, and each test's HOME is as
    empty as the next one's, so the first test's analyses are every test's (about 2.7 s each)."""
    out = [("example", analyse_file(example_session()))]
    for path in paths:
        out += [
            (f"{path.name} {scope}", analyse_file(path, whole=scope == "whole"))
            for scope in ("current", "whole")
        ]
    return tuple(out)


@pytest.fixture
def every(request: pytest.FixtureRequest) -> list[tuple[str, Analysis]]:
    """The example, and every corpus session in both scopes when ../shared is present."""
    try:
        paths: list[Path] = request.getfixturevalue("corpus_sessions")
    except pytest.skip.Exception:
        paths = []
    return list(analyses(tuple(paths)))


def rows_of(text: str) -> list[str]:
    return [line for line in text.splitlines() if ROW.match(line)]


def by_presses(analysis: Analysis) -> dict[str, Stop]:
    return {position(stop.below): stop for stop in analysis.stops}


def test_the_counts_add_up(every: list[tuple[str, Analysis]]) -> None:
    for name, analysis in every:
        text = render(analysis, Style(width=80))
        header = HEADER.search(text)
        assert header and int(header[1]) == analysis.stop_count, name
        rows = rows_of(text)
        assert len(rows) == len(row_stops(analysis)), name
        shown = [m for line in text.splitlines() if (m := SHOWN.match(line))]
        if len(rows) < analysis.stop_count:
            assert shown and (int(shown[0][1]), int(shown[0][2])) == (
                len(rows),
                header[1] and analysis.stop_count,
            ), name
            assert "keepd report --all" in text, name
        else:
            assert not shown, name
        every_row = rows_of(render(analysis, Style(width=80, every=True)))
        assert len(every_row) == analysis.stop_count, name
        assert not SHOWN.search(render(analysis, Style(width=80, every=True))), name


def test_the_key_names_exactly_the_marks_on_screen(every: list[tuple[str, Analysis]]) -> None:
    for name, analysis in every:
        rows = row_stops(analysis)
        text = render(analysis, Style(width=200))
        key_lines = [line for line in text.splitlines() if "↑N: Esc Esc" in line]
        if not rows:
            assert not key_lines, name
            continue
        key = key_lines[0]
        shown = {
            piece for stop in rows for piece in mark(stop.grade, stop.shape, stop.event).split()
        }
        explained = {part.split(" ", 1)[0] for part in key.strip().split(" · ")[1:]}
        assert explained == shown, (name, explained, shown)
        assert key.strip().split(" · ")[1:] == marks_key(shown), name


def test_a_stop_has_one_mark_in_the_terminal_the_json_and_the_note(
    every: list[tuple[str, Analysis]],
) -> None:
    for name, analysis in every:
        data = analysis.to_dict()
        from_json = {
            position(stop["below"]): mark(stop["grade"], stop["shape"], stop["event"])
            for stop in data["stops"]
        }
        for line in rows_of(render(analysis, Style(width=120, every=True))):
            where = ROW.match(line)
            assert where is not None
            cells = line[len(ROWS_HEADING) - len("the message") - 10 : len(ROWS_HEADING) - 11]
            assert cells.strip() == from_json[where[1]], (name, line)
        page = render_note(analysis)
        in_note = {
            int(m[1]): html.unescape(re.sub(r"<[^>]+>", "", m[2])) for m in NOTE_ROW.finditer(page)
        }
        assert len(in_note) == len(data["stops"]), name
        for stop in data["stops"]:
            assert in_note[stop["below"]] == from_json[position(stop["below"])], name
        # every graded stop shows its grade: a ●● in the JSON is a ●● on screen
        for stop in data["stops"]:
            if stop["grade"]:
                assert from_json[position(stop["below"])].split()[0] == stop["grade"], name


def test_quotes_show_no_markup_and_stay_readable_at_80_columns(
    every: list[tuple[str, Analysis]],
) -> None:
    for name, analysis in every:
        for line in rows_of(render(analysis, Style(width=80, every=True))):
            quote = line[len(ROWS_HEADING) - len("the message") :]
            assert not MARKUP.search(quote), (name, line)
            stop = by_presses(analysis)[ROW.match(line)[1]]  # type: ignore[index]
            text = " ".join(stop.quote.split()).rstrip("…")
            shown = quote.strip()[1:-1].rstrip("…")  # between the row's own quote marks
            assert len(shown) >= min(len(text), 40), (name, line)
        for stop in analysis.stops:
            assert not MARKUP.search(stop.quote), (name, stop.quote)


def test_one_stop_is_recommended_and_cut_pick_takes_it(every: list[tuple[str, Analysis]]) -> None:
    for name, analysis in every:
        target = analysis.target_stop()
        text = render(analysis, Style(width=100))
        arrows = [line for line in rows_of(text) if line.startswith("   → ")]
        fields = pick_fields(analysis)
        if target is None:
            assert not arrows, name
            with pytest.raises(NoSuchStopError):
                pick_stop(analysis)
            assert fields["below"] is None and "↑ " not in text.split("older → newer")[-1], name
            continue
        assert pick_stop(analysis) is target, name
        assert [ROW.match(line)[1] for line in arrows] == [position(target.below)], name  # type: ignore[index]
        assert fields["below"] == target.below, name  # the status line's stop
        assert resolve_stop(analysis, position(target.below)) is target, name
        if target.in_picker:
            times = "once" if presses(target.below) == 1 else f"{presses(target.below)} times"
            assert f"↑ {times} from “(current)”" in text, name
        # never a row with nothing of its own (/compact, /clear, shell input, "commit")
        assert not prompt_marks(target.quote_raw) & BARE, (name, target.quote)


def test_no_stop_to_recommend_means_no_keys_and_cut_pick_says_why() -> None:
    analysis = analyse_file(example_session())
    none = replace(analysis, pick=None, trade=[])
    text = render(none, Style(width=100))
    assert "No clear break, and no stop keeps enough words to suggest one" in text
    assert "Summarize up to here" not in text and not [
        line for line in rows_of(text) if line.startswith("   → ")
    ]
    with pytest.raises(NoSuchStopError, match="suggests no stop"):
        pick_stop(none)


def test_the_pointer_marks_only_the_recommended_column(every: list[tuple[str, Analysis]]) -> None:
    for name, analysis in every:
        lines = render(analysis, Style(width=80)).splitlines()
        pointers = [line for line in lines if "▲" in line]
        if analysis.target_stop() is None or not any("┤" in line for line in lines):
            assert not pointers, name
            continue
        [pointer] = pointers
        assert pointer.count("▲") == 1 and "·" not in pointer and "▔" not in pointer, name
        assert pointer.strip() in {
            "▲ the pick",
            "the pick ▲",
            "▲ the suggestion",
            "the suggestion ▲",
        }, name
        assert pointer.index("▲") >= 2 + LABEL - 1, name


def test_the_command_piped_gives_readable_quotes_and_all_gives_every_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from keepd.cli.main import main

    analysis = analyse_file(example_session())
    assert main(["report", "--example"]) == 0  # stdout is not a terminal here: piped
    piped = capsys.readouterr().out
    quotes = [line[len(ROWS_HEADING) - len("the message") :].strip() for line in rows_of(piped)]
    assert quotes and all(len(quote) >= 40 for quote in quotes), quotes
    assert "↑N: Esc Esc, then ↑ N times" in piped  # the key line, piped too
    assert main(["report", "--example", "--all"]) == 0
    every_row = capsys.readouterr().out
    assert len(rows_of(every_row)) == analysis.stop_count and not SHOWN.search(every_row)
