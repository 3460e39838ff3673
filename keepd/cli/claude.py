"""The `statusline` and `hook` commands in `keepd`'s parser (help, `python -m keepd`); the
console script reaches the same functions without the parser (keepd/cli/launch.py)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_commands(commands: Any) -> None:
    """Adds `statusline` and `hook` to the `keepd` parser."""
    line = commands.add_parser(
        "statusline", help="one line for Claude Code's status bar (its JSON on stdin)"
    )
    style = line.add_mutually_exclusive_group()
    style.add_argument("--plain", action="store_true", help="no colours")
    style.add_argument("--color", action="store_true", help="colours even with NO_COLOR set")
    line.set_defaults(handler=_statusline)
    hook = commands.add_parser(
        "hook", help="a Claude Code hook command: precompact (its JSON on stdin)"
    )
    hook.add_argument("event", nargs="?", metavar="EVENT", help="precompact")
    hook.add_argument("options", nargs=argparse.REMAINDER, help="--manual: manual compactions too")
    hook.set_defaults(handler=_hook)


def _statusline(args: argparse.Namespace) -> int:
    from keepd.claude.statusline import run

    return run(color=False if args.plain else True if args.color else None)


def _hook(args: argparse.Namespace) -> int:
    """Always 0: a hook's failure must not stop what Claude Code was doing."""
    if args.event != "precompact":
        print(f"keepd hook: unknown event {args.event!r} (known: precompact)", file=sys.stderr)
        return 0
    from keepd.claude.hooks import precompact

    return precompact(args.options, verbose=args.verbose)
