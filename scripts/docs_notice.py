"""Makes docs/notice.png: the notice the real daemon sends for the bundled example session, as
dunst shows it on an Xvfb display of its own with scripts/notice.dunstrc
(tests/integration/test_notice_png.py fails when it differs).

Run: `python scripts/docs_notice.py` (writes it) or `--check` (exit 1 when it differs). Needs
Xvfb, dunst, dbus-daemon, xwininfo and ImageMagick's `import` (Debian: xvfb, dunst, dbus-x11,
x11-utils, imagemagick). The daemon runs in a temporary HOME and Claude Code folder, on a private
bus. The PNG carries the notice's title and body as dunst received them, and the renderer (dunst's
version, the font files), as text: the test compares the text everywhere and the pixels where the
renderer is the same.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
PNG = ROOT / "docs" / "notice.png"
DUNSTRC = ROOT / "scripts" / "notice.dunstrc"
NEEDS = ("Xvfb", "dunst", "dunstctl", "dbus-daemon", "dbus-send", "xwininfo", "import")

if TYPE_CHECKING:
    from tests.integration.daemon_kit import PrivateBus
    from tests.integration.desktop import Dunst


def renderer() -> str:
    """What draws the notice's pixels: dunst's version and the files of the dunstrc's font."""
    version = subprocess.run(["dunst", "--version"], capture_output=True, text=True, check=True)
    [font] = [
        line.split("=", 1)[1].strip()
        for line in DUNSTRC.read_text().splitlines()
        if line.strip().startswith("font =")
    ]
    family = font.rsplit(" ", 1)[0]
    files = [
        subprocess.run(
            ["fc-match", "-f", "%{file}", f"{family}:{style}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for style in ("regular", "bold")
    ]
    dunst = "dunst " + " ".join(version.stdout.split()[-2:])  # "1.9.0 (2022-06-27)"
    return "; ".join([dunst, *files])


def notice_png(bus: PrivateBus) -> bytes:
    """The daemon's notice for the bundled example on dunst, cropped to dunst's window."""
    sys.path.insert(0, str(ROOT))
    from tests.integration.daemon_kit import append, example_lines, make_tree, running
    from tests.integration.desktop import Dunst, rgb_png

    dunst = Dunst(bus, DUNSTRC)
    try:
        with tempfile.TemporaryDirectory() as folder:
            tree = make_tree(Path(folder))
            tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            with running(tree):
                append(tree.session(), b"".join(example_lines()))
                width, height, pixels = _settled(dunst)
        [shown] = _history(dunst)
        texts = {
            "Title": shown["summary"]["data"],
            "Description": shown["body"]["data"],
            "Source": renderer(),
        }
        return rgb_png(width, height, pixels, texts)
    finally:
        dunst.close()


def _settled(dunst: Dunst) -> tuple[int, int, bytes]:
    """The notice's window once dunst shows one notice and two screenshots agree (the icon and
    the text are drawn)."""
    from tests.integration.daemon_kit import wait_until
    from tests.integration.desktop import crop, screenshot

    wait_until(lambda: dunst.ctl("count", "displayed").strip() == "1")
    last: list[bytes] = []

    def same_twice() -> tuple[int, int, bytes] | None:
        box = dunst.window()
        width, _, pixels = screenshot(dunst)
        shot = crop(width, pixels, box)
        again = last == [shot]
        last[:] = [shot]
        return (box[2], box[3], shot) if again else None

    settled: tuple[int, int, bytes] = wait_until(same_twice, step=0.2)
    return settled


def _history(dunst: Dunst) -> list[dict[str, dict[str, str]]]:
    import json

    dunst.ctl("close-all")
    shown: list[dict[str, dict[str, str]]] = json.loads(dunst.ctl("history"))["data"][0]
    return shown


def private_home(folder: Path) -> None:
    """HOME and the XDG folders in `folder`, so the daemon neither reads nor writes yours."""
    os.environ["HOME"] = str(folder)
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ):
        (folder / sub).mkdir(parents=True)
        os.environ[name] = str(folder / sub)
    os.environ.pop("CLAUDE_CONFIG_DIR", None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/notice.png differs")
    args = parser.parse_args()
    missing = [name for name in NEEDS if shutil.which(name) is None]
    if missing:
        print(f"not installed: {', '.join(missing)}", file=sys.stderr)
        return 1
    sys.path.insert(0, str(ROOT))
    from tests.integration.daemon_kit import SHORT_DIRS, PrivateBus

    with tempfile.TemporaryDirectory() as home:
        private_home(Path(home))
        bus = PrivateBus()
        try:
            shot = notice_png(bus)
        finally:
            bus.close()
            for folder in SHORT_DIRS:
                shutil.rmtree(folder, ignore_errors=True)
    if PNG.exists() and PNG.read_bytes() == shot:
        return 0
    print(f"{'differs' if args.check else 'wrote'}: {PNG}")
    if args.check:
        return 1
    PNG.write_bytes(shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
