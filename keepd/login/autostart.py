"""keepd at login without `systemd --user`: an XDG autostart entry the desktop session starts,
and the daemon started at once for the session already running."""

from __future__ import annotations

import shlex
from pathlib import Path

from keepd.errors import KeepdError
from keepd.login.actions import Action, Remove, Runner, Start, Stop, Write
from keepd.login.command import Command
from keepd.login.render import DESKTOP, Extras, desktop_exec, render_desktop
from keepd.login.state import ServiceState
from keepd.paths import autostart_dir, log_file

PING_SECONDS = 2.0


def desktop_path() -> Path:
    return autostart_dir() / DESKTOP


class Autostart:
    """`~/.config/autostart/keepd.desktop`: desktops that follow the XDG autostart spec (GNOME,
    KDE, Xfce, LXQt, MATE, Cinnamon, and `dex` for bare window managers) run it at login."""

    name = "autostart"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def files(self, command: Command, extras: Extras, *, socket: bool) -> dict[Path, bytes]:
        return {desktop_path(): render_desktop(command, extras).encode()}

    def install_actions(self, command: Command, extras: Extras, *, socket: bool) -> list[Action]:
        """The entry, and the daemon started now unless one answers (a changed entry: the
        running daemon is stopped first, so the new command runs)."""
        path, content = next(iter(self.files(command, extras, socket=socket).items()))
        actions: list[Action] = [Write(path, content)]
        running = _ping()
        if running is not None and _differs(path, content):
            actions.append(Stop(running))
            running = None
        if running is None:
            actions.append(Start(tuple(desktop_exec(command, extras))))
        return actions

    def uninstall_actions(self) -> list[Action]:
        path = desktop_path()
        if not path.exists():
            return []
        pid = _ping()
        return [*([Stop(pid)] if pid is not None else []), Remove(path)]

    def status(self) -> ServiceState:
        path = desktop_path()
        installed = path.is_file()
        command = _command(path) if installed else []
        enabled = installed and not _hidden(path)
        pid = _ping()
        state = "running" if pid is not None else "not running"
        if not installed:  # a daemon that answers then runs outside the login path
            state = "not installed"
        detail = f"log: {log_file()}" if installed else ""
        if installed and not enabled:
            detail = "the entry is disabled (Hidden=true or X-GNOME-Autostart-enabled=false)"
        return ServiceState(
            self.name,
            installed=installed,
            enabled=enabled,
            running=installed and pid is not None,
            state=state,
            pid=pid,
            detail=detail,
            files=[str(path)] if installed else [],
            command=command,
        )

    def logs_argv(self, lines: int, *, follow: bool) -> list[str]:
        return ["tail", "-n", str(lines), *(["-F"] if follow else []), str(log_file())]


def _ping() -> int | None:
    """The pid of the daemon answering on keepd's socket, or None."""
    from keepd.ops.client import Client

    try:
        reply = Client(timeout=PING_SECONDS).call("status")
    except KeepdError:
        return None
    pid = reply.get("pid") if isinstance(reply, dict) else None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) else None


def _entry(path: Path) -> dict[str, str]:
    """The `[Desktop Entry]` group's keys (a reader's view: enough for keepd's own entry)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, str] = {}
    group = ""
    for line in lines:
        if line.startswith("["):
            group = line.strip()
        elif group == "[Desktop Entry]" and "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            found[key.strip()] = value.strip()
    return found


def _hidden(path: Path) -> bool:
    entry = _entry(path)
    return entry.get("Hidden") == "true" or entry.get("X-GNOME-Autostart-enabled") == "false"


def _command(path: Path) -> list[str]:
    """The command before `run` in the entry's Exec=, as `keepd doctor` compares it."""
    try:
        words = shlex.split(_entry(path).get("Exec", "").replace("\\\\", "\\"))
    except ValueError:
        return []
    if words[:1] == ["env"]:
        words = [word for word in words[1:] if "=" not in word or word.startswith("/")]
    words = [word.replace("%%", "%") for word in words]
    return words[: words.index("run")] if "run" in words else words


def _differs(path: Path, content: bytes) -> bool:
    try:
        return path.read_bytes() != content
    except OSError:
        return True
