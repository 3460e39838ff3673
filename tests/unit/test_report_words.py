"""The report speaks plainly (issue 16): a key line on a terminal, the note's plain words, a
trade that says how many stops it has, and a chart whose scale does not invent cliffs."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from keepd.api import analyse_file
from keepd.core.analysis import Analysis
from keepd.paths import example_session
from keepd.report.chart import MIN_SPAN, chart_lines
from keepd.report.legend import GRADES
from keepd.report.note import render_note
from keepd.report.terminal import ROWS_HEADING, Style, position, render

LABEL = re.compile(r"^\s*(-?\d+\.\d+) ┤")


def example() -> Analysis:
    return analyse_file(example_session())


def test_the_key_line_is_shown_on_a_terminal_only() -> None:
    analysis = example()
    piped = render(analysis, Style(width=100))
    shown = render(analysis, Style(width=100, legend=True))
    extra = [line for line in shown.splitlines() if line not in piped.splitlines()]
    assert len(extra) == 1, extra  # one line at 100 columns
    key = extra[0]
    rows = [line for line in piped.splitlines() if position(19) in line]
    assert rows and f"{position('N')}: Esc Esc, ↑ N+1 times" in key
    # the example's rows show ●●● and ●● (and ▔▔▁), no ●: the key names what is shown
    assert f"●●● {GRADES['●●●'].short}" in key and f"●● {GRADES['●●'].short}" in key
    assert f" ● {GRADES['●'].short}" not in key and "▔▔▁" in key
    assert "⎇ git branch" in key  # the example's pick follows a branch switch


def test_the_note_says_what_its_words_mean() -> None:
    page = render_note(example())
    key = page.split('<p class="key">', 1)[1].split("</p>", 1)[0]
    for words in (
        "rewind picker (Esc Esc)",
        "Self-containment (SC)",
        "The wiggle is",
        "●●● a clear change of work",
        "⎇ git branch",
    ):
        assert words in key, words


def test_a_trade_of_one_stop_is_not_called_light_to_deep() -> None:
    analysis = example()
    one = replace(analysis, pick=None, trade=[analysis.stops[20].uuid])
    text = render(one, Style(width=100))
    assert "one stop keeps enough words to offer" in text and "light to deep" not in text
    assert sum(position(analysis.stops[20].below) in line for line in text.splitlines()) == 1


def test_no_trade_prints_no_empty_table() -> None:
    analysis = example()
    text = render(replace(analysis, pick=None, trade=[]), Style(width=100))
    assert "no stop keeps enough words to offer one" in text
    assert ROWS_HEADING.strip() not in text


def test_three_stops_are_light_to_deep() -> None:
    analysis = example()
    three = [analysis.stops[i].uuid for i in (10, 20, 30)]
    text = render(replace(analysis, pick=None, trade=three), Style(width=100))
    assert "the trade, 3 stops light to deep" in text


def test_a_single_stop_gets_labels_within_0_and_1() -> None:
    for value in (0.0, 0.4, 1.0):
        labels = [float(m[1]) for line in chart_lines([value]) if (m := LABEL.match(line))]
        assert labels and all(0.0 <= label <= 1.0 for label in labels), (value, labels)


def test_a_flat_curve_is_drawn_flat() -> None:
    noise = [0.224, 0.227, 0.225, 0.226, 0.224, 0.227]
    lines = chart_lines(noise, height=7)
    filled = [i for i, line in enumerate(lines[:-1]) if line.split("┤", 1)[1].strip()]
    assert len(filled) == 1, lines  # one row: 0.003 of noise is not a cliff
    labels = [float(m[1]) for line in lines if (m := LABEL.match(line))]
    assert max(labels) - min(labels) >= MIN_SPAN * 6 / 7 - 0.01


def test_corpus_reports_never_show_a_header_over_nothing(corpus_sessions: list[Path]) -> None:
    for path in corpus_sessions:
        analysis = analyse_file(path)
        text = render(analysis, Style(width=100, legend=True))
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.lstrip().startswith(ROWS_HEADING.strip()):
                assert i + 1 < len(lines) and "%" in lines[i + 1], (path.name, text)
        if not analysis.pick and analysis.trade:
            assert ("light to deep" in text) == (len(analysis.trade) > 1), path.name
        labels = [float(m[1]) for line in lines if (m := LABEL.match(line))]
        assert all(0.0 <= label <= 1.0 for label in labels), (path.name, labels)


def test_quotes_stand_in_one_column_however_long_the_why() -> None:
    analysis = example()
    for width in (80, 100, 140):
        lines = render(analysis, Style(width=width)).splitlines()
        heading = next(line for line in lines if line.lstrip().startswith("stop "))
        rows = lines[lines.index(heading) + 1 :]
        rows = rows[: next(n for n, line in enumerate(rows) if not line.strip())]
        assert any("long" in line for line in rows), rows  # a why wider than 8 characters
        assert len({line.index('"') for line in rows}) == 1, rows
        assert heading.index("the message") == rows[0].index('"')
        for word, mark in (("frees", "▓"), ("shape", "●")):
            picked = next(line for line in rows if mark in line)
            assert heading.index(word) == picked.index(mark), (word, heading, picked)
