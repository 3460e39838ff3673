"""Fills the service templates in `service/` (shipped as `keepd/login/units`) for one command.

>>> systemd_quote("/opt/my tools/keepd")
'"/opt/my tools/keepd"'
>>> systemd_quote("/home/a%b/keepd")
'/home/a%%b/keepd'
"""

from __future__ import annotations

import os
import plistlib
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from keepd.errors import ServiceError
from keepd.login.command import Command, hidden_path
from keepd.paths import log_file, service_writable

SERVICE = "keepd.service"
DESKTOP = "keepd.desktop"
SOCKET = "keepd.socket"
LABEL = "org.keepd.daemon"
PLIST = LABEL + ".plist"
# Variables of the installing shell that change where keepd reads or writes: the service
# does not inherit that shell's environment, so they are written into the unit or plist.
CARRIED = ("CLAUDE_CONFIG_DIR", "KEEPD_NOTES_DIR", "KEEPD_CUTS_DIR")
# The XDG base folders keepd's own files live in (config, notes, the recall store, state), with
# their defaults under HOME: carried when the shell moved them, or the daemon would keep what it
# stores (Claude Code's compactions for `keepd recall`) where the commands do not look.
XDG_DEFAULTS = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}
LAUNCHD_PATH = ("/usr/local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin")
PRIVATE_NETWORK = "PrivateNetwork=yes\n"
PRIVATE_TMP = "PrivateTmp=yes\n"
SHARED_TMP = "# /tmp shared (read-only): keepd itself is there (--command).\nPrivateTmp=no\n"
_UNSAFE = re.compile(r"[\s\"'\\;]")
# What an Exec= argument of a desktop entry must be quoted for (the spec's reserved characters).
_RESERVED = re.compile(r"[\s\"'\\><~|&;$*?#()`]")


@dataclass(frozen=True, slots=True)
class Extras:
    """What this machine adds to the templates; empty for a system package's generic units
    (whose plist then names no log file: the daemon writes its own under launchd)."""

    environment: dict[str, str] = field(default_factory=dict)
    writable: list[Path] = field(default_factory=list)
    log_dir: Path | None = None
    abstract_bus: bool = False  # the session bus is an abstract socket: no PrivateNetwork=


def template(name: str) -> str:
    """The text of a template as shipped in the package."""
    return resources.files("keepd.login").joinpath("units", name).read_text(encoding="utf-8")


def machine_extras(environ: dict[str, str] | None = None) -> Extras:
    """The carried variables that are set, and the writable folders the template misses."""
    env = dict(os.environ) if environ is None else environ
    carried = {name: env[name] for name in CARRIED if env.get(name, "").strip()}
    carried |= moved_xdg(env)
    covered = default_writable(env)
    missing: list[Path] = []
    for path in service_writable():
        inside = any(path == base or path.is_relative_to(base) for base in covered)
        if not inside and path not in missing:
            missing.append(path)
    bus = env.get("DBUS_SESSION_BUS_ADDRESS", "")
    return Extras(carried, missing, log_file().parent, abstract_bus="unix:abstract=" in bus)


def moved_xdg(environ: dict[str, str]) -> dict[str, str]:
    """The XDG base folders set to somewhere other than their defaults."""
    home = Path.home()
    moved = {}
    for name, default in XDG_DEFAULTS.items():
        value = environ.get(name, "").strip()
        if value and Path(value).expanduser() != home / default:
            moved[name] = value
    return moved


def default_writable(environ: dict[str, str]) -> list[Path]:
    """The folders the service template already makes writable, as paths on this machine."""
    words: list[str] = []
    for line in template(SERVICE).splitlines():
        if line.startswith("ReadWritePaths="):
            words += line.removeprefix("ReadWritePaths=").split()
    home = str(Path.home())
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    paths = [Path(word.lstrip("-").replace("%h", home)) for word in words]
    if runtime:
        paths.append(Path(runtime) / "keepd")  # RuntimeDirectory=keepd
    return paths


def systemd_quote(word: str) -> str:
    """One word for a unit file: specifiers escaped, quoted when it holds spaces or quotes."""
    word = word.replace("%", "%%")
    if word and not _UNSAFE.search(word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_service(command: Command, extras: Extras) -> str:
    """keepd.service for `command`, with this machine's extras."""
    exec_words = " ".join(systemd_quote(word).replace("$", "$$") for word in command.argv)
    environment = [
        f"Environment={systemd_quote(f'{name}={value}')}"
        for name, value in sorted(extras.environment.items())
    ]
    writable = [f"ReadWritePaths=-{systemd_quote(str(path))}" for path in extras.writable]
    text = template(SERVICE).replace("@KEEPD@", exec_words)
    text = _lines(text, "@ENVIRONMENT@", environment)
    text = _lines(text, "@READ_WRITE_PATHS@", writable)
    if extras.abstract_bus:  # a network namespace of its own would hide the bus
        text = text.replace(PRIVATE_NETWORK, "# PrivateNetwork= left out: the bus is abstract\n")
    if hidden_path(command) is not None:  # a private /tmp would hide keepd itself
        text = text.replace(PRIVATE_TMP, SHARED_TMP)
    return _filled(text, SERVICE)


def desktop_quote(word: str) -> str:
    """One argument of a desktop entry's `Exec=`: quoted when it holds a reserved character,
    `"`, `` ` ``, `$` and `\\` escaped inside the quotes, `%` doubled, and every backslash
    doubled again by the string escaping the spec applies first.

    >>> desktop_quote("/opt/keepd/bin/keepd"), desktop_quote("/my tools/100%")
    ('/opt/keepd/bin/keepd', '"/my tools/100%%"')
    >>> print(desktop_quote('/a"b$c'))
    "/a\\\\"b\\\\$c"
    """
    word = word.replace("%", "%%")
    if word and not _RESERVED.search(word):
        return word
    inner = re.sub(r'(["`$\\])', r"\\\1", word)
    return '"' + inner.replace("\\", "\\\\") + '"'


def desktop_exec(command: Command, extras: Extras) -> list[str]:
    """The argv a desktop entry runs: `env` with the carried variables (a desktop session
    does not read the shell's), the command, `run`, and its log file in this machine's log
    folder (none in a package's generic entry: the session keeps its stderr)."""
    carried = [f"{name}={value}" for name, value in sorted(extras.environment.items())]
    prefix = ["env", *carried] if carried else []
    if extras.log_dir is None:
        return [*prefix, *command.argv, "run"]
    return [*prefix, *command.argv, "run", "--log-file", str(extras.log_dir / log_file().name)]


def render_desktop(command: Command, extras: Extras) -> str:
    """keepd.desktop, the XDG autostart entry, for `command`."""
    words = " ".join(desktop_quote(word) for word in desktop_exec(command, extras))
    return _filled(template(DESKTOP).replace("@EXEC@", words), DESKTOP)


def render_socket() -> str:
    return _filled(template(SOCKET), SOCKET)


def _lines(text: str, marker: str, lines: list[str]) -> str:
    """Replaces the line that holds only `marker` with `lines` (none: the line goes)."""
    return text.replace(marker + "\n", "".join(line + "\n" for line in lines))


def _filled(text: str, name: str) -> str:
    left = re.findall(r"@[A-Z_]+@", text)
    if left:
        raise ServiceError(f"{name}: template fields left unfilled: {', '.join(left)}")
    return text


def render_plist(command: Command, extras: Extras) -> bytes:
    """The launchd agent for `command`: the template read with plistlib, filled, written.
    Without a log folder (a package's generic plist) launchd's own log keys are left out."""
    data: dict[str, Any] = plistlib.loads(template(PLIST).encode())
    arguments = list(data["ProgramArguments"])
    data["ProgramArguments"] = [*command.argv, *arguments[1:]]
    folders = [str(Path(command.program).parent), *LAUNCHD_PATH]
    environment = dict(data["EnvironmentVariables"])
    environment["PATH"] = ":".join(dict.fromkeys(folders))
    environment.update(sorted(extras.environment.items()))
    data["EnvironmentVariables"] = environment
    for key in ("StandardOutPath", "StandardErrorPath"):
        if extras.log_dir is None:
            del data[key]
        else:
            data[key] = data[key].replace("@LOG_DIR@", str(extras.log_dir))
    rendered = plistlib.dumps(data, sort_keys=False)
    _filled(rendered.decode(), PLIST)
    return rendered
