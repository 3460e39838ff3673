"""Options every `keepd` command shares: `--verbose` anywhere, and checked `--window` tokens."""

from __future__ import annotations

import argparse
from typing import Any


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that also takes `-v/--verbose`, so `keepd report --verbose x` works
    as the errors' "run with --verbose" asks; nested subcommands inherit it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # SUPPRESS: a subcommand that is not given the flag leaves the top level's value alone.
        self.add_argument(
            "-v",
            "--verbose",
            action="store_true",
            default=argparse.SUPPRESS,
            help="tracebacks and debug logs",
        )


def tokens(text: str) -> int:
    """A context window in tokens: a whole number of at least 1,000.

    >>> tokens("1000000")
    1000000
    >>> tokens("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '0' is not a context window: give at least 1000 tokens
    """
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of tokens") from None
    if value < MIN_WINDOW:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a context window: give at least {MIN_WINDOW} tokens"
        )
    return value


MIN_WINDOW = 1000


def window_option(parser: argparse.ArgumentParser) -> None:
    """`--window TOKENS`, checked before anything is read."""
    parser.add_argument(
        "--window", type=tokens, metavar="TOKENS", help="context window in tokens (default: 200k)"
    )
