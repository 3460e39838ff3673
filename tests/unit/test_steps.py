"""The picker instruction's one wording (core/steps.py) and the quotes it confirms with."""

from __future__ import annotations

from dataclasses import dataclass

from keepd.core import steps
from keepd.core.quote import raw, shown


@dataclass
class _Stop:
    uuid: str
    below: int
    quote: str
    in_picker: bool = True


def test_presses_count_from_current() -> None:
    assert [steps.presses(below) for below in (0, 1, 19)] == [1, 2, 20]
    assert steps.keys(19) == "Esc Esc ↑20 Enter ↓2"


def test_the_sentence_names_keys_row_and_option() -> None:
    text = steps.instruction(_Stop("u1", 4, "fix the\nparser  now"))
    assert text == ("Esc Esc → ↑ 5 times from “(current)” → the row reads “fix the parser now” "
                    "→ Enter, then ↓ 2 to “Summarize up to here”, not the first option: it "
                    "rewinds the conversation → Enter")
    assert steps.as_json(_Stop("u1", 4, "fix it")) == {
        "stop": "u1", "presses": 5, "row": "fix it", "menu": list(steps.MENU_WITHOUT_CODE),
        "option": "Summarize up to here", "downs": 2, "text": steps.sentence(4, "fix it")}


def test_no_stop_or_one_the_picker_cannot_reach() -> None:
    assert steps.instruction(None) == steps.NOTHING
    unreachable = _Stop("u1", 3, "old", in_picker=False)
    assert steps.instruction(unreachable) == steps.UNREACHABLE
    assert steps.as_json(unreachable) is None and steps.as_json(None) is None


def test_a_long_row_is_cut_to_the_room_given() -> None:
    text = steps.sentence(0, "x" * 200, room=20)
    assert "“" + "x" * 19 + "…”" in text


def test_quotes_never_show_tags_and_raw_keeps_them() -> None:
    texts = ["<command-message>r</command-message><command-name>/review</command-name>"
             "<command-args>12</command-args>"]
    assert shown(texts) == "/review 12"
    assert raw(texts).startswith("<command-message>")
    assert shown(["<ide_selection>The user selected the lines 3 to 3 from /a/b.py:\nx"
                  "</ide_selection>"]) == "IDE: line 3 of b.py"
    assert shown(["<ide_diagnostics>[]</ide_diagnostics>"]) == "IDE context"
    assert shown(["<bash-input>make", "more</bash-input>"]) == "! make"
    assert shown(["x" * 300]).endswith("…") and len(shown(["x" * 300])) == 240
