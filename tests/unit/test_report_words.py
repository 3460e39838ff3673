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


def test_the_key_line_names_only_the_marks_on_screen() -> None:
    analysis = example()
    plain = render(analysis, Style(width=100, legend=False))
    shown = render(analysis, Style(width=100))
    extra = [line for line in shown.splitlines() if line not in plain.splitlines()]
    assert 1 <= len(extra) <= 2, extra  # a line or two at 100 columns
    key = " · ".join(extra)
    assert f"{position('N')}: Esc Esc, then ↑ N times" in key
    # the example's rows show ●●●, ●●, ▔▔▁ and ⎇ and no ●, ⏸ or ✂
    assert f"●●● {GRADES['●●●'].short}" in key and f"●● {GRADES['●●'].short}" in key
    assert f" ● {GRADES['●'].short}" not in key and "▔▔▁" in key and "⎇" in key
    assert "⏸" not in key and "✂" not in key


def test_the_note_says_what_its_words_mean() -> None:
    page = render_note(example())
    key = page.split('<p class="key">', 1)[1].split("</p>", 1)[0]
    for words in (
        "rewind picker (Esc Esc)",
        "Self-containment (SC)",
        "↑N names it",
        "●●● a new task starts here",
        "⎇ another git branch",
    ):
        assert words in key, words


def test_a_trade_of_one_stop_says_the_keys_go_to_it() -> None:
    analysis = example()
    one = replace(analysis, pick=None, trade=[analysis.stops[20].uuid])
    text = render(one, Style(width=100))
    assert "One stop stands on its own enough to suggest; the keys below go to it" in text
    assert sum(position(analysis.stops[20].below) in line for line in text.splitlines()) == 1


def test_no_trade_prints_no_empty_table() -> None:
    analysis = example()
    text = render(replace(analysis, pick=None, trade=[], zones=[]), Style(width=100))
    assert "no stop keeps enough words to suggest one" in text
    assert ROWS_HEADING.strip() not in text


def test_three_stops_name_the_one_the_keys_go_to() -> None:
    analysis = example()
    three = [analysis.stops[i].uuid for i in (10, 20, 30)]
    text = render(replace(analysis, pick=None, trade=three), Style(width=100))
    assert "The 3 stops that stand on their own best" in text and "the one marked →" in text
    arrow = next(line for line in text.splitlines() if line.startswith("   → "))
    assert position(analysis.stops[20].below) in arrow


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
        text = render(analysis, Style(width=100))
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(ROWS_HEADING):
                assert i + 1 < len(lines) and "%" in lines[i + 1], (path.name, text)
        if not analysis.pick and analysis.trade:
            assert ("the one marked →" in text) == (len(analysis.trade) > 1), path.name
        labels = [float(m[1]) for line in lines if (m := LABEL.match(line))]
        assert all(0.0 <= label <= 1.0 for label in labels), (path.name, labels)


def test_quotes_and_marks_stand_in_their_columns() -> None:
    analysis = example()
    for width in (80, 100, 140):
        lines = render(analysis, Style(width=width)).splitlines()
        heading = next(line for line in lines if line.startswith(ROWS_HEADING))
        rows = lines[lines.index(heading) + 1 :]
        rows = rows[: next(n for n, line in enumerate(rows) if not line.startswith("   "))]
        assert any("▔▔▁" in line for line in rows), rows  # the widest mark
        assert len({line.index('"') for line in rows}) == 1, rows
        assert heading.index("the message") == rows[0].index('"')
        for word, glyph in (("stop", "↑"), ("frees", "▓"), ("mark", "●")):
            picked = next(line for line in rows if glyph in line)
            assert heading.index(word) == picked.index(glyph), (word, heading, picked)
