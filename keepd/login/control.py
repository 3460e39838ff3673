"""Install, uninstall, status and logs of the login service; the platform is decided here only."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

from keepd.data.icons import theme_files
from keepd.errors import KeepdError, ServiceError
from keepd.login.actions import Action, Executor, MakeDir, Remove, Runner, Write
from keepd.login.command import Command, command_problem, shared_tmp_warning
from keepd.login.render import Extras
from keepd.login.state import Manager
from keepd.paths import (
    autostart_dir,
    config_file,
    cuts_dir,
    data_dir,
    lock_path,
    log_file,
    notes_dir,
    runtime_dir,
    socket_path,
    state_dir,
)

MANAGERS = ("systemd", "launchd", "autostart")
LINUX = ("systemd", "autostart")  # the managers that take keepd's icon into the user's theme
READY_SECONDS = 15.0


def platform_manager(platform: str | None = None, runner: Runner | None = None) -> str:
    """The login path of this platform: launchd on macOS; on Linux systemd where a user
    manager answers (`systemctl --user`), else an XDG autostart entry (containers, desktops
    started without systemd)."""
    name = platform or sys.platform
    if name == "darwin":
        return "launchd"
    if name.startswith("linux"):
        return "systemd" if systemd_user_answers(runner or Runner()) else "autostart"
    raise ServiceError(f"no login service for {name}: run `keepd run` yourself")


def systemd_user_answers(runner: Runner) -> bool:
    """Whether a systemd user manager answers `systemctl --user` for this session."""
    return runner(("systemctl", "--user", "show-environment")).code == 0


def make_manager(name: str | None, runner: Runner) -> Manager:
    chosen = name or platform_manager(runner=runner)
    if chosen == "launchd":
        from keepd.login.launchd import Launchd

        return Launchd(runner)
    if chosen == "autostart":
        from keepd.login.autostart import Autostart

        return Autostart(runner)
    from keepd.login.systemd import Systemd

    return Systemd(runner)


def own_dirs(manager: str) -> list[Path]:
    """keepd's folders the sandboxed service writes; made before it starts."""
    folders = [data_dir(), notes_dir(), state_dir(), cuts_dir()]
    if manager in ("launchd", "autostart"):
        folders.append(log_file().parent)
    return list(dict.fromkeys(folders))


def install(
    manager: Manager, command: Command, extras: Extras, out: TextIO, *, socket: bool, dry: bool
) -> int:
    """Writes the files, enables and starts the service, and waits until it answers."""
    problem = command_problem(command)
    if problem and not dry:
        raise ServiceError(problem)
    out.write(f"keepd service install ({manager.name}): runs {' '.join(command.argv)} run\n")
    out.write(f"  found as {command.how}\n")
    warning = problem or shared_tmp_warning(command)
    if warning:
        out.write(f"  warning: {warning}\n")
    for name, value in sorted(extras.environment.items()):
        out.write(f"  carries {name}={value} into the service\n")
    if not dry:
        _refuse_a_stray_daemon(manager)
    actions: list[Action] = [MakeDir(path) for path in own_dirs(manager.name)]
    actions += icon_actions(manager.name)
    actions += manager.install_actions(command, extras, socket=socket)
    Executor(manager.runner, out, dry_run=dry).execute(actions)
    if dry:
        out.write("dry run: nothing was written or run\n")
        return 0
    return _report_ready(manager, out)


def icon_actions(manager: str) -> list[Action]:
    """keepd's icon in the user's hicolor theme, where Linux desktops look for `keepd`."""
    if manager not in LINUX:
        return []
    return [
        Write(target, source.read_bytes(), binary=True)
        for source, target in theme_files(data_dir().parent)
    ]


def installed_icons(manager: str) -> list[Path]:
    """The icon files an install left in the user's theme."""
    if manager not in LINUX:
        return []
    return [target for _, target in theme_files(data_dir().parent) if target.is_file()]


def _refuse_a_stray_daemon(manager: Manager) -> None:
    """A daemon started by hand holds the lock: the service would exit 75 at once."""
    if manager.status().running or wait_ready(0.0) is None:
        return
    from keepd.ops.client import Client

    try:
        pid = Client(timeout=2.0).call("status").get("pid", "?")
    except (KeepdError, AttributeError):
        pid = "?"
    raise ServiceError(
        f"a keepd daemon (pid {pid}) already runs outside the service; stop it "
        "(Ctrl-C, or kill it) and run `keepd service install` again"
    )


def _report_ready(manager: Manager, out: TextIO) -> int:
    answer = wait_ready(READY_SECONDS)
    if answer is None:
        state = manager.status()
        out.write(f"the daemon does not answer on {socket_path()}: {state.state} {state.detail}\n")
        out.write("see `keepd service logs` and `keepd doctor`\n")
        return ServiceError.exit_code
    state = manager.status()
    pid = f", pid {state.pid}" if state.pid else ""
    out.write(f"keepd {answer.get('version', '?')} is running{pid}; {_at_login(manager.name)}\n")
    out.write("Check the desktop with `keepd doctor`; remove with `keepd service uninstall`.\n")
    return 0


def _at_login(manager: str) -> str:
    if manager == "autostart":
        return (
            f"a desktop that reads {autostart_dir()} starts it at every login (elsewhere run "
            "`keepd run` under your session's own supervisor: docs/service.md)."
        )
    return "it starts at every login."


def wait_ready(seconds: float, path: Path | None = None) -> dict[str, Any] | None:
    """The daemon's ping reply once it answers, or None after `seconds`."""
    from keepd.ops.client import Client

    deadline = time.monotonic() + seconds
    while True:
        try:
            reply = Client(path, timeout=2.0).call("ping")
        except KeepdError:
            reply = None
        if isinstance(reply, dict):
            return reply
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def uninstall(manager: Manager, out: TextIO, *, dry: bool) -> int:
    """Stops, disables and removes the service; keeps and names the user's data."""
    actions = manager.uninstall_actions()
    if not actions:
        out.write(f"keepd's {manager.name} service is not installed.\n")
    executor = Executor(manager.runner, out, dry_run=dry)
    executor.execute(actions)
    executor.execute(_runtime_leftovers(dry))
    executor.execute([Remove(path) for path in installed_icons(manager.name)])
    executor.execute(_empty_dirs(manager.name))
    if dry:
        out.write("dry run: nothing was removed or run\n")
    _name_data(out)
    return 0


def _runtime_leftovers(dry: bool) -> list[Action]:
    """The socket and lock a stopped daemon leaves (kept while any daemon still answers)."""
    if not dry and wait_ready(0.0) is not None:
        return []
    found = [path for path in (socket_path(), lock_path()) if path.exists() or path.is_symlink()]
    folder = runtime_dir()
    return [*(Remove(path) for path in found), *([Remove(folder)] if folder.is_dir() else [])]


def _empty_dirs(manager: str) -> list[Action]:
    """keepd's own folders that hold nothing (made by the install), deepest first."""
    gone: set[Path] = set()
    actions: list[Action] = []
    for folder in sorted(own_dirs(manager), key=lambda path: len(path.parts), reverse=True):
        try:
            entries = set(folder.iterdir())
        except OSError:
            continue
        if entries <= gone:
            gone.add(folder)
            actions.append(Remove(folder))
    return actions


def user_data() -> list[tuple[str, Path]]:
    """What keepd keeps for the user, where it exists."""
    places = [
        ("notes", notes_dir()),
        ("backups of cuts (for keepd undo)", cuts_dir()),
        ("the daemon's state (notices sent, mutes)", state_dir()),
        ("configuration", config_file()),
        ("data", data_dir()),
        ("logs", log_file().parent),
    ]
    seen: list[tuple[str, Path]] = []
    for label, path in places:
        if path.exists() and all(path != other for _, other in seen):
            seen.append((label, path))
    return seen


def _name_data(out: TextIO) -> None:
    kept = user_data()
    if not kept:
        out.write("keepd left no data behind.\n")
    else:
        out.write("keepd's data stays where it is (delete it yourself if you want it gone):\n")
        for label, path in kept:
            out.write(f"  {label}: {path}\n")
    from keepd.login.advice import uninstall_keepd

    out.write(f"To remove the program: `{uninstall_keepd()}`.\n")
