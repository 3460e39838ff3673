"""The note without a browser: escaping, the CSP, its sections, and the private atomic write."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import stat
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from keepd.api import analyse_file, analyse_texts
from keepd.core.analysis import Analysis, BlockInfo
from keepd.data.icons import favicon_uri
from keepd.paths import example_session
from keepd.report.instructions import block_start, summary_instructions, word_groups
from keepd.report.note import note_name, render_note, write_note, write_private
from keepd.report.svg import frame_of
from tests.unit.hostile import ATTACKS, PROJECT, hostile_session

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "header", "h1", "h2", "p", "span",
    "b", "code", "q", "section", "ul", "li", "figure", "figcaption", "svg", "line", "text",
    "rect", "path", "polygon", "circle", "g", "table", "thead", "tbody", "tr", "th", "td", "pre",
    "footer", "script", "link",
}  # fmt: skip


class Tags(HTMLParser):
    """Collects every start tag and its attributes, and the text of script and style elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._open = tag if tag in self.raw else None

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        if self._open:
            self.raw[self._open].append(data)

    def handle_endtag(self, tag: str) -> None:
        self._open = None


def parse(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    tags.close()
    return tags


@pytest.fixture
def hostile(tmp_path: Path) -> Analysis:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(hostile_session())
    return analyse_file(path)


def test_hostile_text_never_becomes_markup(hostile: Analysis) -> None:
    page = render_note(hostile)
    tags = parse(page)
    names = {name for name, _ in tags.tags}
    assert names <= ALLOWED_TAGS, names - ALLOWED_TAGS
    assert [name for name, _ in tags.tags].count("script") == 1
    assert [name for name, _ in tags.tags].count("style") == 1
    for name, attrs in tags.tags:
        assert not any(key.startswith("on") for key in attrs), (name, attrs)
        if name == "link":  # the one link: keepd's own icon, inline, never session text
            assert attrs == {"rel": "icon", "type": "image/svg+xml", "href": favicon_uri()}
            continue
        assert not {"href", "src", "xlink:href", "style"} & set(attrs), (name, attrs)
    for attack in ATTACKS:
        assert attack not in page
    assert "&lt;script&gt;document.title=&quot;pwned&quot;" in page
    assert "&amp;lt;script&amp;gt; literal entities" in page  # entities shown, not decoded
    assert PROJECT not in page and "/tmp/&lt;script&gt;" in page


def test_the_csp_allows_exactly_the_notes_own_style_and_script(hostile: Analysis) -> None:
    tags = parse(render_note(hostile))
    policy = next(
        attrs["content"]
        for name, attrs in tags.tags
        if name == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    for kind in ("script", "style"):
        (source,) = tags.raw[kind]
        digest = base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()
        assert f"{kind}-src 'sha256-{digest}'" in policy


def test_one_point_per_stop_and_one_row_per_stop(hostile: Analysis) -> None:
    page = render_note(hostile)
    assert len(re.findall(r'<circle class="pt[ "]', page)) == len(hostile.stops) > 10
    assert page.count("<tr") == len(hostile.stops) + 1 + len(hostile.blocks) + 1
    assert page.count('<tr class="pick"') == 1
    assert "Esc Esc → ↑ " in page and "from “(current)”" in page


def test_a_huge_prompt_is_cut(hostile: Analysis) -> None:
    page = render_note(hostile)
    assert len(page) < 200_000
    assert max(len(line) for line in page.splitlines()) < 20_000


def test_control_and_bidi_characters_are_dropped() -> None:
    analysis = analyse_texts(["plan the \u202eparser\x1b[31m", "parser tests", "docs site"])
    page = render_note(analysis)
    assert "\u202e" not in page and "\x1b" not in page


def test_summary_names_words_their_source_and_side_trips(hostile: Analysis) -> None:
    text = summary_instructions(hostile)
    assert text.startswith("When you summarize this conversation: the work from my message")
    for word in hostile.borrowed_words:
        assert f"{word.word} ×{word.uses}" in text
    assert text.count("\n- ") >= len(word_groups(hostile)) >= 1
    trips = [block for block in hostile.blocks if block.side_trip]
    assert trips and "Drop these earlier parts whole" in text
    for block in trips:
        assert f"- messages {block.first}-{block.last}" in text


def test_no_pick_shows_the_trade(hostile: Analysis) -> None:
    middle = hostile.stops[len(hostile.stops) // 2].uuid
    trade = [hostile.stops[2].uuid, middle, hostile.stops[-2].uuid]
    page = render_note(replace(hostile, pick=None, trade=trade))
    assert "No clear break" in page and "the suggestion: <b>↑" in page
    # the suggested stop is the one row marked, as the keys go to it
    assert page.count('<tr class="pick"') == 1 and page.count('class="tradeline"') == 3


def test_notes_of_sessions_without_stops_or_ids() -> None:
    empty = analyse_texts([])
    assert "No places to stop yet" in render_note(empty)
    assert note_name(empty) == "session.html"
    plain = analyse_texts(["plan the parser", "parser tests", "now the docs site"])
    assert "<svg" in render_note(plain)


@pytest.mark.parametrize(
    ("ident", "safe"),
    [
        ("2bcaea32-dfa9-5e36-a665-ace49ee0d851", True),
        ("../../etc/passwd", False),
        ("..", False),
        ("a/b", False),
        ('x"><script>', False),
        ("", False),
        ("x" * 500, False),
    ],
)
def test_note_names_are_safe_file_names(ident: str, safe: bool) -> None:
    analysis = replace(analyse_texts(["a b c"]), session_id=ident or None)
    name = note_name(analysis)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*\.html", name)
    assert (name == f"{ident}.html") is safe


def test_write_note_is_private_and_atomic(tmp_path: Path, hostile: Analysis) -> None:
    folder = tmp_path / "deep" / "notes"
    path = write_note(hostile, folder)
    assert path == folder / note_name(hostile)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    first = path.stat().st_ino
    path.chmod(0o644)
    again = write_note(hostile, folder)
    assert again == path and path.stat().st_ino != first  # replaced, not rewritten in place
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


def test_a_failed_write_leaves_the_old_note_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    target = folder / "n.html"
    target.write_bytes(b"old")

    def broken(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken)
    with pytest.raises(OSError, match="No space"):
        write_private(target, b"new")
    assert target.read_bytes() == b"old"
    assert [p.name for p in folder.iterdir()] == ["n.html"]


def test_default_folder_honours_keepd_notes_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KEEPD_NOTES_DIR", str(tmp_path / "mine"))
    path = write_note(analyse_file(example_session()))
    assert path.parent == tmp_path / "mine"
    assert os.access(path, os.R_OK)


def test_default_folder_is_under_the_user_data_dir(private_home: Path) -> None:
    path = write_note(analyse_file(example_session()))
    assert path.is_relative_to(private_home / ".local" / "share" / "keepd" / "notes")


def test_stops_too_early_or_late_to_pick_do_not_squash_the_scale(hostile: Analysis) -> None:
    frame = frame_of(hostile.stops)
    first = hostile.stops[0]
    assert first.sc == 1.0 and frame.off(first.sc) and frame.high < 1.0
    assert frame.y(first.sc) == frame.y(frame.high)  # drawn at the edge
    page = render_note(hostile)
    assert page.count('class="pt off') >= 1 and "off the scale" in page


def test_a_block_that_starts_inside_a_turn_says_so() -> None:
    texts = ["plan the parser", "the lexer first", "now tokens", "then docs", "the site"]
    analysis = analyse_texts(texts)
    fewer = replace(analysis, stops=[analysis.stops[0], analysis.stops[3]])
    block = BlockInfo(1, 4, None, 3, 0.01, True, "")
    assert block_start(fewer, block) == (
        "inside the turn that began “plan the parser”, then “then docs”"
    )
    assert block_start(analysis, block) == "beginning “the lexer first”"


def test_a_clear_break_says_how_sure_as_the_notice_does_in_the_note_and_the_json() -> None:
    analysis = analyse_file(example_session())
    page = render_note(analysis)
    pick = analysis.stop(analysis.pick)
    assert pick is not None and pick.grade == "●●●" and "work finished" in (pick.reasons or [])
    assert "Fairly sure: work was finished just before it." in page
    steps = analysis.to_dict()["steps"]
    assert steps["sure"] == "Fairly sure: work was finished just before it."
    step = replace(analysis, pick=None, trade=[s.uuid for s in analysis.stops if not s.grade][:1])
    assert step.to_dict()["steps"]["sure"] is None  # a stop not ●●● says nothing of it
