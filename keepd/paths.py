"""Every path keepd reads or writes, decided in one place so tests can redirect them."""

from __future__ import annotations

import os
import re
from pathlib import Path

APP = "keepd"
_SLUG_LIMIT = 200


def claude_roots() -> list[Path]:
    """Claude Code config roots: `CLAUDE_CONFIG_DIR` (a comma list) or the usual two."""
    configured = os.environ.get("CLAUDE_CONFIG_DIR", "")
    if configured.strip():
        roots = [Path(part.strip()).expanduser() for part in configured.split(",") if part.strip()]
    else:
        home = Path.home()
        roots = [home / ".claude", home / ".config" / "claude"]
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


def project_slug(directory: str | Path) -> str:
    """The folder name Claude Code gives a working directory under `projects/`.

    >>> project_slug("/Users/me/.agents")
    '-Users-me--agents'
    """
    return re.sub(r"[^A-Za-z0-9]", "-", str(directory))


def slug_matches(folder: str, directory: str | Path) -> bool:
    """Whether a `projects/` folder is the one of `directory` (long slugs are cut and hashed)."""
    slug = project_slug(directory)
    if len(slug) <= _SLUG_LIMIT:
        return folder == slug
    return folder.startswith(slug[:_SLUG_LIMIT])


def _platform_dirs() -> object:
    from platformdirs import PlatformDirs

    return PlatformDirs(APP, appauthor=False)


def data_dir() -> Path:
    """Where keepd keeps what it writes for the user (notes)."""
    return Path(_platform_dirs().user_data_dir)  # type: ignore[attr-defined]


def config_file() -> Path:
    return Path(_platform_dirs().user_config_dir) / "config.toml"  # type: ignore[attr-defined]


def state_dir() -> Path:
    return Path(_platform_dirs().user_state_dir)  # type: ignore[attr-defined]


def reader_dir() -> Path:
    """Where the reader's answers are cached, one file per request (by its sha256)."""
    return state_dir() / "reader"


def notes_dir() -> Path:
    """Where notes are written: `KEEPD_NOTES_DIR` if set, else `notes` in the data dir."""
    configured = os.environ.get("KEEPD_NOTES_DIR", "").strip()
    if configured:
        return Path(configured).expanduser()
    return data_dir() / "notes"


def cuts_dir() -> Path:
    """Backups and records of the cuts keepd made, kept until `keepd undo`."""
    configured = os.environ.get("KEEPD_CUTS_DIR", "").strip()
    if configured:
        return Path(configured).expanduser()
    return state_dir() / "cuts"


def example_session() -> Path:
    """The transcript shipped with keepd, shown when a machine has no sessions."""
    return Path(__file__).parent / "data" / "example.jsonl"


def runtime_dir() -> Path:
    """The daemon's socket and lock: `$XDG_RUNTIME_DIR/keepd`, else `run` in the cache dir."""
    base = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if base:
        return Path(base) / APP
    return Path(_platform_dirs().user_cache_dir) / "run"  # type: ignore[attr-defined]


def socket_path() -> Path:
    return runtime_dir() / "keepd.sock"


def lock_path() -> Path:
    return runtime_dir() / "keepd.lock"


def daemon_state_file() -> Path:
    """What the daemon remembers across restarts: notices sent, mutes, the pause."""
    return state_dir() / "daemon.json"


def log_file() -> Path:
    """The daemon's log file where no journal collects stderr (launchd)."""
    return Path(_platform_dirs().user_log_dir) / "keepd.log"  # type: ignore[attr-defined]


def systemd_user_dir() -> Path:
    """Where systemd's user manager looks for the user's own units."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".config") / "systemd" / "user"


def autostart_dir() -> Path:
    """Where XDG autostart entries of the user's own are read at login."""
    base = os.environ.get("XDG_CONFIG_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".config") / "autostart"


def launch_agents_dir() -> Path:
    """Where launchd looks for the user's agents (macOS)."""
    return Path.home() / "Library" / "LaunchAgents"


def service_writable() -> list[Path]:
    """Every folder the daemon (or `keepd cut`) may write: keepd's own, and the Claude roots."""
    own = [data_dir(), notes_dir(), state_dir(), cuts_dir(), log_file().parent, runtime_dir()]
    return [*own, *claude_roots()]


def recall_dir() -> Path:
    """The recall store's folder (0700): the database and SQLite's journal files beside it."""
    return data_dir() / "recall"


def recall_db() -> Path:
    """The SQLite database of the messages keepd's cuts (and Claude Code's compactions) left out."""
    return recall_dir() / "recall.sqlite3"
