"""The `statusline` command in `keepd`'s parser (help, `python -m keepd`); the console script
reaches the same function without the parser (keepd/launch.py)."""

from __future__ import annotations

import argparse
from typing import Any


def add_commands(commands: Any) -> None:
    """Adds `statusline` to the `keepd` parser."""
    line = commands.add_parser(
        "statusline", help="one line for Claude Code's status bar (its JSON on stdin)"
    )
    style = line.add_mutually_exclusive_group()
    style.add_argument("--plain", action="store_true", help="no colours")
    style.add_argument("--color", action="store_true", help="colours even with NO_COLOR set")
    line.set_defaults(handler=_statusline)


def _statusline(args: argparse.Namespace) -> int:
    from keepd.statusline import run

    return run(color=False if args.plain else True if args.color else None)

