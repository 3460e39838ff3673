"""Claude Code's settings as they bear on a session's window and auto-compact point: the user's
`settings.json` (its `env` block included) over keepd's own environment, read each time its
file changes; with them, the disk's word on the files a cut would read back (`setup_for`).

keepd's environment is not the client's (a daemon started at login has neither the shell's
variables nor the terminal's), so `settings.json`'s `env` block comes first and the
environment second; the session's own compactions correct what neither shows (core/limits.py).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from keepd.core.limits import Settings, Setup, Told
from keepd.paths import claude_roots

MAX_BYTES = 1 << 20
MIN_COMPACT_WINDOW = 100_000  # 2.1.332 drops a smaller `autoCompactWindow` from the file
TRUE_WORDS = ("1", "true", "yes", "on")  # what the client counts as a variable set
_cache: dict[Path, tuple[tuple[int, int], dict[str, Any]]] = {}


def settings_file(session: Path | None = None) -> Path:
    """The `settings.json` of the config root a session file lies under (`…/projects/…`),
    else of the first root keepd watches."""
    if session is not None:
        for parent in session.parents:
            if parent.name == "projects":
                return parent.parent / "settings.json"
    return claude_roots()[0] / "settings.json"


def claude_settings(
    session: Path | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """What the settings file and the environment say (nothing for a missing or bad file)."""
    data = _read(settings_file(session))
    env = data.get("env")
    told = {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}
    merged = {**(os.environ if environ is None else environ), **told}
    model = data.get("model")
    model = model if isinstance(model, str) and model.strip() else merged.get("ANTHROPIC_MODEL")
    return Settings(
        model=model or None,
        compact_window=_compact_window(data.get("autoCompactWindow")),
        env_window=_tokens(merged.get("CLAUDE_CODE_AUTO_COMPACT_WINDOW")),
        percent=_percent(merged.get("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")),
        auto_compact=not (
            _set(merged.get("DISABLE_AUTO_COMPACT"))
            or _set(merged.get("DISABLE_COMPACT"))
            or data.get("autoCompactEnabled") is False
        ),
    )


def setup_for(session: Path | None, window: int | None = None, told: Told | None = None) -> Setup:
    """The setup of a session file: keepd's own window (if any), the settings, the status
    line's word, and the disk, for the files a cut would have Claude Code read back."""
    return Setup(
        window=window or None, settings=claude_settings(session), told=told, on_disk=on_disk
    )


def example_setup() -> Setup:
    """The bundled example's setup: no settings or status line of yours (the example reads the
    same everywhere), the disk as for any session, as the daemon following a copy of it has."""
    return Setup(on_disk=on_disk)


def on_disk(path: str) -> bool:
    """Whether the file a session's tool call named is still a file here; a relative path
    (keepd cannot tell what it was relative to) counts as there.

    >>> on_disk("/"), on_disk("/no/such/file"), on_disk("relative.py")
    (False, False, True)
    """
    file = Path(path)
    if not file.is_absolute():
        return True
    try:
        return file.is_file()
    except (OSError, ValueError):  # a folder it may not enter, a name the system refuses
        return False


def _read(path: Path) -> dict[str, Any]:
    """The file's object, cached until its size or time changes; {} when it cannot be read."""
    try:
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = _cache.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        if stat.st_size > MAX_BYTES:
            return {}
        data = orjson.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    data = data if isinstance(data, dict) else {}
    _cache[path] = (key, data)
    return data


def _tokens(value: object) -> int | None:
    """A token count (`300000`, `"300k"`); None for "auto", nothing or nonsense.

    >>> _tokens(300000), _tokens("300k"), _tokens("auto"), _tokens(True), _tokens("-5")
    (300000, 300000, None, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip().lower().replace(",", "").replace("_", "")
    scale = 1000 if text.endswith("k") else 1_000_000 if text.endswith("m") else 1
    try:
        number = float(text.rstrip("km"))
    except ValueError:
        return None
    return int(number * scale) if math.isfinite(number) and number > 0 else None


def _compact_window(value: object) -> int | None:
    tokens = _tokens(value)
    return tokens if tokens is not None and tokens >= MIN_COMPACT_WINDOW else None


def _percent(value: str | None) -> float | None:
    """CLAUDE_AUTOCOMPACT_PCT_OVERRIDE as the client reads it: a number in (0, 100]."""
    try:
        number = float(value) if value is not None else math.nan
    except ValueError:
        return None
    return number if 0 < number <= 100 else None


def _set(value: str | None) -> bool:
    return value is not None and value.strip().lower() in TRUE_WORDS
