"""A headless Chromium driven over the DevTools protocol on a pipe, with the stdlib only.

Chromium reads commands from fd 3 and writes replies and events to fd 4, each a JSON text
ended by a NUL byte. A tiny Python trampoline moves the pipe ends to those numbers and execs it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.integration.desktop import png_chunks

_TRAMPOLINE = (
    "import fcntl, os, sys\n"
    "r, w = (fcntl.fcntl(int(a), fcntl.F_DUPFD, 10) for a in sys.argv[1:3])\n"
    "os.dup2(r, 3)\n"
    "os.dup2(w, 4)\n"
    "os.execvp(sys.argv[3], sys.argv[3:])\n"
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)
TIMEOUT = 30.0
_BAD = {"error", "assert", "warning"}


def chromium() -> str | None:
    """The Chromium executable on PATH, if any."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One Chromium process and one page attached to it."""

    def __init__(self, executable: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="keepd-chromium-")
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        argv = [executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"]
        self.process = subprocess.Popen(
            [sys.executable, "-c", _TRAMPOLINE, str(commands_read), str(replies_write), *argv],
            pass_fds=(commands_read, replies_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        self.session: str = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=self.session)

    def __enter__(self) -> Browser:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError, EOFError, TimeoutError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> dict[str, Any]:
        """Sends a command and waits for its reply; raises on a protocol error."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        wanted = self._next
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.call(method, params, session=self.session)

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise TimeoutError("no reply from chromium")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if message.get("method") == "Page.javascriptDialogOpening":
            self._dismiss()
        return message

    def _dismiss(self) -> None:
        """Closes an alert or prompt (which would block the page) without waiting for a reply."""
        self._next += 1
        message = {
            "id": self._next,
            "method": "Page.handleJavaScriptDialog",
            "params": {"accept": False},
            "sessionId": self.session,
        }
        os.write(self._commands, json.dumps(message).encode() + b"\0")

    def open(self, path: Path) -> None:
        """Loads a file and waits for its load event; events from before are forgotten."""
        self.events.clear()
        self.page("Page.navigate", {"url": path.resolve().as_uri()})
        deadline = time.monotonic() + TIMEOUT
        while not any(event.get("method") == "Page.loadEventFired" for event in self.events):
            self.events.append(self._receive(deadline))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        reply = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise RuntimeError(str(reply["exceptionDetails"]))
        return reply["result"].get("value")

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and security (CSP) messages since `open`."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Page.javascriptDialogOpening":
                found.append(f"dialog: {params.get('message')}")
            elif method == "Runtime.exceptionThrown":
                found.append(str(params["exceptionDetails"].get("text")))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in _BAD:
                found.append(str(params.get("args")))
            elif method == "Log.entryAdded" and params["entry"].get("level") in _BAD:
                found.append(str(params["entry"].get("text")))
        return found

    def screenshot(self, width: int = 1200, *, full: bool = True, scale: float = 1.0) -> bytes:
        """A PNG of the page at `width` CSS pixels (the whole page when `full`), scaled."""
        self.page(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False},
        )
        height = int(self.evaluate("document.documentElement.scrollHeight")) if full else 900
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": scale}
        shot = self.page(
            "Page.captureScreenshot",
            {"format": "png", "clip": clip, "captureBeyondViewport": full},
        )
        return base64.b64decode(shot["data"])

    def color_scheme(self, scheme: str, media: str = "screen") -> None:
        features = [{"name": "prefers-color-scheme", "value": scheme}]
        self.page("Emulation.setEmulatedMedia", {"media": media, "features": features})


def png_pixels(data: bytes) -> tuple[int, int, bytes]:
    """The width, height and raw pixel rows of an 8-bit RGB or RGBA PNG: two screenshots are
    the same picture when these are equal, whatever their encoder did."""
    width, height, channels, idat = _png_parts(data)
    rows = _unfilter(zlib.decompress(idat), width, height, channels)
    return width, height, b"".join(rows)


def _png_parts(data: bytes) -> tuple[int, int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width = height = channels = 0
    idat = b""
    for kind, body, _raw in png_chunks(data):
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            channels = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
    return width, height, channels, idat


def png_colors(data: bytes, limit: int = 4096) -> int:
    """Distinct pixel colours in an 8-bit RGB or RGBA PNG (counted up to `limit`)."""
    width, height, channels, idat = _png_parts(data)
    rows = _unfilter(zlib.decompress(idat), width, height, channels)
    colors: set[bytes] = set()
    for row in rows:
        for x in range(0, len(row), channels * 7):
            colors.add(bytes(row[x : x + channels]))
        if len(colors) >= limit:
            break
    return len(colors)


def _unfilter(raw: bytes, width: int, height: int, channels: int) -> list[bytearray]:
    stride = width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            line[i] = (line[i] + _predict(kind, left, up, corner)) & 0xFF
        rows.append(line)
        previous = line
    return rows


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    estimate = left + up - corner
    a, b, c = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
    if a <= b and a <= c:
        return left
    return up if b <= c else corner
