"""A corpus session made ready for a cut in the harness: its project's files on the world's disk
and its usage in the fake API's unit.

Files: Claude Code puts back after a summary the recently read files as they are on disk, so the
session's project folder becomes the world's (every string naming it is rewritten) and each file
its Read results showed is written there as the session last showed it (the Read result without
its line numbers, then the session's own Writes and Edits on it). Files outside the project
folder stay absent, as they would on another machine.

Usage: the corpus's counts are the real API's, for another client's instructions and tools; the
fake counts this client's request by its bytes / 4. After one resumed turn through the fake (in
the interactive client, whose tools and instructions are those the cut's requests carry),
each earlier response's usage is set to what the fake would have said for it: the bytes of that
turn's request cut before the response's message, / 4. So the session's counts and the request
measured after the cut are in one unit, the one keepd's estimates of files and summary use.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from tests.claude.client import World
from tests.claude.fake_api import FakeApi, Reply, Request
from tests.claude.picker import resume
from tests.claude.requests import _entry_items, _items
from tests.claude.sessions import place
from tests.claude.tmux import Tmux

WARM_UP = "prompt before the cut: where were we"
READ_BACK = ("file", "compact_file_reference")  # a file put back whole, or named as too large
_NUMBERED = re.compile(r"^ *\d+(?:→|\t)", re.M)


def _entries(lines: list[bytes]) -> Iterator[dict[str, Any]]:
    for raw in lines:
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def project_of(lines: list[bytes]) -> str | None:
    """The session's project folder: the `cwd` most of its entries name."""
    seen: dict[str, int] = {}
    for entry in _entries(lines):
        cwd = entry.get("cwd")
        if isinstance(cwd, str) and len(cwd) > 1:
            seen[cwd] = seen.get(cwd, 0) + 1
    return max(seen, key=seen.__getitem__) if seen else None


def moved(lines: list[bytes], old: str, new: str) -> list[bytes]:
    """The lines with every string naming `old` (the folder, or a path under it) naming `new`."""
    pattern = re.compile(re.escape(json.dumps(old)[1:-1]) + r'(?=["/\\])')
    replacement = json.dumps(new)[1:-1].replace("\\", "\\\\")
    return [pattern.sub(replacement, raw.decode("utf-8", "replace")).encode() for raw in lines]


def _result_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        ]
        return "\n".join(texts) if texts else None
    return None


def files_shown(lines: list[bytes]) -> dict[str, str]:
    """Each file's content as the session last showed it: a Read result without its line
    numbers, then each Write and Edit replayed on it."""
    files: dict[str, str] = {}
    reading: dict[str, str] = {}
    for entry in _entries(lines):
        content = (entry.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                _called(block, files, reading)
            elif block.get("type") == "tool_result" and block.get("tool_use_id") in reading:
                text = _result_text(block.get("content"))
                path = reading.pop(str(block.get("tool_use_id")))
                if text is not None and not block.get("is_error") and _NUMBERED.search(text):
                    body = "\n".join(_NUMBERED.sub("", line, count=1) for line in text.split("\n")
                                     if _NUMBERED.match(line))
                    files[path] = body + "\n"
    return files


def _called(block: dict[str, Any], files: dict[str, str], reading: dict[str, str]) -> None:
    given = block.get("input")
    value: dict[str, Any] = given if isinstance(given, dict) else {}
    path = value.get("file_path")
    if not isinstance(path, str):
        return
    name = block.get("name")
    if name == "Read":
        reading[str(block.get("id"))] = path
    elif name == "Write" and isinstance(value.get("content"), str):
        files[path] = value["content"]
    elif name == "Edit" and path in files:
        old, new = str(value.get("old_string", "")), str(value.get("new_string", ""))
        count = -1 if value.get("replace_all") else 1
        files[path] = files[path].replace(old, new, count) if old else files[path]


def last_touched(lines: list[bytes]) -> dict[str, float]:
    """When the session's calls last named each file (seconds since the epoch): the time a
    file edited then would carry on disk."""
    times: dict[str, float] = {}
    for entry in _entries(lines):
        content = (entry.get("message") or {}).get("content")
        stamp = entry.get("timestamp")
        if not isinstance(stamp, str) or not isinstance(content, list):
            continue
        when = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                given = block.get("input")
                path = given.get("file_path") if isinstance(given, dict) else None
                if isinstance(path, str):
                    times[path] = when
    return times


def write_files(
    files: dict[str, str], under: Path, times: dict[str, float] | None = None
) -> int:
    """Writes the files that lie under `under`, each with the time `times` gives it (the
    client orders the files it reads back by such times); how many."""
    written = 0
    for name, text in files.items():
        path = Path(name)
        if path.is_absolute() and path.resolve().is_relative_to(under.resolve()):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            if times and name in times:
                os.utime(path, (times[name], times[name]))
            written += 1
    return written


def _body_bytes(body: dict[str, Any]) -> int:
    return len(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())


def fake_counts(request: Request) -> dict[str, int]:
    """For each item of the request's assistant messages (a call's id, a text), the tokens the
    fake would have said for the request that asked for that message: the body's bytes with the
    messages before it only, / 4."""
    messages = request.body.get("messages", [])
    size = _body_bytes(request.body | {"messages": []})  # then each message and its comma
    counts: dict[str, int] = {}
    for at, message in enumerate(messages):
        if message.get("role") == "assistant":
            for kind, value in _items(message.get("content")):
                if kind != "tool_result" and value:
                    counts.setdefault(f"{kind}:{value}", size // 4)
        size += _body_bytes(message) + (1 if at else 0)
    return counts


def recounted(lines: list[bytes], counts: dict[str, int]) -> tuple[list[bytes], int, int]:
    """The lines with each response's usage in the fake's unit (its lines share one message id);
    a response the request does not hold loses its usage. Also: how many recounted, dropped."""
    by_id: dict[str, int] = {}
    for entry in _entries(lines):
        msg_id = (entry.get("message") or {}).get("id")
        if entry.get("type") != "assistant" or not isinstance(msg_id, str):
            continue
        for kind, value in _entry_items(entry):
            if f"{kind}:{value}" in counts:
                by_id.setdefault(msg_id, counts[f"{kind}:{value}"])
    out: list[bytes] = []
    dropped: set[str] = set()
    for raw in lines:
        try:
            entry = json.loads(raw)
        except ValueError:
            out.append(raw)
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            tokens = by_id.get(str(message.get("id")))
            if tokens is None:
                dropped.add(str(message.get("id")))
                del message["usage"]
            else:
                message["usage"] = _usage(message["usage"], tokens)
            out.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode())
            continue
        out.append(raw)
    return out, len(by_id), len(dropped)


def _usage(old: dict[str, Any], tokens: int) -> dict[str, Any]:
    return {"input_tokens": tokens, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "output_tokens": old.get("output_tokens", 1)}


def read_back_after_cut(path: Path) -> tuple[list[str], str | None]:
    """The files the client put back after the newest compaction in the session at `path`, in
    order, and the first kept entry's uuid (None when none was kept)."""
    files: list[str] = []
    head: str | None = None
    for entry in _entries(path.read_bytes().splitlines()):
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            meta = entry.get("compactMetadata") or {}
            head = (meta.get("preservedSegment") or {}).get("headUuid")
            files = []
        attached = entry.get("attachment") if entry.get("type") == "attachment" else None
        if isinstance(attached, dict) and attached.get("type") in READ_BACK:
            files.append(str(attached.get("filename")))
    return files, head


def send(ui: Tmux, api: FakeApi, text: str, timeout: float = 60.0) -> Request:
    """Types `text` at the client's prompt and presses Enter; the request it makes."""
    asked = len(api.conversation())
    ui.type(text)
    time.sleep(0.3)
    ui.keys("Enter")
    deadline = time.monotonic() + timeout
    while len(api.conversation()) == asked and time.monotonic() < deadline:
        time.sleep(0.1)
    request = api.conversation()[-1]
    assert text in request.joined(), f"the client did not send {text!r}"
    return request


def warm_up(api: FakeApi, tmux_ui: Callable[..., Tmux], session: str) -> Request:
    """One turn of the session in the interactive client (WARM_UP), so that its newest usage
    counts the tools and instructions the cut's requests carry (`-p` sends fewer); its request."""
    ui = resume(tmux_ui, session)
    request = send(ui, api, WARM_UP)
    ui.wait_stable(quiet=1.0)
    ui.close()
    return request


def prepared(
    world: World, api: FakeApi, tmux_ui: Callable[..., Tmux], source: Path, *, files: bool = True
) -> tuple[str, dict[str, int]]:
    """The corpus session `source` placed in the world with its files (unless not `files`: as
    if they were gone since) and recounted usage, after one resumed turn (WARM_UP) through the
    fake; its session id and what was done."""
    lines = [raw for raw in source.read_bytes().splitlines() if raw.strip()]
    project = project_of(lines)
    if project is not None:
        lines = moved(lines, project, str(world.cwd))
    written = write_files(files_shown(lines), world.cwd, last_touched(lines)) if files else 0
    session = place(world, lines)
    path = world.transcript(session)
    placed = len(path.read_bytes().splitlines())
    api.queue(Reply(text="We were in the middle of it."))
    request = warm_up(api, tmux_ui, session)
    done = path.read_bytes().splitlines()
    again, kept, dropped = recounted(done[:placed], fake_counts(request))
    path.write_bytes(b"\n".join([*again, *done[placed:]]) + b"\n")
    return session, {"files": written, "recounted": kept, "dropped": dropped,
                     "warm_up": request.size // 4}
