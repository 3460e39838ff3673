"""`keepd mcp`: the recall store served over stdio with the official MCP SDK (`keepd[mcp]`).

Imported only by `keepd mcp`: the SDK and pydantic stay off every other command's path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from keepd._version import __version__
from keepd.errors import KeepdError, NothingStoredError, NotRecalledError
from keepd.recall import render, search
from keepd.recall.search import ALL_SESSIONS

SEARCH_CHARS = 8_000
MESSAGE_CHARS = 12_000
INSTRUCTIONS = (
    "keepd keeps the messages that its cuts and prunes, and Claude Code's own compactions, "
    "left out of this conversation. When a summary names a keepd cut, or a detail from earlier "
    "in the session is missing (an exact error, a value, a file name, a decision), search with "
    "`recall`, then read a hit whole with `recall_message`."
)
SEARCH_DOC = (
    "Search the messages that keepd's cuts and prunes and Claude Code's compactions left out of "
    "the conversation (best first, bm25); each hit gives the message's uuid and a snippet."
)
MESSAGE_DOC = (
    f"One left-out message whole (its text, tool calls and tool results), up to {MESSAGE_CHARS:,} "
    "characters at a time; a cut answer says the offset to read on from."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
Query = Annotated[str, Field(description="words to look for; a trailing * matches a prefix")]
Session = Annotated[
    str | None, Field(description="a session id or prefix, or 'all' (default: this project's)")
]
CutId = Annotated[str | None, Field(description="only this cut id (a keepd summary names it)")]
Limit = Annotated[int, Field(ge=1, le=50, description="how many hits")]
Uuid = Annotated[str, Field(description="the message's uuid, or a unique prefix of it")]
Offset = Annotated[int, Field(ge=0, description="start at this character (to read on)")]
Page = Annotated[
    int, Field(ge=200, le=MESSAGE_CHARS, description="at most this many characters of it")
]


def serve() -> None:
    """Serves until Claude Code closes stdin."""
    build().run("stdio")


def project_dir() -> Path:
    """The session's project: Claude Code starts stdio servers there and sets
    `CLAUDE_PROJECT_DIR`."""
    return Path(os.environ.get("CLAUDE_PROJECT_DIR") or Path.cwd())


def build(store_path: Path | None = None, cwd: Path | None = None) -> MCPServer:
    """The server and its two tools, over the store at `store_path` (default: the user's)."""
    server: MCPServer = MCPServer("keepd", instructions=INSTRUCTIONS, version=__version__)

    @server.tool(description=SEARCH_DOC, annotations=READ_ONLY, structured_output=False)
    def recall(query: Query, session: Session = None, cut: CutId = None, limit: Limit = 8) -> str:
        name = session if session is not None else _current(cwd)
        return search_text(query, session=name, cut=cut, limit=limit, store_path=store_path)

    @server.tool(description=MESSAGE_DOC, annotations=READ_ONLY, structured_output=False)
    def recall_message(uuid: Uuid, offset: Offset = 0, max_chars: Page = MESSAGE_CHARS) -> str:
        return message_page(uuid, offset, max_chars, store_path=store_path)

    return server


def search_text(
    query: str, *, session: str, cut: str | None, limit: int, store_path: Path | None
) -> str:
    """The hits as text, at most `SEARCH_CHARS`; keepd's errors become the tool's error."""
    try:
        results = search.search(query, session=session, cut=cut, limit=limit, store_path=store_path)
    except NothingStoredError as error:
        raise ToolError(str(error)) from error
    except NotRecalledError as error:
        named_one = session.strip().lower() not in ALL_SESSIONS
        hint = "; session='all' searches every session" if named_one else ""
        raise ToolError(f"{error}{hint}") from error
    except KeepdError as error:
        raise ToolError(str(error)) from error
    text, left = render.bounded(render.hits_text(results), SEARCH_CHARS)
    if left:
        text += f"\n[truncated: {left:,} more characters; ask for fewer hits]"
    return text


def message_page(uuid: str, offset: int, limit: int, *, store_path: Path | None) -> str:
    """One message from `offset`, at most `limit` characters, saying where to read on."""
    try:
        stored = search.fetch(uuid, store_path=store_path)
    except KeepdError as error:
        raise ToolError(str(error)) from error
    if offset and offset >= len(stored.text):
        raise ToolError(
            f"offset {offset:,} is past the end: message {stored.uuid} has "
            f"{len(stored.text):,} characters"
        )
    return render.message_text(stored, offset=offset, limit=min(limit, MESSAGE_CHARS))


def _current(cwd: Path | None) -> str:
    where = cwd or project_dir()
    found = search.current_session(where)
    if found is None:
        raise ToolError(f"no Claude Code session found for {where}; pass session (or 'all')")
    return found
