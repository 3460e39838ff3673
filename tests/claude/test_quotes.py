"""Quotes as the real picker shows them: keepd's `quote` for slash commands, shell-mode input,
IDE context and plain text is the picker's row; the raw text stays in `quote_raw`."""

from __future__ import annotations

from collections.abc import Callable

from tests.claude import picker
from tests.claude.client import World
from tests.claude.sessions import place_chain
from tests.claude.tmux import Tmux
from tests.unit.builders import Block, Chain, image, text

OPENED = ("<ide_opened_file>The user opened the file /x/README.md in the IDE. This may or may "
          "not be related to the current task.</ide_opened_file>")
SELECTED = ("<ide_selection>The user selected the lines 5 to 6 from /x/a.py:\nfoo\n\nThis may "
            "or may not be related to the current task.</ide_selection>")
PROMPTS: list[tuple[list[str], str]] = [
    (["plain first prompt"], "plain first prompt"),
    (["<command-message>gsd:discuss-phase</command-message>\n<command-name>/gsd:discuss-phase"
      "</command-name>\n<command-args>14\nand more</command-args>"], "/gsd:discuss-phase 14"),
    (["<command-name>clear</command-name>\n<command-message>clear</command-message>\n"
      "<command-args></command-args>"], "/clear"),
    (["<bash-input>git switch main</bash-input>"], "! git switch main"),
    ([OPENED, "fix the readme please"], "fix the readme please"),
    (["text before ide", SELECTED], "text before ide"),
    (["multi\nline prompt"], "multi…"),
    (["first block", "second block"], "first block…"),
    (["\n\n  leading blank lines then words"], "leading blank lines then words"),
    ([OPENED], "IDE: opened README.md"),
    (["last prompt"], "last prompt"),
]


def test_quotes_are_the_pickers_rows(world: World, tmux_ui: Callable[..., Tmux]) -> None:
    chain = Chain()
    for texts, _ in PROMPTS:
        chain.prompt([text(t) for t in texts])
        chain.reply("ok")
    session_id = place_chain(world, chain)
    stops = world.report(session_id)["stops"]
    assert [stop["quote"] for stop in stops] == [shown for _, shown in PROMPTS]
    assert [stop["quote_raw"] for stop in stops] == [
        " ".join(" ".join(texts).split()) for texts, _ in PROMPTS
    ]
    ui = picker.resume(tmux_ui, session_id)
    picker.open_picker(ui)
    rows = picker.all_entries(ui)[:-1]
    for row, stop in zip(rows, stops, strict=True):
        if stop["quote"].startswith("IDE: "):
            # IDE context alone: the picker shows the raw tag, keepd its short form.
            assert row.startswith("<ide_opened_file>The user opened the file /x/README.md")
        else:
            assert row == stop["quote"]


UNSEEN: list[tuple[list[Block], str]] = [
    ([text("\x0f\x0fこれも一旦PRに")], "これも一旦PRに"),
    ([text("bell\x07in the middle")], "bellin the middle"),
    ([text("esc\x1b[31mred\x1b[0m end")], "escred end"),
    ([text("del\x7fchar and c1\x85x\x9bz")], "delchar and c1xz"),
    ([text("zero\u200bwidth and bom\ufeffx")], "zerowidth and bomx"),
    ([image()], "(no prompt)"),
    ([image(), text("with an image")], "with an image"),
    ([text("   ")], "(no prompt)"),
    ([text("last")], "last"),
]


def test_unseen_characters_and_empty_prompts_are_the_pickers_rows(
    world: World, tmux_ui: Callable[..., Tmux]
) -> None:
    """Control characters, escape sequences and zero-width characters do not show in the row;
    a prompt without text (an image alone, blanks) reads "(no prompt)", as keepd quotes it."""
    chain = Chain()
    for blocks, _ in UNSEEN:
        chain.prompt(blocks)
        chain.reply("ok")
    session_id = place_chain(world, chain)
    stops = world.report(session_id)["stops"]
    assert [stop["quote"] for stop in stops] == [row for _, row in UNSEEN]
    ui = picker.resume(tmux_ui, session_id)
    picker.open_picker(ui)
    assert picker.all_entries(ui)[:-1] == [row for _, row in UNSEEN]
