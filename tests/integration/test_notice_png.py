"""docs/notice.png is the notice the real daemon sends for the bundled example, as dunst shows it
on Xvfb with scripts/notice.dunstrc (scripts/docs_notice.py makes it; run it after a change to
the notice's words or to the dunstrc).

The notice's title and body as dunst received them are compared on every machine. The pixels
depend on dunst's version and the font files as well: they are compared where those are the
ones the committed picture names, so another desktop's fonts do not fail the test, and a
change to what is drawn on this one does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from keepd.api import analyse_file
from keepd.daemon.policy import words
from keepd.paths import example_session
from keepd.system.settings import example_setup
from tests.integration.browser import png_pixels
from tests.integration.daemon_kit import PrivateBus, need
from tests.integration.desktop import png_texts

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "docs_notice.py"
STALE = "docs/notice.png differs from the example's notice: run python scripts/docs_notice.py"


def test_the_docs_picture_is_the_notice_the_daemon_shows(bus: PrivateBus) -> None:
    need("import", "xwininfo", "fc-match")
    spec = importlib.util.spec_from_file_location("docs_notice", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    shot = script.notice_png(bus)
    committed = script.PNG.read_bytes()
    now, then = png_texts(shot), png_texts(committed)
    # The break notice names the report's pick, and says what `keepd report --example` says.
    analysis = analyse_file(example_session(), setup=example_setup())
    assert (now["Title"], now["Description"]) == words(
        analysis, analysis.stop(analysis.pick), urgent=False
    )
    assert (now["Title"], now["Description"]) == (then["Title"], then["Description"]), STALE
    width, height, _ = png_pixels(shot)
    assert width >= 400 and height >= 100  # dunst's window, not the whole display
    if now["Source"] == then["Source"]:
        assert png_pixels(shot) == png_pixels(committed), STALE
