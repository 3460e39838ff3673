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
GIVEN = "given with --command"


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
    return Command((_absolute(path),), GIVEN)


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


def needed_paths(command: Command) -> list[Path]:
    """The files the command needs to start: the program, where its links lead, and the
    interpreter its `#!` line names (a venv's script names the venv's python), likewise.

    >>> needed_paths(Command(("/no/such/keepd",), "test"))
    [PosixPath('/no/such/keepd')]
    """
    found: list[Path] = []
    program = Path(command.program)
    for path in (program, _resolved(program)):
        interpreter = _interpreter(path)
        for each in (path, interpreter, _resolved(interpreter) if interpreter else None):
            if each is not None and each not in found:
                found.append(each)
    return found


def hidden_path(command: Command) -> Path | None:
    """The first file the command needs under a folder a sandboxed service cannot see."""
    for path in needed_paths(command):
        if any(path.is_relative_to(hidden) for hidden in HIDDEN):
            return path
    return None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _interpreter(path: Path) -> Path | None:
    """The absolute interpreter of a `#!` script (`/usr/bin/env python3`: env itself)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].split()
    if not words or not words[0].startswith(b"/"):
        return None
    return Path(os.fsdecode(words[0]))


def command_problem(command: Command) -> str | None:
    """Why the service could not run `command`, or None. A command under /tmp is refused when
    found by itself; given with `--command`, it is taken (the unit then shares /tmp)."""
    program = Path(command.program)
    if not _runnable(str(program)):
        return f"{program} is not an executable file"
    hidden = hidden_path(command)
    if hidden is None or command.how == GIVEN:
        return None
    advice = (
        f"{hidden} is under {_folder_of(hidden)}, which may be emptied at reboot and which a "
        "systemd service cannot see (its /tmp is private); install keepd elsewhere "
        f"({install_keepd()}) and run that keepd's `service install`"
    )
    if len(command.argv) > 1:  # `python -m keepd`: --command names a keepd script
        return advice
    return (
        f"{advice}, or run `{command.program} service install --command {command.program}` "
        "to use this one anyway (a systemd service then shares /tmp; it stops working if /tmp "
        "is emptied)"
    )


def shared_tmp_warning(command: Command) -> str | None:
    """What an install given a command under /tmp says: it works, until /tmp is emptied."""
    hidden = hidden_path(command)
    if hidden is None:
        return None
    return (
        f"{hidden} is under {_folder_of(hidden)}: it stops working if /tmp is emptied (at reboot "
        "on many systems; a systemd service shares /tmp to see it); `keepd doctor` says so"
    )


def _folder_of(path: Path) -> Path:
    return next(hidden for hidden in HIDDEN if path.is_relative_to(hidden))
