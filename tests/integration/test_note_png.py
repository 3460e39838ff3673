"""docs/note.png is the bundled example's note as headless Chromium shows it now
(scripts/docs_example.py makes it; run it after a change to the note)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.integration.browser import chromium, png_pixels

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "docs_example.py"


def test_the_docs_picture_is_the_note_the_program_writes() -> None:
    if chromium() is None:
        pytest.skip("chromium is not installed")
    spec = importlib.util.spec_from_file_location("docs_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    shot = script.note_png()
    assert png_pixels(shot)[:2] == (script.SHOT["width"], script.SHOT["height"])
    assert png_pixels(shot) == png_pixels(script.PNG.read_bytes()), (
        "docs/note.png differs from the example's note: run python scripts/docs_example.py"
    )
