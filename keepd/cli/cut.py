"""The commands that write a session file: `cut`, `prune` and `undo`."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keepd.cli.options import window_option

if TYPE_CHECKING:
    from keepd.cut.model import CutOutcome, Plan, Turn
    from keepd.cut.summary import SummaryRequest

PREVIEW_LINES = 12


def add_commands(commands: Any) -> None:
    """Adds `cut`, `prune` and `undo` to the `keepd` parser."""
    _cut_parser(commands)
    prune = commands.add_parser("prune", help="keep the recent turns and the ones leaned on")
    _session(prune)
    shown = " (default: %(default)s)"
    prune.add_argument("--keep-last", type=int, default=3, metavar="K", help="recent turns" + shown)
    prune.add_argument("--working", type=int, default=6, metavar="W", help="older turns" + shown)
    prune.add_argument("--notes", action="store_true", help="a short notes message for the rest")
    _writing(prune)
    prune.set_defaults(handler=_prune)
    undo = commands.add_parser("undo", help="undo keepd's latest cut or prune of a session")
    _session(undo)
    undo.add_argument("--force", action="store_true", help="even if it runs or went on")
    undo.set_defaults(handler=_undo)


def _cut_parser(commands: Any) -> None:
    cut = commands.add_parser("cut", help="summarize up to a stop: write the compact boundary")
    _session(cut)
    where = cut.add_mutually_exclusive_group()
    where.add_argument("--at", metavar="STOP", help="a stop's uuid or unique prefix, or below~N")
    where.add_argument("--pick", action="store_true", help="the stop keepd picks")
    shape = cut.add_mutually_exclusive_group()
    for flag, value, text in (
        ("--summary-last", "last", "the summary after the kept messages"),
        ("--no-summary", "none", "the kept messages alone"),
        ("--empty", "empty", "clear the context (no stop needed)"),
    ):
        shape.add_argument(flag, dest="placement", action="store_const", const=value, help=text)
    source = cut.add_mutually_exclusive_group()
    source.add_argument("--summary-file", metavar="F", help="the summary's text ('-': stdin)")
    source.add_argument("--summarize", action="store_true", help="claude -p, else keepd's gist")
    _writing(cut)
    cut.set_defaults(handler=_cut, placement="first")


def _session(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", metavar="SESSION", help="a path, a session id or unique prefix")


def _writing(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="even if the session seems in use")
    parser.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    window_option(parser)


def _cut(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    operations = Operations()
    plan = operations.plan_cut(
        args.session,
        at=args.at,
        pick=args.pick,
        placement=args.placement,
        summary=_summary_request(args),
        force=args.force,
        window=args.window,
        dry_run=args.dry_run,
    )
    return _finish(operations, plan, args)


def _prune(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    operations = Operations()
    plan = operations.plan_prune(
        args.session,
        keep_last=args.keep_last,
        working=args.working,
        notes=args.notes,
        force=args.force,
        window=args.window,
        dry_run=args.dry_run,
    )
    return _finish(operations, plan, args)


def _undo(args: argparse.Namespace) -> int:
    from keepd.ops.operations import Operations

    done = Operations().undo_cut(args.session, force=args.force)
    print(
        f"keepd undo: {done.path} is back to its {done.size:,} bytes before the cut "
        f"({done.removed:,} removed)"
    )
    if done.kept_after is not None:
        print(f"  what was written after the cut is saved in {done.kept_after}")
    if done.recall_forgotten:
        print(f"  its {done.recall_forgotten:,} messages left the recall store (cut {done.cut_id})")
    if done.recall_warning:
        print(f"keepd: warning: recall store: {done.recall_warning}", file=sys.stderr)
    return 0


def _summary_request(args: argparse.Namespace) -> SummaryRequest:
    from keepd.cut.summary import SummaryRequest, read_summary_file

    if args.placement not in ("first", "last"):
        return SummaryRequest()
    if args.summarize:
        return SummaryRequest(summarize=True, run=not args.dry_run)
    if args.summary_file == "-":
        return SummaryRequest(text=_stdin(), origin="stdin")
    if args.summary_file is None and _piped():
        text = _stdin()
        if text.strip():
            return SummaryRequest(text=text, origin="stdin")
        # An empty stdin (cron, scripts, IDE tasks, </dev/null) asked for nothing: keepd's gist.
    if args.summary_file is not None:
        path = Path(args.summary_file).expanduser()
        return SummaryRequest(text=read_summary_file(path), origin=f"file {path.name}")
    return SummaryRequest()  # keepd's gist


def _piped() -> bool:
    stdin = sys.stdin
    try:
        return stdin is not None and not stdin.isatty()
    except (OSError, ValueError):
        return False


def _stdin() -> str:
    from keepd.errors import SummaryError

    try:
        return sys.stdin.read()
    except (OSError, ValueError) as error:
        raise SummaryError(f"stdin cannot be read: {error}") from error


def _finish(operations: Any, plan: Plan, args: argparse.Namespace) -> int:
    _describe(plan)
    if plan.dropped == 0:
        print("  nothing to drop: the file is left as it is")
        return 0
    if args.dry_run:
        _preview(plan)
        print(f"  dry run: nothing written (the cut would be cut {plan.cut_id})")
        return 0
    outcome: CutOutcome = operations.write_cut(plan, force=args.force)
    _written(outcome)
    return 0


def _describe(plan: Plan) -> None:
    presses = (plan.stop_below or 0) + 1  # the report's ↑N for the stop
    where = f" at ↑{presses} “{_short(plan.stop_quote, 60)}”" if plan.stop_uuid else ""
    print(f"keepd {plan.kind}: {plan.session_id}{where}")
    kept = f"keeps {len(plan.preserved):,} messages word for word, drops {plan.dropped:,}"
    shape = {"first": "summary first", "last": "summary last", "none": "no summary"}
    what = "an empty context" if plan.placement == "empty" else shape[plan.placement]
    if plan.summary is not None:
        what += f": {plan.summary_source}, {_k(plan.tokens_summary)} tokens"
    print(f"  {kept} ({what})")
    print(
        f"  the new context: {_k(plan.tokens_after)} tokens, {plan.share_after:.0%} of "
        f"{_k(plan.window)} (now {_k(plan.tokens_before)}, {plan.share_before:.0%})"
    )
    if plan.turns:
        _turns(plan.turns)


def _turns(turns: tuple[Turn, ...]) -> None:
    room = max(shutil.get_terminal_size((100, 24)).columns - 34, 20)
    print("  turn  what     score  tokens  prompt")
    for turn in turns:
        what = "recent" if turn.recent else ("keep" if turn.keep else "drop")
        score = "-" if turn.score is None else f"{turn.score:.1f}"
        quote = _short(turn.quote, room)
        print(f"  {turn.number:>4}  {what:<6} {score:>7}  {_k(turn.tokens):>6}  {quote}")


def _preview(plan: Plan) -> None:
    if plan.summary is None:
        return
    lines = plan.summary.splitlines()
    print(f"  the summary ({len(plan.summary):,} characters):")
    for line in lines[:PREVIEW_LINES]:
        print(f"    {line}")
    if len(lines) > PREVIEW_LINES:
        print(f"    … {len(lines) - PREVIEW_LINES} more lines")


def _written(outcome: CutOutcome) -> None:
    plan = outcome.plan
    print(f"  written and checked; the file as it was is kept in {outcome.backup}")
    if outcome.recall_warning is None:
        print(
            f"  the {outcome.recalled:,} messages left out are in the recall store as cut "
            f"{plan.cut_id}: keepd recall --cut {plan.cut_id} WORDS"
        )
    else:
        print(
            f"keepd: warning: recall store: {outcome.recall_warning} (the cut is written; "
            "keepd recall cannot find what it left out)",
            file=sys.stderr,
        )
    if not outcome.rebuilt_directly:
        print("  keepd report shows the new context after your next message")
    print(f"  undo: keepd undo {plan.session_id}")
    where = f"cd {plan.project} && " if plan.project else ""
    print(f"  continue: {where}claude --resume {plan.session_id}")


def _k(tokens: float) -> str:
    """Tokens in a few characters.

    >>> _k(812.4), _k(28_140.0), _k(200_000.0)
    ('812', '28.1k', '200k')
    """
    if tokens >= 100_000:
        return f"{tokens / 1000:.0f}k"
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else f"{tokens:.0f}"


def _short(text: str, room: int) -> str:
    from keepd.report.instructions import short

    return short(text, room)
