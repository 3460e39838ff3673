"""The `keepd` command: parses arguments, runs one operation, prints errors in one line."""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from keepd._version import __version__
from keepd.cli.options import CommandParser, window_option
from keepd.errors import KeepdError

if TYPE_CHECKING:
    from keepd.core.analysis import Analysis
    from keepd.ops.operations import Operations

log = logging.getLogger(__name__)
INTERNAL_ERROR = 70
CANNOT_WRITE = 73
MIN_WIDTH = 40


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING)
    handler = getattr(args, "handler", None)
    if handler is None:  # `keepd` alone, or `keepd service`: a usage error, as git and pip do
        parser.print_help(sys.stderr)
        return 2
    try:
        code: int = handler(args)
    except KeepdError as error:
        print(f"keepd: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:
        if args.verbose:
            raise
        print(f"keepd: internal error: {error!r} (run with --verbose for details)", file=sys.stderr)
        return INTERNAL_ERROR
    return code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="keepd", description="Where a long Claude Code chat can forget."
    )
    parser.add_argument("--version", action="version", version=f"keepd {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="tracebacks and debug logs")
    commands = parser.add_subparsers(
        title="commands", metavar="COMMAND", parser_class=CommandParser
    )
    report = commands.add_parser("report", help="print where to stop in one or more sessions")
    _session_arguments(report, "sessions", "*")
    report.add_argument("--json", action="store_true", help="machine-readable output")
    report.add_argument("--width", type=int, help="terminal width (default: detected)")
    report.add_argument(
        "--all", action="store_true", help="a row for every place to stop, not only the marked ones"
    )
    report.set_defaults(handler=_report)
    note = commands.add_parser("note", help="write a session's note (HTML) and print its link")
    _session_arguments(note, "session", "?")
    note.add_argument("--dir", type=Path, metavar="DIR", help="write here (default: notes dir)")
    note.set_defaults(handler=_note)
    from keepd.cli.daemon import add_commands

    add_commands(commands)
    from keepd.cli.cut import add_commands as add_cut_commands

    add_cut_commands(commands)
    from keepd.cli.service import add_commands as add_service_commands

    add_service_commands(commands)
    from keepd.cli.recall import add_commands as add_recall_commands

    add_recall_commands(commands)
    from keepd.cli.claude import add_commands as add_glance_commands

    add_glance_commands(commands)
    return parser


def _session_arguments(command: argparse.ArgumentParser, dest: str, nargs: str) -> None:
    """What names the session(s) and how to read them: shared by `report` and `note`."""
    command.add_argument(
        dest,
        nargs=nargs,
        metavar="SESSION",
        help="a path, a session id or unique prefix (default: the newest session here)",
    )
    command.add_argument("--whole", action="store_true", help="the full history, uncompacted")
    command.add_argument("--example", action="store_true", help="the bundled example session")
    window_option(command)


def _report(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    operations = Operations()
    names: list[str | None] = list(args.sessions) or [None]
    results = [
        operations.report(name, whole=args.whole, example=args.example, window=args.window)
        for name in names
    ]
    if args.json:
        from keepd.report.jsonout import dumps

        sys.stdout.buffer.write(dumps([r.analysis for r in results], many=len(names) > 1))
        return 0
    from keepd.report.terminal import Style, render

    width = max(args.width or _width(), MIN_WIDTH)  # --width 3 or -5 still gives a readable report
    style = Style(width=width, color=_color(), every=args.all)
    for result in results:
        if result.example and not args.example:
            print("keepd: no Claude Code sessions found; showing the example", file=sys.stderr)
        sys.stdout.write(render(result.analysis, style, example=result.example))
        _note_line(operations, result.analysis)
    return 0


def _note_line(operations: Operations, analysis: Analysis) -> None:
    """Writes the note beside a report and prints its link; a failure only warns."""
    try:
        path = operations.write_note(analysis)
    except OSError as error:
        print(f"keepd: the note could not be written: {error}", file=sys.stderr)
        return
    print(f"  the note and every stop: {path.resolve().as_uri()}")


def _note(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    try:
        result = Operations().note(
            args.session,
            whole=args.whole,
            example=args.example,
            window=args.window,
            directory=args.dir,
        )
    except OSError as error:
        print(f"keepd: cannot write the note: {error}", file=sys.stderr)
        return CANNOT_WRITE
    if result.report.example and not args.example:
        print("keepd: no Claude Code sessions found; showing the example", file=sys.stderr)
    print(result.path.resolve().as_uri())
    return 0


def _width() -> int:
    return max(shutil.get_terminal_size((80, 24)).columns, MIN_WIDTH)


def _color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


if __name__ == "__main__":
    raise SystemExit(main())
