"""`keepd mcp` as Claude Code runs it: a child process spoken to in JSON-RPC over its stdin and
stdout: `initialize`, `tools/list`, and calls that search a real cut's dropped part, read a
message whole in bounded pages, and turn bad arguments into tool errors."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from keepd.claude.mcp_server import SEARCH_CHARS
from keepd.ops.operations import Operations
from keepd.paths import example_session, project_slug
from keepd.recall.text import render
from tests.cut_kit import by_uuid, quiet_copy

pytest.importorskip("mcp.server.mcpserver", reason="keepd[mcp] is not installed")

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
PROJECT = "/home/dev/invoicer"
PROTOCOL = "2025-06-18"
SECONDS = 60.0


class Rpc:
    """A JSON-RPC client over a child's pipes; replies are matched by id."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(orjson.dumps({"jsonrpc": "2.0", **message}) + b"\n")
        self.process.stdin.flush()

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params or {}})
        while True:
            line = self.lines.get(timeout=SECONDS)
            assert line, "the server closed its stdout"
            reply: dict[str, Any] = orjson.loads(line)
            if reply.get("id") == self.next_id:
                assert "error" not in reply, reply
                result: dict[str, Any] = reply["result"]
                return result

    def tool(self, name: str, **arguments: Any) -> tuple[str, bool]:
        result = self.call("tools/call", {"name": name, "arguments": arguments})
        (content,) = result["content"]
        assert content["type"] == "text"
        return str(content["text"]), bool(result.get("isError"))


@pytest.fixture
def cut(private_home: Path) -> tuple[Path, tuple[str, ...]]:
    folder = private_home / ".claude" / "projects" / project_slug(PROJECT)
    path = quiet_copy(example_session(), folder / f"{EXAMPLE_ID}.jsonl")
    operations = Operations()
    outcome = operations.write_cut(operations.plan_cut(str(path), pick=True, placement="none"))
    return path, outcome.plan.dropped_uuids


@pytest.fixture
def server(cut: tuple[Path, tuple[str, ...]], tmp_path: Path) -> Iterator[Rpc]:
    """`python -m keepd mcp` started as Claude Code starts it: in the project, over pipes."""
    env = {**os.environ, "CLAUDE_PROJECT_DIR": PROJECT}
    stderr = (tmp_path / "mcp.err").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "keepd", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=tmp_path,
    )
    try:
        yield Rpc(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()  # end of input: the server stops by itself
        code = process.wait(SECONDS)
        stderr.close()
        assert code == 0, (tmp_path / "mcp.err").read_text()
        assert "Traceback" not in (tmp_path / "mcp.err").read_text()


def _initialize(rpc: Rpc) -> dict[str, Any]:
    client = {"name": "keepd-test", "version": "1"}
    result = rpc.call(
        "initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": client}
    )
    rpc.send({"method": "notifications/initialized"})
    return result


def test_initialize_list_and_search_over_stdio(
    server: Rpc, cut: tuple[Path, tuple[str, ...]]
) -> None:
    dropped = cut[1]
    hello = _initialize(server)
    assert hello["protocolVersion"] == PROTOCOL
    assert hello["serverInfo"]["name"] == "keepd" and "tools" in hello["capabilities"]
    assert "recall" in hello["instructions"]
    tools = {tool["name"]: tool for tool in server.call("tools/list")["tools"]}
    assert set(tools) == {"recall", "recall_message"}
    assert tools["recall"]["inputSchema"]["required"] == ["query"]
    assert tools["recall"]["annotations"]["readOnlyHint"] is True
    text, failed = server.tool("recall", query="quantize")  # the session: this project's
    assert not failed
    first = text.splitlines()[0]
    uuid = first.split("uuid ", 1)[1].split(" ", 1)[0]
    assert uuid in dropped and "«quantize»" in text and "ROUND_HALF_UP" in text
    assert server.tool("recall", query="quantize", session="all")[0] == text


def test_a_message_whole_in_bounded_pages(server: Rpc, cut: tuple[Path, tuple[str, ...]]) -> None:
    path, dropped = cut
    lines = by_uuid(path)
    longest = max(dropped, key=lambda uuid: len(render(lines[uuid])))
    whole = render(lines[longest])
    page = 1000
    assert len(whole) > 4 * page  # so the answer must be cut
    _initialize(server)
    pages, offset = [], 0
    while True:
        text, failed = server.tool("recall_message", uuid=longest, offset=offset, max_chars=page)
        assert not failed and len(text) < page + 500
        body = text.split("\n\n", 1)[1]
        if "[truncated: " not in text:
            pages.append(body)
            break
        body, _, note = body.rpartition("\n\n[truncated: ")
        pages.append(body)
        offset = int(note.rsplit("offset ", 1)[1].rstrip("]\n"))
    assert "".join(pages) in (whole, whole + "\n")
    assert len(pages) == -(-len(whole) // page)
    text, failed = server.tool("recall_message", uuid=longest)
    assert not failed and "[truncated" not in text and whole in text  # the default page fits
    text, failed = server.tool("recall_message", uuid=longest, offset=len(whole) + 10)
    assert failed and f"is past the end: message {longest} has {len(whole):,} characters" in text


def test_search_answers_are_bounded(server: Rpc) -> None:
    _initialize(server)
    text, failed = server.tool("recall", query="the", limit=50)
    assert not failed and len(text) <= SEARCH_CHARS + 100
    assert text.rstrip().endswith("more characters; ask for fewer hits]")


def test_bad_arguments_are_tool_errors(server: Rpc) -> None:
    _initialize(server)
    text, failed = server.tool("recall", query='"')
    assert failed and text.endswith("bad query: '\"' has no words to search for")
    text, failed = server.tool("recall", query="x", cut="nope")
    assert failed and "no stored cut" in text and "\n" not in text
    text, failed = server.tool("recall", query="x", session="nope")
    assert failed and "session='all'" in text
    text, failed = server.tool("recall_message", uuid="nope")
    assert failed and "no stored message" in text
    text, failed = server.tool("recall", query="x", limit=500)
    assert failed  # the schema's bound, checked by the SDK


def test_an_empty_store_does_not_send_the_model_to_session_all(tmp_path: Path) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from keepd.claude.mcp_server import search_text

    missing = tmp_path / "none.sqlite3"
    for session in (EXAMPLE_ID, "all"):
        with pytest.raises(ToolError) as caught:
            search_text("x", session=session, cut=None, limit=5, store_path=missing)
        assert "nothing is stored yet" in str(caught.value)
        assert "session='all'" not in str(caught.value)
