"""keepd's icon ships in every size, goes into the user's icon theme with the service, leaves
with it, and is the note's favicon (issue 16)."""

from __future__ import annotations

import base64
import io
import struct
import subprocess
import sys

from keepd.api import analyse_texts
from keepd.data.icons import SIZES, favicon_uri, png_icon, svg_icon, theme_files
from keepd.login import control
from keepd.login.render import Extras
from keepd.login.systemd import Systemd
from keepd.paths import data_dir
from keepd.report.note import render_note
from tests.integration.test_service_install import KEEPD, Recorder

PNG = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_every_size_is_a_square_png_of_that_size() -> None:
    for size in SIZES:
        assert png_size(png_icon(size).read_bytes()) == (size, size)
    assert b'viewBox="0 0 256 256"' in svg_icon().read_bytes()


def test_the_service_puts_the_icon_in_the_theme_and_takes_it_away() -> None:
    out = io.StringIO()
    control.install(Systemd(Recorder()), KEEPD, Extras(), out, socket=True, dry=False)
    theme = data_dir().parent / "icons" / "hicolor"
    for size in SIZES:
        placed = theme / f"{size}x{size}" / "apps" / "keepd.png"
        assert placed.read_bytes() == png_icon(size).read_bytes()
    assert (theme / "scalable" / "apps" / "keepd.svg").read_bytes() == svg_icon().read_bytes()
    assert f"wrote {theme / '16x16' / 'apps' / 'keepd.png'}" in out.getvalue()
    out = io.StringIO()
    control.uninstall(Systemd(Recorder(active=True)), out, dry=False)
    assert not any(target.exists() for _, target in theme_files(data_dir().parent))
    assert f"removed {theme / 'scalable' / 'apps' / 'keepd.svg'}" in out.getvalue()


def test_a_dry_run_names_the_icons_without_printing_them() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "keepd", "service", "install", "--dry-run", "--manager", "systemd"],
        capture_output=True,
        text=True,
        check=True,
    )
    size = len(png_icon(256).read_bytes())
    assert f"/icons/hicolor/256x256/apps/keepd.png ({size:,} bytes)" in done.stdout
    assert "\ufffd" not in done.stdout and "PNG" not in done.stdout
    assert not (data_dir().parent / "icons").exists()


def test_the_note_carries_the_icon_as_its_favicon() -> None:
    page = render_note(analyse_texts(["plan the parser", "parser tests", "now the docs"]))
    link = f'<link rel="icon" type="image/svg+xml" href="{favicon_uri()}">'
    assert page.count("<link ") == 1 and link in page
    encoded = favicon_uri().split(",", 1)[1]
    assert base64.b64decode(encoded) == svg_icon().read_bytes()
    assert "img-src data:;" in page  # the page's policy lets the favicon in, nothing remote
