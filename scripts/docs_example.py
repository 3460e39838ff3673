"""Makes the README's example report and docs/note.png from the bundled example session, so the
docs show what the program prints (tests/unit/test_docs_example.py and
tests/integration/test_note_png.py fail when they differ).

Run: `python scripts/docs_example.py` (writes both), `--check` (exit 1 when either differs),
`--text-only` (the README alone, without Chromium). The README's example stands between the
two marker comments; the PNG is the note's top part in headless Chromium (Debian's `chromium`).
The PNG names, in iTXt chunks, the note it shows (`Note`: the hash of the note's HTML, the
example's path and keepd's version left out) and what drew it (`Source`: Chromium's version
and the font files of its generic families): the note is compared on every machine, the
pixels only where the same Chromium and fonts draw them.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import importlib
import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

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


def note_digest() -> str:
    """The sha256 of the bundled example's note as keepd writes it, the example's path and
    keepd's version (its footer names both) made the same on any machine."""
    from keepd.api import analyse_file
    from keepd.paths import example_session
    from keepd.report.note import write_note

    with tempfile.TemporaryDirectory() as folder:
        return _digest(write_note(analyse_file(example_session()), Path(folder)))


def _digest(note: Path) -> str:
    """The sha256 of a written note of the example, its path and keepd's version left out."""
    from keepd import __version__
    from keepd.paths import example_session

    html = note.read_text("utf-8")
    html = html.replace(str(example_session()), "EXAMPLE").replace(__version__, "VERSION")
    return hashlib.sha256(html.encode("utf-8")).hexdigest()


def renderer(executable: str) -> str:
    """What draws the PNG's pixels: Chromium's version and the files of the fonts its generic
    families stand for here."""
    fonts = [_output("fc-match", "-f", "%{file}", family) for family in ("sans-serif", "monospace")]
    return "; ".join([_output(executable, "--version").strip(), *fonts])


def _output(*argv: str) -> str:
    """What a command prints; "" when it is not there or fails (no fonts' word, then)."""
    try:
        done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _integration(name: str) -> ModuleType:
    """A helper module of tests/integration (the browser, the PNG chunks), from this checkout."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"tests.integration.{name}")


def note_png() -> bytes:
    """The note of the bundled example, its top part, in headless Chromium (light scheme),
    with the note's hash and what drew it as iTXt chunks (`Note`, `Source`)."""
    browser_module, desktop = _integration("browser"), _integration("desktop")
    executable = browser_module.chromium()
    if executable is None:
        raise SystemExit("chromium is not installed")
    from keepd.api import analyse_file
    from keepd.paths import example_session
    from keepd.report.note import write_note

    analysis = analyse_file(example_session())
    with tempfile.TemporaryDirectory() as folder, browser_module.Browser(executable) as browser:
        note = write_note(analysis, Path(folder))
        digest = _digest(note)
        browser.open(note)
        if browser.errors():
            raise SystemExit(f"console: {browser.errors()}")
        browser.color_scheme("light")
        metrics = {**SHOT, "deviceScaleFactor": 1, "mobile": False}
        browser.page("Emulation.setDeviceMetricsOverride", metrics)
        clip = {"x": 0, "y": 0, **SHOT, "scale": 1}
        shot = browser.page("Page.captureScreenshot", {"format": "png", "clip": clip})
    texts = {"Note": digest, "Source": renderer(executable)}
    return bytes(desktop.with_texts(base64.b64decode(shot["data"]), texts))


def same_picture(shot: bytes, committed: bytes) -> bool:
    """Whether the committed PNG shows the note `shot` shows: the same note, and the same
    pixels where the same Chromium and fonts drew both."""
    browser_module, desktop = _integration("browser"), _integration("desktop")
    now, then = desktop.png_texts(shot), desktop.png_texts(committed)
    if now.get("Note") != then.get("Note"):
        return False
    if now.get("Source") != then.get("Source"):
        return True
    return bool(browser_module.png_pixels(shot) == browser_module.png_pixels(committed))


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
        shot = note_png()
        if not (PNG.exists() and same_picture(shot, PNG.read_bytes())):
            differs.append(str(PNG))
            if not args.check:
                PNG.write_bytes(shot)
    for path in differs:
        print(f"{'differs' if args.check else 'wrote'}: {path}")
    return 1 if args.check and differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
