"""A fake Anthropic Messages API on 127.0.0.1 that answers from a script and records every request.

The real Claude Code posts to `/v1/messages?beta=true` (server-sent events when the body says
`stream: true`) and `/v1/messages/count_tokens`; everything else it may try is answered 404, so
nothing it does leaves the loopback interface and nothing hangs.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"
_ids = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    """One `tool_use` block the fake model emits."""

    name: str
    input: dict[str, Any]
    id: str = field(default_factory=lambda: f"toolu_fake{next(_ids):06d}")


@dataclass(frozen=True)
class Reply:
    """One scripted model response: text, then tool calls (several make a parallel call)."""

    text: str = ""
    tools: tuple[ToolCall, ...] = ()
    input_tokens: int | None = None  # None: estimated from the request's size
    output_tokens: int = 12

    def blocks(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.text or not self.tools:
            out.append({"type": "text", "text": self.text or "OK."})
        out.extend(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}
            for call in self.tools
        )
        return out

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tools else "end_turn"


@dataclass(frozen=True)
class Request:
    """One recorded request: path and parsed JSON body."""

    path: str
    body: dict[str, Any]
    size: int = 0  # the body's bytes: the fake's usage says `size // 4` input tokens

    @property
    def is_conversation(self) -> bool:
        """The main loop's calls carry tools; titles and other side calls none (2.1.141 sends
        them an empty list, 2.1.332 no list)."""
        return self.path.startswith("/v1/messages") and "count_tokens" not in self.path and bool(
            self.body.get("tools")
        )

    def texts(self) -> list[str]:
        """Every text block of every message, in order (strings count as one block)."""
        found: list[str] = []
        for message in self.body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                found.append(content)
                continue
            for block in content or []:
                if block.get("type") == "text":
                    found.append(block["text"])
                elif block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, str):
                        found.append(inner)
                    else:
                        found.extend(
                            b.get("text", "") for b in inner or [] if b.get("type") == "text"
                        )
        return found

    def joined(self) -> str:
        """The system prompt and every text, for substring checks."""
        system = self.body.get("system")
        head = system if isinstance(system, str) else " ".join(
            part.get("text", "") for part in system or [] if isinstance(part, dict)
        )
        return head + "\n" + "\n".join(self.texts())

    def tool_names(self) -> list[str]:
        return [tool.get("name", "") for tool in self.body.get("tools", [])]


Responder = Callable[[Request], Reply]


class FakeApi:
    """The server: `script` replies go to conversation calls in order; `responder`, when set,
    decides every reply instead. Side calls and an empty script get a short text reply."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.script: list[Reply] = []
        self.responder: Responder | None = None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeApi:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.script.extend(replies)

    def conversation(self) -> list[Request]:
        """The recorded main-loop requests, oldest first."""
        with self._lock:
            return [r for r in self.requests if r.is_conversation]

    def messages_posts(self) -> list[Request]:
        """Every recorded POST to /v1/messages (side calls included), oldest first."""
        with self._lock:
            return [
                r for r in self.requests
                if r.path.startswith("/v1/messages") and "count_tokens" not in r.path
            ]

    def reply_for(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.responder is not None:
                return self.responder(request)
            if request.is_conversation and self.script:
                return self.script.pop(0)
        return Reply(text="OK.")


def _handler_for(api: FakeApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_HEAD(self) -> None:
            self._send(200, b"", "text/plain")

        def do_GET(self) -> None:
            self._send(404, b'{"type":"error","error":{"type":"not_found_error"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode("utf-8", "replace")}
            request = Request(
                self.path, body if isinstance(body, dict) else {"body": body}, len(raw)
            )
            if not self.path.startswith("/v1/messages"):
                with api._lock:
                    api.requests.append(request)
                self._send(404, b'{"type":"error","error":{"type":"not_found_error"}}')
                return
            if "count_tokens" in self.path:
                with api._lock:
                    api.requests.append(request)
                self._send(200, json.dumps({"input_tokens": len(raw) // 4}).encode())
                return
            reply = api.reply_for(request)
            tokens = reply.input_tokens if reply.input_tokens is not None else len(raw) // 4
            if body.get("stream"):
                self._stream(reply, tokens, str(body.get("model") or MODEL))
            else:
                message = _message(reply, tokens, str(body.get("model") or MODEL))
                self._send(200, json.dumps(message).encode())

        def _send(self, status: int, payload: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("request-id", f"req_fake{next(_ids):06d}")
            self.end_headers()
            self.wfile.write(payload)

        def _stream(self, reply: Reply, tokens: int, model: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("request-id", f"req_fake{next(_ids):06d}")
            self.send_header("Connection", "close")
            self.end_headers()
            for event in sse_events(reply, tokens, model):
                name = event["type"]
                self.wfile.write(f"event: {name}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.close_connection = True

    return Handler


def _usage(reply: Reply, tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": reply.output_tokens,
    }


def _message(reply: Reply, tokens: int, model: str) -> dict[str, Any]:
    return {
        "id": f"msg_fake{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": reply.blocks(),
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(reply, tokens),
    }


def sse_events(reply: Reply, tokens: int, model: str) -> Iterator[dict[str, Any]]:
    """The events of one streamed response, in the order and shape the real API sends them."""
    start = _message(reply, tokens, model) | {"content": [], "stop_reason": None}
    start["usage"] = _usage(reply, tokens) | {"output_tokens": 1}
    yield {"type": "message_start", "message": start}
    yield {"type": "ping"}
    for index, block in enumerate(reply.blocks()):
        if block["type"] == "text":
            yield {"type": "content_block_start", "index": index,
                   "content_block": {"type": "text", "text": ""}}
            yield {"type": "content_block_delta", "index": index,
                   "delta": {"type": "text_delta", "text": block["text"]}}
        else:
            yield {"type": "content_block_start", "index": index,
                   "content_block": block | {"input": {}}}
            partial = json.dumps(block["input"])
            yield {"type": "content_block_delta", "index": index,
                   "delta": {"type": "input_json_delta", "partial_json": partial}}
        yield {"type": "content_block_stop", "index": index}
    yield {"type": "message_delta",
           "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
           "usage": {"output_tokens": reply.output_tokens}}
    yield {"type": "message_stop"}
