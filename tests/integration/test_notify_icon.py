"""keepd's notification shows keepd's icon, not desktop-notifier's default (Python's logo):
the real daemon notifies a real server (dunst on Xvfb), and a screenshot of the display is
checked for the icon's colours. The same check on a notice sent with the library's default
icon finds Python's colours and not keepd's, so the check can tell the two apart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from keepd.data.icons import png_icon
from tests.integration.daemon_kit import (
    PrivateBus,
    append,
    example_lines,
    make_tree,
    need,
    running,
    wait_until,
)
from tests.integration.desktop import Dunst, screenshot

RGB = tuple[int, int, int]
KEEPD_ORANGE: RGB = (0xC2, 0x48, 0x1F)  # the tile of keepd/data/icons/keepd.svg
PYTHON_YELLOW: RGB = (0xF8, 0xC6, 0x3D)  # the two snakes of desktop-notifier's python.png
PYTHON_BLUE: RGB = (0x37, 0x7E, 0xF0)
NEAR = 40  # per channel: scaling and blending move colours a little, not across hues


def count_near(pixels: bytes, colour: RGB) -> int:
    r, g, b = colour
    return sum(
        1
        for i in range(0, len(pixels), 3)
        if abs(pixels[i] - r) <= NEAR
        and abs(pixels[i + 1] - g) <= NEAR
        and abs(pixels[i + 2] - b) <= NEAR
    )


def bounds(width: int, pixels: bytes, colour: RGB) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the pixels near `colour`."""
    r, g, b = colour
    xs, ys = [], []
    for i in range(0, len(pixels), 3):
        if (
            abs(pixels[i] - r) <= NEAR
            and abs(pixels[i + 1] - g) <= NEAR
            and abs(pixels[i + 2] - b) <= NEAR
        ):
            xs.append((i // 3) % width)
            ys.append((i // 3) // width)
    return min(xs), min(ys), max(xs), max(ys)


@pytest.fixture
def dunst(bus: PrivateBus) -> Iterator[Dunst]:
    need("import")
    server = Dunst(bus)
    try:
        yield server
    finally:
        server.close()


def test_the_notice_shows_keepds_icon(
    tmp_path: Path, bus: PrivateBus, dunst: Dunst, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = make_tree(tmp_path)
    tree.env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    path = tree.session()
    with running(tree):
        append(path, b"".join(example_lines()))
        wait_until(lambda: dunst.ctl("count", "displayed").strip() == "1")
        wait_until(lambda: count_near(screenshot(dunst, tmp_path / "keepd.png")[2], KEEPD_ORANGE))
        width, _, pixels = screenshot(dunst, tmp_path / "keepd.png")
    left, top, right, bottom = bounds(width, pixels, KEEPD_ORANGE)
    side = min(right - left, bottom - top) + 1
    assert side >= 16 and abs((right - left) - (bottom - top)) <= 2  # a square icon, drawn
    assert count_near(pixels, KEEPD_ORANGE) >= side * side // 2
    assert count_near(pixels, PYTHON_YELLOW) == 0 and count_near(pixels, PYTHON_BLUE) == 0
    dunst.ctl("close-all")
    [shown] = json.loads(dunst.ctl("history"))["data"][0]
    assert shown["icon_path"]["data"] == str(png_icon())

    # The same server and screenshot, given desktop-notifier's default icon: Python's colours.
    from desktop_notifier import DesktopNotifier

    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
    asyncio.run(DesktopNotifier(app_name="default").send("default", "the library's own icon"))
    wait_until(lambda: dunst.ctl("count", "displayed").strip() == "1")
    wait_until(lambda: count_near(screenshot(dunst, tmp_path / "python.png")[2], PYTHON_YELLOW))
    _, _, pixels = screenshot(dunst, tmp_path / "python.png")
    assert count_near(pixels, PYTHON_YELLOW) >= 64 and count_near(pixels, KEEPD_ORANGE) == 0
