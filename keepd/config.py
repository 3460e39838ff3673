"""The user's configuration: a TOML file the daemon only reads, every key checked by name.

>>> config = parse_config({"notify": {"threshold": 0.7}}, "test.toml")
>>> config.notify.threshold, config.notify.urgent
(0.7, 0.8)
>>> parse_config({"notify": {"treshold": 0.7}}, "test.toml")
Traceback (most recent call last):
...
keepd.errors.ConfigError: bad configuration: test.toml: unknown key notify.treshold
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from keepd.errors import ConfigError
from keepd.paths import config_file

LEVELS = ("debug", "info", "warning", "error")


def _key(default: Any, doc: str, low: float | None = None, high: float | None = None) -> Any:
    return field(default=default, metadata={"doc": doc, "low": low, "high": high})


@dataclass(frozen=True, slots=True)
class NotifyConfig:
    """When and how the daemon tells you about a session."""

    enabled: bool = _key(True, "send desktop notifications at all")
    threshold: float = _key(0.60, "context share of the window that arms the notice", 0.05, 1.0)
    urgent: float = _key(
        0.80,
        "share of the way to auto-compact for the urgent notice (of the window if off)",
        0.05,
        1.0,
    )
    min_frees: float = _key(0.20, "the ●●● pick must free at least this share", 0.0, 1.0)
    debounce_seconds: float = _key(3.0, "quiet time after the last write before a notice", 0, 3600)
    snooze_minutes: float = _key(60.0, "how long “Not now” mutes a session", 0, 100000)
    retry_seconds: float = _key(60.0, "retry of a notice no server took", 0.1, 86400)
    open_command: str = _key("", "command that opens the note (empty: the system's opener)")


@dataclass(frozen=True, slots=True)
class WatchConfig:
    """Which sessions the daemon follows and how it notices changes."""

    active_minutes: float = _key(30.0, "a session not written for this long is evicted", 0.1, 1e6)
    rescan_seconds: float = _key(60.0, "periodic rescan that catches missed events", 0.1, 86400)
    analyse_seconds: float = _key(0.1, "writes are gathered this long before analysing", 0, 60)
    polling: bool = _key(False, "poll instead of inotify/FSEvents (network file systems)")
    window: int = _key(0, "context window in tokens of every session (0: as Claude Code says)", 0)


@dataclass(frozen=True, slots=True)
class SocketConfig:
    """Limits of the local socket."""

    request_bytes: int = _key(65536, "longest request line accepted", 64, 16 << 20)
    request_seconds: float = _key(10.0, "time a client has to send a request line", 0.05, 3600)
    max_clients: int = _key(64, "requests read from files at once; more are told `busy`", 1, 4096)


@dataclass(frozen=True, slots=True)
class LogConfig:
    """Where the daemon logs (always stderr; a file too under launchd or when set)."""

    level: str = _key("info", "debug, info, warning or error")
    file: str = _key("", "also log to this file (empty: only under launchd, to the log dir)")


@dataclass(frozen=True, slots=True)
class RecallConfig:
    """What the daemon adds to the recall store besides keepd's own cuts."""

    compactions: bool = _key(True, "store what Claude Code's own compactions leave out")


@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """The reader of meaning: your own `claude -p` reads the prompts (off unless you turn it on)."""

    enabled: bool = _key(False, "ask your own claude -p where pieces of work begin (sends prompts)")
    model: str = _key("haiku", "the model claude -p uses (its alias of the smallest model)")
    timeout_seconds: float = _key(60.0, "an answer later than this is dropped", 1.0, 3600)


@dataclass(frozen=True, slots=True)
class Config:
    notify: NotifyConfig = field(default_factory=NotifyConfig)
    watch: WatchConfig = field(default_factory=WatchConfig)
    socket: SocketConfig = field(default_factory=SocketConfig)
    log: LogConfig = field(default_factory=LogConfig)
    recall: RecallConfig = field(default_factory=RecallConfig)
    reader: ReaderConfig = field(default_factory=ReaderConfig)


SECTIONS: dict[str, type[Any]] = {
    "notify": NotifyConfig,
    "watch": WatchConfig,
    "socket": SocketConfig,
    "log": LogConfig,
    "recall": RecallConfig,
    "reader": ReaderConfig,
}


def load_config(path: Path | None = None) -> Config:
    """The configuration at `path` (default: the user config file, optional)."""
    target = path if path is not None else config_file()
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        if path is None:
            return Config()
        raise ConfigError(f"{target}: no such file") from None
    except OSError as error:
        raise ConfigError(f"{target}: {error.strerror or error}") from error
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{target}: not valid TOML: {error}") from error
    return parse_config(data, str(target))


def parse_config(data: dict[str, Any], origin: str) -> Config:
    """Checks every section and key of parsed TOML; the error names the first bad key."""
    config = Config()
    for name, value in data.items():
        if name not in SECTIONS:
            raise ConfigError(f"{origin}: unknown section [{name}]")
        if not isinstance(value, dict):
            raise ConfigError(f"{origin}: {name} must be a table ([{name}])")
        section = _section(SECTIONS[name], name, value, origin)
        config = replace(config, **{name: section})
    if config.notify.urgent < config.notify.threshold:
        raise ConfigError(f"{origin}: notify.urgent must not be below notify.threshold")
    if config.log.level not in LEVELS:
        raise ConfigError(f"{origin}: log.level must be one of {', '.join(LEVELS)}")
    return config


def _section(kind: type[Any], name: str, values: dict[str, Any], origin: str) -> Any:
    known = {item.name: item for item in fields(kind)}
    checked: dict[str, Any] = {}
    for key, value in values.items():
        item = known.get(key)
        if item is None:
            raise ConfigError(f"{origin}: unknown key {name}.{key}")
        checked[key] = _value(item.default, item.metadata, value, f"{origin}: {name}.{key}")
    return kind(**checked)


def _value(default: Any, meta: Any, value: Any, where: str) -> Any:
    expected = type(default)
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if type(value) is not expected:
        raise ConfigError(f"{where} must be {_type_name(expected)}, not {value!r}")
    low, high = meta.get("low"), meta.get("high")
    if low is not None and value < low:
        raise ConfigError(f"{where} must be at least {low}, not {value!r}")
    if high is not None and value > high:
        raise ConfigError(f"{where} must be at most {high}, not {value!r}")
    return value


def _type_name(kind: type[Any]) -> str:
    return {bool: "true or false", float: "a number", int: "an integer", str: "a string"}[kind]


def documented_keys() -> list[tuple[str, Any, str]]:
    """Every key as (`section.key`, default, meaning), for docs/configuration.md and its test."""
    out = []
    for name, kind in SECTIONS.items():
        for item in fields(kind):
            out.append((f"{name}.{item.name}", item.default, str(item.metadata["doc"])))
    return out
