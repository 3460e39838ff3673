"""The daemon's commands: `run`, and `status` ... `rescan`, which ask the daemon over its socket
and, when none answers, compute the same answer in this process (and say so on stderr).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from keepd.cli.options import MIN_WIDTH, session_argument, width_option
from keepd.core.steps import keys, short

if TYPE_CHECKING:
    from keepd.ops.operations import Operations

Local = Callable[["Operations"], Any]
IN_PROCESS = "keepd: no daemon running; computed in this process"


def add_commands(commands: Any) -> None:
    """Adds the daemon's subcommands to the `keepd` parser."""
    run = commands.add_parser("run", help="run the daemon in the foreground (for systemd/launchd)")
    _config(run)
    run.add_argument(
        "--log-file", type=Path, metavar="FILE", help="also log to FILE (as autostart runs it)"
    )
    run.set_defaults(handler=_run)
    _simple(commands, "status", "is the daemon running, and what it follows", _status)
    sessions = _simple(commands, "sessions", "sessions followed, context use and pick", _sessions)
    sessions.add_argument("--all", action="store_true", help="idle sessions too")
    show = _simple(commands, "show", "one session as the daemon sees it now", _show)
    session_argument(show)
    show.add_argument("--detail", action="store_true", help="a fresh full analysis of the file")
    width_option(show)
    mute = _simple(commands, "mute", "no notices for a session", _mute)
    session_argument(mute)
    mute.add_argument(
        "--for", dest="minutes", type=float, metavar="MINUTES", help="default: until unmuted"
    )
    unmute = _simple(commands, "unmute", "notices for a session again", _unmute)
    session_argument(unmute)
    pause = _simple(commands, "pause", "no notices at all", _pause)
    pause.add_argument(
        "--for", dest="minutes", type=float, metavar="MINUTES", help="default: until resumed"
    )
    _simple(commands, "resume", "notices again after a pause", _resume)
    _simple(commands, "rescan", "look at every session file again", _rescan)


def _simple(commands: Any, name: str, text: str, handler: Callable[..., int]) -> Any:
    parser = commands.add_parser(name, help=text)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    _config(parser)
    parser.set_defaults(handler=handler)
    return parser


def _config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, metavar="FILE", help="configuration file (TOML)")


def _run(args: argparse.Namespace) -> int:
    from keepd.daemon.run import run_daemon

    return run_daemon(args.config, verbose=args.verbose, log_file=args.log_file)


def ask(args: argparse.Namespace, method: str, params: dict[str, Any], local: Local) -> Any:
    """The daemon's answer, or the same computed in this process when no daemon answers."""
    from keepd.errors import DaemonUnavailableError
    from keepd.ops.client import Client

    try:
        return Client().call(method, params)
    except DaemonUnavailableError:
        print(IN_PROCESS, file=sys.stderr)
    from keepd.ops.operations import Operations

    return local(Operations(config_path=args.config))


def _print_json(data: Any) -> int:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    return 0


def _status(args: argparse.Namespace) -> int:
    data = ask(args, "status", {}, lambda operations: operations.status().to_dict())
    if args.json:
        return _print_json(data)
    print(status_text(data))
    return 0


def status_text(data: dict[str, Any]) -> str:
    if data.get("daemon"):
        head = f"keepd daemon {data['version']} running, pid {data['pid']}"
        head += f", up {_duration(data.get('uptime') or 0)}"
    else:
        head = f"keepd {data['version']}: no daemon running"
    lines = [
        head,
        f"  sessions: {data['sessions']} known, {data['active']} active"
        + (f", {data['in_memory']} in memory" if data.get("daemon") else ""),
        f"  notices: {data['notices_sent']} sent, {data['notices_pending']} waiting"
        + (f"; paused{_until(data.get('paused_until'))}" if data.get("paused") else ""),
    ]
    if data.get("daemon"):
        lines.append(f"  watcher: {data['watcher']}; notifier: {data['notifier']}")
    lines.append(f"  socket: {data['socket']}")
    lines.append(f"  config: {data['config']}; state: {data['state_file']}")
    return "\n".join(lines)


def _sessions(args: argparse.Namespace) -> int:
    data = ask(args, "sessions", {}, lambda ops: [s.to_dict() for s in ops.sessions()])
    if args.json:
        return _print_json(data)
    shown = [item for item in data if args.all or item["state"] != "idle"]
    if not shown:
        print("no active sessions" + ("" if args.all else " (--all lists idle ones)"))
        return 0
    for item in shown:
        print(session_line(item))
    return 0


def session_line(item: dict[str, Any]) -> str:
    """`id  project  context  pick` for one session."""
    share = (item.get("context") or {}).get("share")
    context = f"{share:4.0%}" if isinstance(share, float) else "   ?"
    pick = "no stop yet"
    if item.get("below") is not None:
        grade = item.get("grade") or "trade"
        reach = keys(item["below"], item.get("code_changed") is True)
        pick = f"{grade} {reach} {short(item.get('after'), item['frees'])}"
    flags = [item["state"]] + (["running"] if item.get("running") else [])
    flags += ["muted"] if item.get("muted") else []
    project = Path(item.get("project") or "?").name
    return f"{item['session_id'][:8]}  {project[:20]:<20} {context}  {pick:<28} {' '.join(flags)}"


def _show(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"name": args.session, "detail": args.detail}

    def local(operations: Operations) -> Any:
        if args.detail:
            return operations.report(args.session).analysis.to_dict()
        return operations.session(args.session).to_dict()

    data = ask(args, "session", params, local)
    if args.json:
        return _print_json(data)
    from keepd.ops.overview import analysis_from_dict
    from keepd.report.terminal import Style, render

    width = args.width or max(shutil.get_terminal_size((80, 24)).columns, MIN_WIDTH)
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    style = Style(width=width, color=color, legend=sys.stdout.isatty())
    sys.stdout.write(render(analysis_from_dict(data), style))
    return 0


def _control(args: argparse.Namespace, method: str, params: dict[str, Any], local: Local) -> int:
    data = ask(args, method, params, local)
    if args.json:
        return _print_json(data)
    print(control_text(data))
    return 0


def control_text(data: dict[str, Any]) -> str:
    action, session = data["action"], (data.get("session_id") or "")[:8]
    if action in ("mute", "pause"):
        what = f"{session} muted" if action == "mute" else "notices paused"
        return what + _until(data.get("until"))
    if action == "rescan":
        return f"{data.get('sessions')} session files"
    return f"{session} unmuted" if action == "unmute" else "notices resumed"


def _mute(args: argparse.Namespace) -> int:
    params = {"name": args.session} | _minutes(args)
    return _control(args, "mute", params, lambda s: s.mute(args.session, args.minutes).to_dict())


def _unmute(args: argparse.Namespace) -> int:
    params = {"name": args.session}
    return _control(args, "unmute", params, lambda s: s.unmute(args.session).to_dict())


def _pause(args: argparse.Namespace) -> int:
    params = _minutes(args)
    return _control(args, "pause", params, lambda s: s.pause(args.minutes).to_dict())


def _resume(args: argparse.Namespace) -> int:
    return _control(args, "resume", {}, lambda s: s.resume().to_dict())


def _rescan(args: argparse.Namespace) -> int:
    return _control(args, "rescan", {}, lambda s: s.rescan().to_dict())


def _minutes(args: argparse.Namespace) -> dict[str, Any]:
    return {"minutes": args.minutes} if args.minutes is not None else {}


def _until(moment: float | None) -> str:
    if moment is None:
        return " until lifted"
    return " until " + time.strftime("%H:%M", time.localtime(moment))


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"
