"""The commands that read the recall store: `recall` (search, or one message) and `mcp`."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_commands(commands: Any) -> None:
    """Adds `recall` and `mcp` to the `keepd` parser."""
    recall = commands.add_parser(
        "recall", help="search the messages keepd's cuts and compactions left out"
    )
    recall.add_argument("query", nargs="*", metavar="QUERY", help="words to look for")
    recall.add_argument("--uuid", metavar="U", help="print this message whole instead")
    recall.add_argument("--session", metavar="S", help="a session id, prefix or path (or all)")
    recall.add_argument("--cut", metavar="ID", help="only this cut (its id or a prefix)")
    recall.add_argument("--limit", type=int, default=10, metavar="N", help="hits shown (10)")
    recall.add_argument("--json", action="store_true", help="machine-readable output")
    recall.set_defaults(handler=_recall)
    mcp = commands.add_parser("mcp", help="serve the recall store to Claude Code (MCP, stdio)")
    mcp.set_defaults(handler=_mcp)


def _recall(args: argparse.Namespace) -> int:
    """Searches or prints one message; with --json an error is JSON on stdout too (and the
    usual line on stderr), so that a script reading stdout always gets an object."""
    from keepd.errors import KeepdError

    try:
        return _recall_or_raise(args)
    except KeepdError as error:
        if not args.json:
            raise
        from keepd.recall.render import error_json

        sys.stdout.buffer.write(error_json(error))
        sys.stdout.flush()
        print(f"keepd: {error}", file=sys.stderr)
        return error.exit_code


def _recall_or_raise(args: argparse.Namespace) -> int:
    from keepd.errors import UsageError
    from keepd.recall import render, search

    query = " ".join(args.query).strip()
    if args.uuid is not None:
        if query:
            raise UsageError("give words to search for or --uuid U, not both")
        stored = search.fetch(args.uuid, session=args.session)
        if args.json:
            sys.stdout.buffer.write(render.message_json(stored))
        else:
            sys.stdout.write(render.message_text(stored))
        return 0
    if not query:
        raise UsageError("give words to search for (`keepd recall WORDS`) or --uuid U")
    results = search.search(query, session=args.session, cut=args.cut, limit=args.limit)
    if args.json:
        sys.stdout.buffer.write(render.hits_json(results))
    else:
        sys.stdout.write(render.hits_text(results))
    return 0


def _mcp(args: argparse.Namespace) -> int:
    from keepd.errors import MissingExtraError

    try:
        from keepd.claude.mcp_server import serve
    except ImportError as error:
        from keepd.login.advice import add_package

        raise MissingExtraError(
            f"keepd mcp needs the mcp package ({error.name or error}): {add_package('mcp')}"
        ) from error
    serve()
    return 0
