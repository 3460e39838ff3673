"""Finds the absolute command a service manager should run: pipx, `uv tool`, a venv, a package."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from keepd.errors import ServiceError
from keepd.login.advice import install_keepd

NAME = "keepd"
# Folders a sandboxed service cannot see (PrivateTmp=yes) or that vanish at reboot.
HIDDEN = (Path("/tmp"), Path("/var/tmp"))


@dataclass(frozen=True, slots=True)
class Command:
    """The argv prefix that runs keepd (`run` is appended), and how it was found."""

    argv: tuple[str, ...]
    how: str

    @property
    def program(self) -> str:
        return self.argv[0]


def resolve_command(given: str | None = None) -> Command:
    """The command the service should run: `given`, else this keepd's own script, else
    `python -m keepd` with this interpreter. Paths stay absolute but unresolved, so the
    `~/.local/bin/keepd` link of pipx and `uv tool` survives their upgrades."""
    if given:
        return _given(given)
    return _script_of_argv() or _script_beside_python() or _module()


def _given(text: str) -> Command:
    path = Path(text).expanduser()
    if not path.is_absolute():
        located = shutil.which(text)
        if located is None:
            raise ServiceError(f"{text}: not found on PATH; give an absolute path")
        path = Path(located)
    return Command((_absolute(path),), "given with --command")


def _script_of_argv(argv0: str | None = None) -> Command | None:
    """The `keepd` script this process was started as (the usual case)."""
    first = sys.argv[0] if argv0 is None else argv0
    if Path(first).name not in (NAME, NAME + ".exe"):
        return None
    if os.sep in first:
        path = _absolute(first)
    else:
        located = shutil.which(first)
        if located is None:
            return None
        path = _absolute(located)
    if not _runnable(path):
        return None
    return Command((path,), "the keepd command being run")


def _script_beside_python(executable: str | None = None) -> Command | None:
    """The console script installed with this interpreter (a venv's or a system package's)."""
    python = executable or sys.executable
    if not python:
        return None
    script = Path(_absolute(python)).parent / NAME
    if not _runnable(str(script)):
        return None
    return Command((str(script),), "the keepd script beside this Python")


def _module(executable: str | None = None) -> Command:
    python = executable or sys.executable
    if not python:
        raise ServiceError("cannot tell which Python runs keepd; give --command")
    return Command((_absolute(python), "-m", NAME), "this Python with -m keepd")


def _absolute(path: str | Path) -> str:
    """An absolute, normalized path that still goes through links (a venv's python is one)."""
    return os.path.normpath(Path(path).absolute())


def _runnable(path: str) -> bool:
    return Path(path).is_file() and os.access(path, os.X_OK)


def command_problem(command: Command) -> str | None:
    """Why the service could not run `command`, or None."""
    program = Path(command.program)
    if not _runnable(str(program)):
        return f"{program} is not an executable file"
    for hidden in HIDDEN:
        if program.is_relative_to(hidden):
            return (
                f"{program} is under {hidden}, which the service cannot see (PrivateTmp) and "
                f"which may be emptied; install keepd from its clone with {install_keepd()}, "
                "or give --command"
            )
    return None
