"""keepd as a launchd agent (macOS): the plist, `launchctl bootstrap`, and the log files."""

from __future__ import annotations

import os
import plistlib
import re
from pathlib import Path

from keepd.login.actions import Action, Done, Remove, Run, Runner, Write
from keepd.login.command import Command
from keepd.login.render import LABEL, PLIST, Extras, render_plist
from keepd.login.state import ServiceState
from keepd.paths import launch_agents_dir, log_file

LAUNCHCTL = "launchctl"


def domain() -> str:
    """The user's GUI domain, where agents of a logged-in user run."""
    return f"gui/{os.getuid()}"


def target() -> str:
    return f"{domain()}/{LABEL}"


def plist_path() -> Path:
    return launch_agents_dir() / PLIST


class Launchd:
    """The user's launchd domain, reached with `launchctl`."""

    name = "launchd"

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def files(self, command: Command, extras: Extras, *, socket: bool) -> dict[Path, bytes]:
        return {plist_path(): render_plist(command, extras)}

    def install_actions(self, command: Command, extras: Extras, *, socket: bool) -> list[Action]:
        path, content = next(iter(self.files(command, extras, socket=socket).items()))
        changed = _differs(path, content)
        loaded = self._print().code == 0
        actions: list[Action] = [Write(path, content)]
        if loaded and changed:
            actions.append(Run((LAUNCHCTL, "bootout", target()), required=False))
        actions.append(Run((LAUNCHCTL, "enable", target())))
        if changed or not loaded:
            actions.append(Run((LAUNCHCTL, "bootstrap", domain(), str(path))))
        else:
            actions.append(Run((LAUNCHCTL, "kickstart", target())))
        return actions

    def uninstall_actions(self) -> list[Action]:
        path = plist_path()
        loaded = self._print().code == 0
        if not path.exists() and not loaded:
            return []
        actions: list[Action] = [Run((LAUNCHCTL, "bootout", target()), required=False)]
        if path.exists():
            actions.append(Remove(path))
        return actions

    def status(self) -> ServiceState:
        done = self._print()
        path = plist_path()
        installed = path.exists()
        command = _program(path) if installed else []
        if done.code != 0:
            state = "not loaded" if installed else "not installed"
            return ServiceState(self.name, installed, False, False, state, command=command)
        fields = dict(re.findall(r"^\s*([a-z][a-z ]*?) = (.*)$", done.out, re.MULTILINE))
        pid = int(fields["pid"]) if fields.get("pid", "").isdigit() else None
        running = fields.get("state") == "running"
        detail = f"last exit code {fields['last exit code']}" if "last exit code" in fields else ""
        return ServiceState(
            self.name,
            installed=installed,
            enabled=True,
            running=running,
            state=fields.get("state", "loaded"),
            pid=pid,
            detail=detail,
            files=[str(path)],
            command=command,
        )

    def _print(self) -> Done:
        return self.runner((LAUNCHCTL, "print", target()))

    def logs_argv(self, lines: int, *, follow: bool) -> list[str]:
        folder = log_file().parent
        files = [str(log_file()), str(folder / "launchd.log")]
        return ["tail", "-n", str(lines), *(["-F"] if follow else []), *files]


def _program(path: Path) -> list[str]:
    try:
        data = plistlib.loads(path.read_bytes())
    except (OSError, plistlib.InvalidFileException, ValueError):
        return []
    arguments = data.get("ProgramArguments", [])
    return [str(item) for item in arguments[:-1]] if isinstance(arguments, list) else []


def _differs(path: Path, content: bytes) -> bool:
    try:
        return path.read_bytes() != content
    except OSError:
        return True
