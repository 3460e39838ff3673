"""The commands that install keepd as a login service and check the machine: `service`, `doctor`."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

from keepd.errors import ServiceError

MANAGERS = ("systemd", "launchd", "autostart")


def add_commands(commands: Any) -> None:
    """Adds `service install|uninstall|status|logs|files` and `doctor` to the `keepd` parser."""
    service = commands.add_parser("service", help="install keepd as a login service, or remove it")
    actions = service.add_subparsers(title="actions", metavar="ACTION", required=True)
    install = _action(actions, "install", "write the unit (or plist), enable and start it")
    install.add_argument("--dry-run", action="store_true", help="print what would be written/run")
    install.add_argument("--command", metavar="PATH", help="the keepd to run (default: this one)")
    install.add_argument("--no-socket", action="store_true", help="systemd: no socket activation")
    install.set_defaults(handler=_install)
    uninstall = _action(actions, "uninstall", "stop and remove the service (your data stays)")
    uninstall.add_argument("--dry-run", action="store_true", help="print what would be removed")
    uninstall.set_defaults(handler=_uninstall)
    status = _action(actions, "status", "is the service installed, enabled and running")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    status.set_defaults(handler=_status)
    logs = _action(actions, "logs", "the daemon's log (the journal, or the log files)")
    logs.add_argument("-n", "--lines", type=int, default=50, help="how many lines (default 50)")
    logs.add_argument("-f", "--follow", action="store_true", help="keep printing new lines")
    logs.set_defaults(handler=_logs)
    files = _action(actions, "files", "write the filled-in unit files into DIR (for packagers)")
    files.add_argument("dir", type=Path, metavar="DIR", help="folder to write into")
    files.add_argument("--command", metavar="PATH", help="the keepd to run (default: this one)")
    files.set_defaults(handler=_files)
    doctor = commands.add_parser("doctor", help="check everything keepd needs, with fixes")
    doctor.add_argument("--json", action="store_true", help="machine-readable output")
    doctor.add_argument("--notify", action="store_true", help="also send a test notification")
    doctor.set_defaults(handler=_doctor)


def _action(actions: Any, name: str, text: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = actions.add_parser(name, help=text)
    parser.add_argument(
        "--manager",
        choices=MANAGERS,
        help="systemd, launchd or autostart (default: launchd on macOS; systemd where a user "
        "manager answers, else an XDG autostart entry)",
    )
    return parser


def _manager(args: argparse.Namespace) -> Any:
    from keepd.login.actions import Runner
    from keepd.login.control import make_manager

    return make_manager(args.manager, Runner())


def _install(args: argparse.Namespace) -> int:
    from keepd.login.command import resolve_command
    from keepd.login.control import install
    from keepd.login.render import machine_extras

    command = resolve_command(args.command)
    manager = _manager(args)
    socket = not args.no_socket
    return install(manager, command, machine_extras(), sys.stdout, socket=socket, dry=args.dry_run)


def _uninstall(args: argparse.Namespace) -> int:
    from keepd.login.control import uninstall

    return uninstall(_manager(args), sys.stdout, dry=args.dry_run)


def _status(args: argparse.Namespace) -> int:
    import orjson

    state = _manager(args).status()
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(state.to_dict(), option=orjson.OPT_INDENT_2) + b"\n")
        return 0 if state.running else 1
    head = f"keepd service ({state.manager}): {state.state}"
    print(head + (f", pid {state.pid}" if state.pid else ""))
    if state.detail:
        print(f"  {state.detail}")
    print(f"  start at login: {'yes' if state.enabled else 'no'}")
    for path in state.files:
        print(f"  file: {path}")
    if state.command:
        print(f"  runs: {' '.join(state.command)} run")
    if not state.installed:
        print("  install it with `keepd service install`")
    return 0 if state.running else 1


def _logs(args: argparse.Namespace) -> int:
    argv = _manager(args).logs_argv(max(args.lines, 1), follow=args.follow)
    try:
        return subprocess.call(argv)
    except FileNotFoundError as error:
        raise ServiceError(f"{argv[0]} is not installed: {error}") from error


def _files(args: argparse.Namespace) -> int:
    from keepd.login.actions import write_file
    from keepd.login.command import resolve_command
    from keepd.login.render import Extras

    command = resolve_command(args.command)
    manager = _manager(args)
    for path, content in manager.files(command, Extras(), socket=True).items():
        target = args.dir / path.name
        write_file(target, content)
        print(target)
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from keepd.login.doctor import doctor

    return doctor(sys.stdout, sys.stdout.buffer, as_json=args.json, notify=args.notify)
