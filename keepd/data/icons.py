"""keepd's icon: the packaged SVG and its PNG sizes, where the desktop looks for them, and the
note's favicon. The PNGs are rendered once from the SVG (`scripts/make_icons.sh`) and committed.
"""

from __future__ import annotations

import base64
from pathlib import Path

ICON_NAME = "keepd"
SIZES = (16, 32, 48, 64, 128, 256)
NOTICE_SIZE = 128  # what a notification server is given; it scales it to its own size
_FOLDER = Path(__file__).resolve().parent / "icons"


def svg_icon() -> Path:
    """The drawn icon, inside the installed package."""
    return _FOLDER / f"{ICON_NAME}.svg"


def png_icon(size: int = NOTICE_SIZE) -> Path:
    """The icon rendered at `size` pixels square, inside the installed package."""
    if size not in SIZES:
        raise ValueError(f"no {size}px icon (sizes: {', '.join(map(str, SIZES))})")
    return _FOLDER / f"{ICON_NAME}-{size}.png"


def theme_files(data_home: Path) -> list[tuple[Path, Path]]:
    """(packaged file, its place in the user's hicolor theme) for every size and the SVG, as the
    icon theme specification lays them out under `$XDG_DATA_HOME/icons`.

    >>> [str(target) for _, target in theme_files(Path("/h"))][::6]
    ['/h/icons/hicolor/16x16/apps/keepd.png', '/h/icons/hicolor/scalable/apps/keepd.svg']
    """
    theme = data_home / "icons" / "hicolor"
    pairs = [
        (png_icon(size), theme / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png") for size in SIZES
    ]
    pairs.append((svg_icon(), theme / "scalable" / "apps" / f"{ICON_NAME}.svg"))
    return pairs


def favicon_uri() -> str:
    """The SVG as a `data:` URI, for the note's `<link rel="icon">` (it loads nothing else)."""
    encoded = base64.b64encode(svg_icon().read_bytes()).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"
