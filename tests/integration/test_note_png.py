"""docs/note.png is the bundled example's note as headless Chromium shows it now
(scripts/docs_example.py makes it; run it after a change to the note).

The note the picture shows (the hash of its HTML, named in the PNG) is compared on every
machine. The pixels depend on Chromium's version and the font files as well: they are
compared where those are the ones the committed picture names, so another Chromium does not
fail the test, and a change to what is drawn with this one does."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from tests.integration.browser import chromium, png_pixels
from tests.integration.desktop import png_texts

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "docs_example.py"
STALE = "docs/note.png differs from the example's note: run python scripts/docs_example.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_docs_picture_shows_the_note_the_program_writes() -> None:
    script = _script()
    assert png_texts(script.PNG.read_bytes()).get("Note") == script.note_digest(), STALE


def test_the_docs_picture_is_what_chromium_draws_of_that_note() -> None:
    if chromium() is None:
        pytest.skip("chromium is not installed")
    script = _script()
    shot, committed = script.note_png(), script.PNG.read_bytes()
    assert png_pixels(shot)[:2] == (script.SHOT["width"], script.SHOT["height"])
    assert script.same_picture(shot, committed), STALE  # the note, and pixels under one Source
