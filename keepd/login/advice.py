"""How to install keepd, or add an optional part to it, the way this copy of keepd was installed.

keepd is not on the package index yet (docs/install.md), so advice never says `pipx install
keepd` or `pip install 'keepd[mcp]'`: it names the environment keepd runs in and the clone it
came from.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

CLONE = "PATH-TO-YOUR-KEEPD-CLONE"


def installer(prefix: Path | None = None) -> str:
    """What made the environment keepd runs in: "pipx", "uv" (`uv tool`) or "pip".

    >>> installer(Path("/home/me/.local/share/pipx/venvs/keepd"))
    'pipx'
    >>> installer(Path("/home/me/.local/share/uv/tools/keepd")), installer(Path("/w/.venv"))
    ('uv', 'pip')
    """
    where = prefix if prefix is not None else Path(sys.prefix)
    if where.parent.name == "venvs" and "pipx" in where.parts:
        return "pipx"
    if where.parent.name == "tools" and "uv" in where.parts:
        return "uv"
    return "pip"


def source() -> str:
    """The clone keepd was installed from: the folder its installer recorded (pipx, uv tool and
    pip write it into `direct_url.json`), or the one it runs from; else a placeholder."""
    recorded = _recorded_folder()
    if recorded is not None:
        return recorded
    clone = Path(__file__).resolve().parents[2]
    if (clone / "pyproject.toml").is_file() and (clone / "keepd" / "__init__.py").is_file():
        return str(clone)
    return CLONE


def _recorded_folder() -> str | None:
    """The local folder in keepd's `direct_url.json` (PEP 610), if it still holds keepd."""
    import json
    from importlib.metadata import distributions
    from urllib.parse import unquote, urlparse

    for found in distributions(name="keepd"):
        text = found.read_text("direct_url.json")
        if not text:
            continue
        try:
            url = urlparse(str(json.loads(text).get("url", "")))
        except (ValueError, AttributeError):
            continue
        folder = Path(unquote(url.path))
        if url.scheme == "file" and (folder / "pyproject.toml").is_file():
            return str(folder)
    return None


def add_package(package: str, prefix: Path | None = None, python: str | None = None) -> str:
    """The command that adds an optional package to the environment keepd runs in (`prefix`,
    `python`: this interpreter's, unless given)."""
    how = installer(prefix)
    if how == "pipx":
        return f"pipx inject keepd {package}"
    if how == "uv":
        return f"uv tool install --reinstall --with {package} {shlex.quote(source())}"
    return f"{shlex.quote(python or sys.executable)} -m pip install {package}"


def install_keepd() -> str:
    """The commands (in backticks) that install keepd for the user from its clone
    (docs/install.md)."""
    clone = shlex.quote(source())
    return f"`pipx install {clone}` or `uv tool install {clone}`"


def uninstall_keepd() -> str:
    """The command that removes keepd the way it was installed."""
    how = installer()
    if how == "pipx":
        return "pipx uninstall keepd"
    if how == "uv":
        return "uv tool uninstall keepd"
    return f"{shlex.quote(sys.executable)} -m pip uninstall keepd"
