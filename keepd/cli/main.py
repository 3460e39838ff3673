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
from keepd.cli.options import (
    MIN_WIDTH,
    CommandParser,
    OneLineParser,
    json_option,
    session_argument,
    width_option,
    window_option,
)
from keepd.errors import KeepdError

if TYPE_CHECKING:
    from keepd.core.analysis import Analysis
    from keepd.ops.operations import Operations, ReportResult

log = logging.getLogger(__name__)
INTERNAL_ERROR = 70
CANNOT_WRITE = 73


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
    from keepd.cli.help import Commands, epilog, overview

    parser = OneLineParser(
        prog="keepd",
        usage="%(prog)s [-h] [-V] [-v] COMMAND ...",
        epilog=epilog("keepd") + "\nEach command's own help: keepd COMMAND --help",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"keepd {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="tracebacks and debug logs")
    action = parser.add_subparsers(
        title="commands",
        metavar="COMMAND",
        parser_class=CommandParser,
        help=argparse.SUPPRESS,
        prog="keepd",  # else the commands' names start with the usage line
    )
    commands = Commands(action)
    report = commands.add_parser("report", help="print where to stop in one or more sessions")
    _session_arguments(report, "sessions", "*")
    json_option(report)
    width_option(report)
    report.add_argument(
        "--all", action="store_true", help="a row for every place to stop, not only the marked ones"
    )
    report.add_argument(
        "--ask-claude",
        action="store_true",
        help="also ask your own claude -p where pieces of work begin (sends the prompts)",
    )
    report.set_defaults(handler=_report)
    note = commands.add_parser("note", help="write a session's note (HTML) and print its link")
    _session_arguments(note, "session", "?")
    note.add_argument("--dir", type=Path, metavar="DIR", help="write here (default: notes dir)")
    json_option(note, "the note's path and session as JSON")
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
    from keepd.cli.ask import add_commands as add_ask_commands

    add_ask_commands(commands)
    parser.description = overview(commands.helps)
    return parser


def _session_arguments(command: argparse.ArgumentParser, dest: str, nargs: str) -> None:
    """What names the session(s) and how to read them: shared by `report` and `note`."""
    session_argument(
        command,
        dest,
        nargs=nargs,
        help="a session: its id, 4 or more characters of it, or its file's path "
        "(default: the newest session of this folder's project)",
    )
    command.add_argument("--whole", action="store_true", help="the full history, uncompacted")
    command.add_argument("--example", action="store_true", help="the bundled example session")
    window_option(command)


def _report(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    operations = Operations()
    names: list[str | None] = list(args.sessions) or [None]
    results = [
        operations.report(
            name,
            whole=args.whole,
            example=args.example,
            window=args.window,
            ask_claude=args.ask_claude,
        )
        for name in names
    ]
    if args.json:
        from keepd.report.jsonout import dumps

        for result in results:
            _said_where(result, args.example)
        sys.stdout.buffer.write(dumps([r.analysis for r in results], many=len(names) > 1))
        return 0
    for number, result in enumerate(results):
        _said_where(result, args.example, text=True)
        if number:
            print()  # several reports: a blank line between them
        sys.stdout.write(report_text(result, args.width, every=args.all))
        if args.ask_claude:
            from keepd.cli.ask import reader_line

            print(reader_line(result.analysis))
        _note_line(operations, result.analysis)
    return 0


def report_text(result: ReportResult, width: int | None, *, every: bool = False) -> str:
    """The terminal report of a result at `width` (default: the terminal's); `every`: a row for
    every place to stop (`--all`)."""
    from keepd.report.terminal import Style, render

    style = Style(width=width or _width(), color=_color(), every=every)
    return render(result.analysis, style, example=result.example, elsewhere=result.elsewhere)


def _said_where(result: ReportResult, asked_example: bool, *, text: bool = False) -> None:
    """On stderr, when keepd shows a session nobody named: the example, or another project's
    (which a `text` report's header says already)."""
    if result.example and not asked_example:
        print("keepd: no Claude Code sessions found; showing the example", file=sys.stderr)
    elif result.elsewhere is not None and not text:
        print(
            f"keepd: no sessions of {result.elsewhere}; showing the newest of another project",
            file=sys.stderr,
        )


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
    _said_where(result.report, args.example)
    if args.json:
        from keepd.report.jsonout import note_json

        sys.stdout.buffer.write(note_json(result.path.resolve(), result.report.analysis))
        return 0
    print(result.path.resolve().as_uri())
    return 0


def _width() -> int:
    return max(shutil.get_terminal_size((80, 24)).columns, MIN_WIDTH)


def _color() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


if __name__ == "__main__":
    raise SystemExit(main())
