"""The steps of an install or uninstall: files to write or remove, commands to run, or print."""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from keepd.errors import ServiceError
from keepd.system.atomic import make_folder, replace_file

COMMAND_SECONDS = 90.0
STOP_SECONDS = 25.0  # the daemon's own stop takes at most systemd's TimeoutStopSec=20


@dataclass(frozen=True, slots=True)
class Done:
    """What a command did: its exit code and output (stdout and stderr as text)."""

    code: int
    out: str = ""
    err: str = ""


class Runner:
    """Runs a command and returns what it did; tests substitute one that records."""

    def __call__(self, argv: Sequence[str]) -> Done:
        try:
            done = subprocess.run(
                list(argv),
                capture_output=True,
                text=True,
                timeout=COMMAND_SECONDS,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except FileNotFoundError:
            return Done(127, "", f"{argv[0]}: command not found")
        except (OSError, subprocess.TimeoutExpired) as error:
            return Done(126, "", f"{argv[0]}: {error}")
        return Done(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True, slots=True)
class Write:
    """A file with its full content (written atomically, mode 0644)."""

    path: Path
    content: bytes
    binary: bool = False  # a dry run names it and its size instead of printing it


@dataclass(frozen=True, slots=True)
class MakeDir:
    """A folder of keepd's own, made 0700 if missing."""

    path: Path


@dataclass(frozen=True, slots=True)
class Remove:
    """A file to delete (a folder only when empty)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Run:
    """A command; a failure stops the install unless `required` is false."""

    argv: tuple[str, ...]
    required: bool = True


@dataclass(frozen=True, slots=True)
class Start:
    """A daemon started now, apart from this process (its own session, no terminal, output
    to nowhere: it writes its own log file); what a login would start, for this login."""

    argv: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Stop:
    """A daemon this install started, told to stop (SIGTERM) and waited for."""

    pid: int


Action = Write | MakeDir | Remove | Run | Start | Stop


def show(argv: Sequence[str]) -> str:
    return shlex.join(argv)


class Executor:
    """Carries out actions in order, or with `dry_run` prints them; `out` gets one line each."""

    def __init__(self, runner: Runner, out: TextIO, *, dry_run: bool) -> None:
        self.runner = runner
        self.out = out
        self.dry_run = dry_run

    def execute(self, actions: Sequence[Action]) -> None:
        for action in actions:
            if self.dry_run:
                self._print(action)
            else:
                self._do(action)

    def _print(self, action: Action) -> None:
        if isinstance(action, Write) and action.binary:
            self.out.write(f"would write {action.path} ({len(action.content):,} bytes)\n")
        elif isinstance(action, Write):
            self.out.write(f"would write {action.path}:\n")
            for line in action.content.decode("utf-8", "replace").splitlines():
                self.out.write(f"    {line}\n")
        elif isinstance(action, MakeDir):
            if not action.path.is_dir():
                self.out.write(f"would create {action.path}/ (0700)\n")
        elif isinstance(action, Remove):
            self.out.write(f"would remove {action.path}\n")
        elif isinstance(action, Start):
            self.out.write(f"would start: {show(action.argv)}\n")
        elif isinstance(action, Stop):
            self.out.write(f"would stop the daemon, pid {action.pid}\n")
        else:
            self.out.write(f"would run: {show(action.argv)}\n")

    def _do(self, action: Action) -> None:
        if isinstance(action, Write):
            changed = write_file(action.path, action.content)
            self.out.write(f"{'wrote' if changed else 'unchanged'} {action.path}\n")
        elif isinstance(action, MakeDir):
            if not action.path.is_dir():
                make_folder(action.path)
                self.out.write(f"created {action.path}/\n")
        elif isinstance(action, Remove):
            if remove_path(action.path):
                self.out.write(f"removed {action.path}\n")
        elif isinstance(action, Start):
            self.out.write(f"starting: {show(action.argv)}\n")
            start_detached(action.argv)
        elif isinstance(action, Stop):
            self.out.write(f"stopping the daemon, pid {action.pid}\n")
            if not stop_process(action.pid):
                raise ServiceError(f"the daemon (pid {action.pid}) did not stop; stop it yourself")
        else:
            self._run(action)

    def _run(self, action: Run) -> None:
        self.out.write(f"running: {show(action.argv)}\n")
        self.out.flush()
        done = self.runner(action.argv)
        if done.code == 0:
            return
        reason = (done.err or done.out).strip().splitlines()
        tail = reason[-1] if reason else f"exit code {done.code}"
        if action.required:
            raise ServiceError(f"`{show(action.argv)}` failed: {tail}")
        self.out.write(f"  (ignored: {tail})\n")


def start_detached(argv: Sequence[str]) -> int:
    """Starts `argv` in a session of its own, with no terminal; returns its pid."""
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as error:
        raise ServiceError(f"cannot start `{show(argv)}`: {error.strerror or error}") from error
    return process.pid


def stop_process(pid: int, seconds: float = STOP_SECONDS) -> bool:
    """SIGTERM to `pid`, then waits until it is gone; False if it outlives `seconds`."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # a daemon this process started leaves no zombie
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def write_file(path: Path, content: bytes) -> bool:
    """Writes `content` atomically unless the file already holds it; True if written."""
    with contextlib.suppress(OSError):
        if path.read_bytes() == content:
            return False
    replace_file(path, content, mode=0o644)
    return True


def remove_path(path: Path) -> bool:
    """Deletes a file or an empty folder; True if something was there."""
    try:
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()
    except FileNotFoundError:
        return False
    except OSError as error:
        print(f"keepd: cannot remove {path}: {error.strerror or error}", file=sys.stderr)
        return False
    return True
