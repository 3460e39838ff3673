"""Writes the note of a session and a PNG screenshot of its top part (docs/note.png).

Run: `python scripts/shoot_note.py SESSION.jsonl docs/note.png [--height 1150] [--dark]`.
Needs Debian's `chromium`; drives it with the tests' stdlib DevTools client.
"""

from __future__ import annotations

import argparse
import base64
import importlib
import sys
import tempfile
import time
from pathlib import Path

from keepd.api import analyse_file
from keepd.report.note import render_note, write_note

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("session", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=1150)
    parser.add_argument("--dark", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    browser_module = importlib.import_module("tests.integration.browser")
    executable = browser_module.chromium()
    if executable is None:
        print("chromium is not installed", file=sys.stderr)
        return 1
    analysis = analyse_file(args.session)
    started = time.perf_counter()
    page = render_note(analysis)
    print(
        f"rendered {len(page.encode()):,} bytes in {(time.perf_counter() - started) * 1e3:.1f} ms"
    )
    with tempfile.TemporaryDirectory() as folder, browser_module.Browser(executable) as browser:
        browser.open(write_note(analysis, Path(folder)))
        if browser.errors():
            print(f"console: {browser.errors()}", file=sys.stderr)
            return 1
        browser.color_scheme("dark" if args.dark else "light")
        metrics = {"width": args.width, "height": args.height, "deviceScaleFactor": 1}
        browser.page("Emulation.setDeviceMetricsOverride", {**metrics, "mobile": False})
        clip = {"x": 0, "y": 0, "width": args.width, "height": args.height, "scale": 1}
        shot = browser.page("Page.captureScreenshot", {"format": "png", "clip": clip})
        args.output.write_bytes(base64.b64decode(shot["data"]))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
