"""The commands that write a session file: `cut`, `prune` and `undo`."""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keepd.cli.options import json_option, session_argument, window_option

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
    prune.add_argument(
        "--keep-last", type=int, default=3, metavar="K", help="the newest turns kept" + shown
    )
    prune.add_argument(
        "--working",
        type=int,
        default=6,
        metavar="W",
        help="how many older turns, those the recent ones lean on most, are kept too" + shown,
    )
    prune.add_argument(
        "--notes", action="store_true", help="add a short message listing what was dropped"
    )
    _writing(prune)
    prune.set_defaults(handler=_prune)
    undo = commands.add_parser("undo", help="undo keepd's latest cut or prune of a session")
    _session(undo)
    undo.add_argument(
        "--force",
        action="store_true",
        help="undo even if Claude Code has the session open or wrote to it after the cut "
        "(what it wrote is saved to a file first)",
    )
    undo.add_argument("--json", action="store_true", help="machine-readable output (docs/json.md)")
    undo.set_defaults(handler=_undo)


def _cut_parser(commands: Any) -> None:
    cut = commands.add_parser("cut", help="summarize up to a stop: write the compact boundary")
    _session(cut)
    where = cut.add_mutually_exclusive_group()
    where.add_argument(
        "--at", metavar="STOP", help="the stop: ↑N as the report prints it, or its uuid"
    )
    where.add_argument("--pick", action="store_true", help="the stop keepd recommends")
    shape = cut.add_mutually_exclusive_group()
    for flag, value, text in (
        ("--summary-last", "last", "put the summary after the kept messages, not before"),
        ("--no-summary", "none", "no summary: the kept messages alone"),
        ("--empty", "empty", "clear the whole context (no stop needed)"),
    ):
        shape.add_argument(flag, dest="placement", action="store_const", const=value, help=text)
    source = cut.add_mutually_exclusive_group()
    source.add_argument(
        "--summary-file", metavar="FILE", help="your own summary, read from FILE ('-': stdin)"
    )
    source.add_argument(
        "--summarize",
        action="store_true",
        help="ask Claude (`claude -p`, your choice: it reads the prompts) to write the summary; "
        "without it, or when that fails, keepd writes a short one itself",
    )
    _writing(cut)
    cut.set_defaults(handler=_cut, placement="first")


def _session(parser: argparse.ArgumentParser) -> None:
    session_argument(parser)


def _writing(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--force",
        action="store_true",
        help="write even if Claude Code seems to have the session open",
    )
    parser.add_argument("--dry-run", action="store_true", help="show the change, write nothing")
    json_option(parser)
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
    if args.json:
        from keepd.ops.cutjson import undo_json

        sys.stdout.buffer.write(undo_json(done))
        _recall_warning(done.recall_warning)
        return 0
    print(
        f"keepd undo: {done.path} is back to its {done.size:,} bytes before the cut "
        f"({done.removed:,} removed)"
    )
    if done.kept_after is not None:
        print(f"  what was written after the cut is saved in {done.kept_after}")
    if done.recall_forgotten:
        print(f"  its {done.recall_forgotten:,} messages left the recall store (cut {done.cut_id})")
    _recall_warning(done.recall_warning)
    return 0


def _recall_warning(warning: str | None) -> None:
    if warning:
        print(f"keepd: warning: recall store: {warning}", file=sys.stderr)


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
    if args.json:
        return _finish_json(operations, plan, args)
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


def _finish_json(operations: Any, plan: Plan, args: argparse.Namespace) -> int:
    from keepd.ops.cutjson import cut_json

    outcome: CutOutcome | None = None
    if plan.dropped and not args.dry_run:
        outcome = operations.write_cut(plan, force=args.force)
    sys.stdout.buffer.write(cut_json(plan, outcome, dry_run=args.dry_run))
    if outcome is not None and outcome.recall_warning is not None:
        _recall_warning(outcome.recall_warning)
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
            f"{plan.cut_id}: `keepd recall --cut {plan.cut_id} WORDS`"
        )
    else:
        print(
            f"keepd: warning: recall store: {outcome.recall_warning} (the cut is written; "
            "keepd recall cannot find what it left out)",
            file=sys.stderr,
        )
    if not outcome.rebuilt_directly:
        print("  `keepd report` shows the new context after your next message")
    from keepd.ops.names import resume_command, session_name

    print(f"  undo: keepd undo {session_name(plan.snapshot.path, plan.session_id)}")
    resume = resume_command(plan.snapshot.path, plan.session_id, plan.project)
    if resume is not None:
        print(f"  continue: {resume}")
    else:
        print("  (Claude Code resumes a session only from its project's folder under projects/)")


def _k(tokens: float) -> str:
    from keepd.report.numbers import tokens_text

    return tokens_text(tokens)


def _short(text: str, room: int) -> str:
    from keepd.report.instructions import short

    return short(text, room)
