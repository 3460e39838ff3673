"""Makes the README's example report and docs/note.png from the bundled example session, so the
docs show what the program prints (tests/unit/test_docs_example.py and
tests/integration/test_note_png.py fail when they differ).

Run: `python scripts/docs_example.py` (writes both), `--check` (exit 1 when either differs),
`--text-only` (the README alone, without Chromium). The README's example stands between the
two marker comments; the PNG is the note's top part in headless Chromium (Debian's `chromium`).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import importlib
import io
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PNG = ROOT / "docs" / "note.png"
BEGIN = "<!-- the example report: made by scripts/docs_example.py, do not edit -->"
END = "<!-- end of the example report -->"
WIDTH = 80  # columns of the README's report: a terminal's usual width
SHOT = {"width": 1100, "height": 1150}  # the PNG's CSS pixels
_NOTE_LINK = re.compile(r"(?m)^(  the note and every stop: )file://\S+$")


def report_text() -> str:
    """What `keepd report --example --width 80` prints, the note's link made the same on any
    machine (it names the user's home folder)."""
    from keepd.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["report", "--example", "--width", str(WIDTH)])
    if code != 0:
        raise SystemExit(f"keepd report --example exited {code}")
    return _NOTE_LINK.sub(
        r"\1file:///home/you/.local/share/keepd/notes/2bcaea32-….html", out.getvalue()
    )


def readme_with(readme: str, report: str) -> str:
    """The README with `report` between the markers."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n```\n" + report + "```\n" + readme[end:]


def note_png() -> bytes:
    """The note of the bundled example, its top part, in headless Chromium (light scheme)."""
    sys.path.insert(0, str(ROOT))
    browser_module = importlib.import_module("tests.integration.browser")
    executable = browser_module.chromium()
    if executable is None:
        raise SystemExit("chromium is not installed")
    from keepd.api import analyse_file
    from keepd.paths import example_session
    from keepd.report.note import write_note

    analysis = analyse_file(example_session())
    with tempfile.TemporaryDirectory() as folder, browser_module.Browser(executable) as browser:
        browser.open(write_note(analysis, Path(folder)))
        if browser.errors():
            raise SystemExit(f"console: {browser.errors()}")
        browser.color_scheme("light")
        metrics = {**SHOT, "deviceScaleFactor": 1, "mobile": False}
        browser.page("Emulation.setDeviceMetricsOverride", metrics)
        clip = {"x": 0, "y": 0, **SHOT, "scale": 1}
        shot = browser.page("Page.captureScreenshot", {"format": "png", "clip": clip})
    return base64.b64decode(shot["data"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when the docs differ")
    parser.add_argument("--text-only", action="store_true", help="the README alone")
    args = parser.parse_args()
    readme = README.read_text(encoding="utf-8")
    wanted = readme_with(readme, report_text())
    differs = []
    if wanted != readme:
        differs.append(str(README))
        if not args.check:
            README.write_text(wanted, encoding="utf-8")
    if not args.text_only:
        sys.path.insert(0, str(ROOT))
        browser_module = importlib.import_module("tests.integration.browser")
        shot = note_png()
        same = PNG.exists() and browser_module.png_pixels(shot) == browser_module.png_pixels(
            PNG.read_bytes()
        )
        if not same:
            differs.append(str(PNG))
            if not args.check:
                PNG.write_bytes(shot)
    for path in differs:
        print(f"{'differs' if args.check else 'wrote'}: {path}")
    return 1 if args.check and differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
