"""Options every `keepd` command shares: `--verbose` anywhere, one-line usage errors with a
"did you mean", and checked values (`--window` tokens, `--width` columns, session names)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any, NoReturn

MIN_WIDTH = 40
MIN_PREFIX = 4
_INVALID_CHOICE = re.compile(r"argument (\S+): invalid choice: '([^']*)' \(choose from (.*)\)")


class OneLineParser(argparse.ArgumentParser):
    """A parser whose usage errors are one line (as every keepd error is), naming the help and,
    for a mistyped command, the one meant."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {usage_message(self.prog, message)}\n")


def usage_message(prog: str, message: str) -> str:
    """argparse's message, with a "did you mean" for a mistyped choice instead of every choice.

    >>> usage_message("keepd", "argument COMMAND: invalid choice: 'reprot' (choose from "
    ...     "'report', 'note', 'cut')")
    "no command 'reprot': did you mean `keepd report`? (`keepd --help` lists them all)"
    >>> usage_message("keepd report", "argument --width: 3 is too narrow")
    'argument --width: 3 is too narrow (`keepd report --help` shows the options)'
    """
    found = _INVALID_CHOICE.fullmatch(message)
    if found is None:
        return f"{message} (`{prog} --help` shows the options)"
    from difflib import get_close_matches

    kind = found.group(1).lower()
    given = found.group(2)
    choices = re.findall(r"'([^']*)'", found.group(3))
    close = get_close_matches(given, choices, n=1, cutoff=0.6)
    guess = f"did you mean `{prog} {close[0]}`? " if close else ""
    return f"no {kind} {given!r}: {guess}(`{prog} --help` lists them all)"


class CommandParser(OneLineParser):
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
        "--window",
        type=tokens,
        metavar="TOKENS",
        help="context window in tokens (default: what Claude Code says for the session)",
    )


def width(text: str) -> int:
    """A report's width in columns: a whole number of at least 40.

    >>> width("80")
    80
    >>> width("-5")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: -5 columns is too narrow: give at least 40
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of columns") from None
    if value < MIN_WIDTH:
        raise argparse.ArgumentTypeError(
            f"{value} columns is too narrow: give at least {MIN_WIDTH}"
        )
    return value


def width_option(parser: argparse.ArgumentParser) -> None:
    """`--width COLUMNS`, checked before anything is read."""
    parser.add_argument(
        "--width", type=width, metavar="COLUMNS", help="the report's width (default: the screen's)"
    )


def json_option(parser: argparse.ArgumentParser, what: str = "machine-readable output") -> None:
    """`--json`, whose forms docs/json.md describes."""
    parser.add_argument("--json", action="store_true", help=f"{what} (docs/json.md)")


def session_name(text: str) -> str:
    """What names a session: a path, a whole id, or at least 4 characters of one.

    >>> session_name("2bca")
    '2bca'
    >>> try:
    ...     session_name("1")
    ... except argparse.ArgumentTypeError as error:
    ...     print(error)
    '1' is too short for a session: give 4 or more characters of its id, or a path
    """
    if len(text) >= MIN_PREFIX or os.sep in text or text.endswith(".jsonl"):
        return text
    if text and Path(text).exists():
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r} is too short for a session: give {MIN_PREFIX} or more characters of its id, "
        "or a path"
    )


def session_argument(parser: argparse.ArgumentParser, dest: str = "session", **kwargs: Any) -> None:
    """The SESSION positional of the commands that name one session."""
    kwargs.setdefault("help", "a session: its id, 4 or more characters of it, or its file's path")
    parser.add_argument(dest, metavar="SESSION", type=session_name, **kwargs)
