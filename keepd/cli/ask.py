"""`keepd ask`: the reader of meaning by hand: print its exact request, take a recorded answer,
record one, or ask your own `claude -p`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keepd.cli.options import json_option, session_argument, width_option, window_option

if TYPE_CHECKING:
    from keepd.core.analysis import Analysis


def add_commands(commands: Any) -> None:
    """Adds `ask` to the `keepd` parser."""
    ask = commands.add_parser(
        "ask", help="ask your own claude -p where pieces of work begin (the reader)"
    )
    session_argument(
        ask,
        nargs="?",
        help="a session: its id, 4 or more characters of it, or its file's path "
        "(default: the newest session of this folder's project)",
    )
    what = ask.add_mutually_exclusive_group()
    what.add_argument("--print", action="store_true", help="print the exact request; send nothing")
    what.add_argument("--answer", type=Path, metavar="FILE", help="a recorded answer, not claude")
    what.add_argument(
        "--record", type=Path, metavar="REPLY", help="print REPLY (a model's text) as a record"
    )
    ask.add_argument("--model", default="", help="with --record: the model that wrote REPLY")
    ask.add_argument("--whole", action="store_true", help="the full history, uncompacted")
    json_option(ask)
    width_option(ask)
    window_option(ask)
    ask.set_defaults(handler=_ask)


def _ask(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    operations = Operations()
    if args.print or args.record is not None:
        request = operations.ask_request(args.session, whole=args.whole, window=args.window)
        if args.print:
            sys.stdout.write(request)
            return 0
        return _record(args.record, request, args.model)
    analysis = operations.ask(
        args.session, answer=args.answer, whole=args.whole, window=args.window
    )
    if args.json:
        from keepd.report.jsonout import dumps

        sys.stdout.buffer.write(dumps([analysis], many=False))
        return 0
    from keepd.cli.main import report_text
    from keepd.ops.operations import ReportResult

    sys.stdout.write(report_text(ReportResult(analysis, example=False), args.width))
    print(reader_line(analysis))
    return 0


def _record(reply: Path, request: str, model: str) -> int:
    from keepd.core.reader import request_sha256
    from keepd.errors import AnswerError
    from keepd.ops.reader import record_text

    try:
        text = reply.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AnswerError(f"{reply}: {getattr(error, 'strerror', None) or error}") from error
    sys.stdout.buffer.write(record_text(request_sha256(request), text, model))
    return 0


def reader_line(analysis: Analysis) -> str:
    """What the reader said, in one line, for the report."""
    from keepd.report.numbers import plural

    info = analysis.reader
    if info is None:
        return "  the reader: not asked"
    if info.failure:
        return f"  the reader ({info.source}): no answer: {info.failure}; the local grade stands"
    stop = analysis.stop(info.newest)
    where = f"prompt “{stop.quote[:60]}”" if stop is not None else "a prompt not shown"
    tasks = sum(1 for _, kind in info.starts if kind == "task")
    said = f"the newest piece ({info.newest_kind}) began at {where}; {plural(tasks, 'task')} in all"
    outcome = "the pick is there" if info.moved else (info.flag or "the pick stays")
    return f"  the reader ({info.source}): {said}; {outcome}"
