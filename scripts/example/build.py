"""Build keepd/data/example.jsonl, a Claude Code session file, from the transcript in session.txt.

session.txt holds what was said and done; this script adds what Claude Code records around it:
uuids chained by parentUuid, message and request ids, timestamps, token usage, file-history
snapshots and turn durations, all derived deterministically, so every run writes the same bytes.

session.txt's grammar (UTF-8; lines before the first directive are comments): a directive is a
line "::: NAME [ARG] [key=value | flag]...". Directives with a body (caveat, prompt, thinking,
text, input, result, reply) own the lines up to the next directive: the last of them must be
empty (it separates records), the others joined by "\\n" are the text verbatim, trailing spaces
and blank lines included; no line of a text may start with "::: ". Other directives own no lines.

    ::: session cwd= branch= model= version= start=ISO-8601 namespace=URL   (first, once)
    ::: turn [pause=SECONDS] [branch=B] [interrupted]   [::: caveat]  ::: prompt
    ::: step            one API response: [::: thinking] [::: text] then its calls
    ::: call TOOL seconds=S [error] [branch=B]   ::: input KEY [json]...  ::: result
    ::: reply           the turn's closing text (none if the user interrupted the turn)

"input KEY json" holds JSON; "error" marks a failed tool result; "branch": the git branch from
that turn or call on; "caveat": the meta message before a prompt that follows local commands.
"""

from __future__ import annotations

import argparse
import base64
import json
import string
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path

DATA = Path(__file__).resolve().with_name("session.txt")
OUT = DATA.parents[2] / "keepd" / "data" / "example.jsonl"
BASE_TOKENS = 17_870  # system prompt, tools and CLAUDE.md before the first prompt
CHARS_PER_TOKEN = 3.6
CACHE_TTL = 300.0  # seconds a prompt cache entry lives
ALPHABET = string.digits + string.ascii_uppercase + string.ascii_lowercase
BODIES = {"caveat", "prompt", "thinking", "text", "input", "result", "reply"}
HEADER = {"cwd", "branch", "model", "version", "start", "namespace"}
Json = dict[str, object]


class DataError(ValueError):
    """session.txt does not follow the grammar; the message names the line."""


@dataclass
class Call:
    name: str
    seconds: float
    error: bool = False
    branch: str | None = None
    input: Json = field(default_factory=dict)
    result: str = ""


@dataclass
class Step:
    thinking: str = ""
    text: str = ""
    calls: list[Call] = field(default_factory=list)


@dataclass
class Turn:
    pause: float = 0.0
    branch: str | None = None
    interrupted: bool = False
    caveat: str = ""
    prompt: str = ""
    steps: list[Step] = field(default_factory=list)
    reply: str = ""


def load(text: str) -> tuple[dict[str, str], list[Turn]]:
    """The session header and turns written in `text`, following the grammar above."""
    lines = text.removesuffix("\n").split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("::: ")] + [len(lines)]
    header: dict[str, str] = {}
    turns: list[Turn] = []
    for start, end in pairwise(starts):
        name, *words = lines[start].split()[1:] or [""]
        arg = words.pop(0) if name in ("call", "input") and words else ""
        options = {key: value for key, _, value in (word.partition("=") for word in words)}
        body = lines[start + 1 : end]
        if (name in BODIES) != bool(body) or (body and body[-1]):
            raise DataError(f"line {start + 1}: bad body for '{name}' (see build.py's grammar)")
        if name == "session" and not header and not turns:
            header = options
            continue
        try:
            add(turns, name, arg, options, "\n".join(body[:-1]))
        except (IndexError, KeyError, ValueError) as error:
            raise DataError(f"line {start + 1}: '{name}' out of place: {error}") from error
    if missing := HEADER - header.keys():
        raise DataError(f"'::: session' lacks {', '.join(sorted(missing))}")
    return header, turns


def add(turns: list[Turn], name: str, arg: str, opts: dict[str, str], body: str) -> None:
    """Attach one directive to the turn, step or call it belongs to."""
    if name == "turn":
        turns.append(Turn(float(opts.get("pause", 0)), opts.get("branch"), "interrupted" in opts))
    elif name in ("caveat", "prompt", "reply"):
        setattr(turns[-1], name, body)
    elif name == "step":
        turns[-1].steps.append(Step())
    elif name in ("thinking", "text"):
        setattr(turns[-1].steps[-1], name, body)
    elif name == "call":
        call = Call(arg, float(opts["seconds"]), "error" in opts, opts.get("branch"))
        turns[-1].steps[-1].calls.append(call)
    elif name == "input":
        turns[-1].steps[-1].calls[-1].input[arg] = json.loads(body) if "json" in opts else body
    elif name == "result":
        turns[-1].steps[-1].calls[-1].result = body
    else:
        raise ValueError(f"unknown directive '{name}'")


def block_chars(block: Json) -> int:
    return len(json.dumps(block, ensure_ascii=False))


class Session:
    """Appends the lines of the transcript while keeping the chain, clock and context size."""

    def __init__(self, header: dict[str, str]) -> None:
        self.header = header
        self.ns = uuid.uuid5(uuid.NAMESPACE_URL, header["namespace"])
        self.branch = header["branch"]
        session_id = str(uuid.uuid5(self.ns, "session"))
        self.fixed = {"isSidechain": False, "userType": "external", "cwd": header["cwd"]}
        self.fixed |= {"sessionId": session_id, "version": header["version"]}
        self.lines: list[str] = []
        self.parent: str | None = None
        self.start = self.clock = datetime.fromisoformat(header["start"])
        self.seq = 0
        self.chars = 0  # characters of everything the model has seen so far
        self.context = 0
        self.cached_at: datetime | None = None
        self.last_reply = ""

    def token(self, kind: str, n: int, length: int) -> str:
        """A stable base62 string for ids like msg_01..., toolu_01... and req_011C..."""
        value = uuid.uuid5(self.ns, f"{kind}-{n}").int
        return "".join(ALPHABET[value // 62**i % 62] for i in range(length))

    def signature(self, n: int) -> str:
        raw = b"".join(uuid.uuid5(self.ns, f"signature-{n}-{i}").bytes for i in range(18))
        return "Eu" + base64.b64encode(raw).decode()

    def new_id(self, kind: str) -> str:
        self.seq += 1
        return str(uuid.uuid5(self.ns, f"{kind}-{self.seq}"))

    def wait(self, seconds: float) -> None:
        jitter = (self.seq * 7919 % 997) / 1000
        self.clock += timedelta(seconds=seconds + jitter)

    def stamp(self) -> str:
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def envelope(self, kind: str) -> Json:
        return {"parentUuid": self.parent, **self.fixed, "gitBranch": self.branch, "type": kind}

    def emit(self, record: Json, seen: bool = True) -> str:
        """Append a line on the chain; `seen`: the line adds to the model's context."""
        line = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
        self.lines.append(line)
        self.chars += len(line) if seen else 0
        self.parent = str(record["uuid"])
        return self.parent

    def user(self, content: object, uid: str | None = None, **extra: object) -> str:
        record = self.envelope("user") | {"message": {"role": "user", "content": content}} | extra
        record |= {"uuid": uid or self.new_id("user"), "timestamp": self.stamp()}
        return self.emit(record)

    def usage(self, blocks: list[Json]) -> Json:
        context = BASE_TOKENS + round(self.chars / CHARS_PER_TOKEN)
        idle = (self.clock - self.cached_at).total_seconds() if self.cached_at else CACHE_TTL + 1
        cached = 0 if idle > CACHE_TTL else self.context
        self.context, self.cached_at = context, self.clock
        return {
            "input_tokens": 3 + self.seq * 5 % 8,
            "cache_creation_input_tokens": context - cached,
            "cache_read_input_tokens": cached,
            "output_tokens": 9 + round(sum(map(block_chars, blocks)) / CHARS_PER_TOKEN),
            "service_tier": "standard",
        }

    def respond(self, blocks: list[Json]) -> list[str]:
        """One API response: a line per content block, all with the same id and usage."""
        self.wait(2.1)
        usage = self.usage(blocks)
        msg_id = "msg_01" + self.token("msg", self.seq, 22)
        request = "req_011C" + self.token("req", self.seq, 20)
        head = {"model": self.header["model"], "id": msg_id, "type": "message", "role": "assistant"}
        tail = {"stop_reason": None, "stop_sequence": None, "usage": usage}
        uids = []
        for block in blocks:
            self.wait(0.3 + block_chars(block) / 190)
            message = {**head, "content": [block], **tail}
            record = self.envelope("assistant") | {"message": message, "requestId": request}
            record |= {"uuid": self.new_id("assistant"), "timestamp": self.stamp()}
            uids.append(self.emit(record))
        return uids

    def step_blocks(self, step: Step) -> list[Json]:
        blocks: list[Json] = []
        if step.thinking:
            blocks.append({"type": "thinking", "thinking": step.thinking})
            blocks[-1]["signature"] = self.signature(self.seq)
        if step.text:
            blocks.append({"type": "text", "text": step.text})
        for i, call in enumerate(step.calls):
            tool_id = "toolu_01" + self.token("toolu", self.seq * 10 + i, 22)
            blocks.append({"type": "tool_use", "id": tool_id, "name": call.name})
            blocks[-1]["input"] = call.input
        return blocks

    def run_step(self, step: Step) -> None:
        blocks = self.step_blocks(step)
        uids = self.respond(blocks)
        first = len(blocks) - len(step.calls)  # the tool_use blocks come last
        for uid, block, call in zip(uids[first:], blocks[first:], step.calls, strict=True):
            self.wait(call.seconds)
            result = {"tool_use_id": block["id"], "type": "tool_result", "content": call.result}
            self.parent = uid
            self.user([{**result, "is_error": call.error}])
            self.branch = call.branch or self.branch

    def snapshot(self, message_id: str) -> None:
        shot = {"messageId": message_id, "trackedFileBackups": {}, "timestamp": self.stamp()}
        record = {"type": "file-history-snapshot", "messageId": message_id, "snapshot": shot}
        self.lines.append(json.dumps({**record, "isSnapshotUpdate": False}, separators=(",", ":")))

    def system(self, started: datetime) -> None:
        duration = round((self.clock - started).total_seconds() * 1000)
        record = self.envelope("system") | {"subtype": "turn_duration", "durationMs": duration}
        self.wait(0.02)
        record |= {"timestamp": self.stamp(), "uuid": self.new_id("system"), "isMeta": False}
        self.emit(record, seen=False)

    def run_turn(self, turn: Turn) -> None:
        self.wait(turn.pause + 35 + 1.0 * len(turn.prompt) + len(self.last_reply) / 16)
        self.branch = turn.branch or self.branch
        if turn.caveat:
            self.user(turn.caveat, isMeta=True)
            self.wait(1.5)
        uid = self.new_id("user")
        if any(call.name in ("Edit", "Write") for s in turn.steps for call in s.calls):
            self.snapshot(uid)
        started = self.clock
        self.user(turn.prompt, uid=uid)
        for step in turn.steps:
            self.run_step(step)
        self.last_reply = "" if turn.interrupted else turn.reply  # read when the next turn starts
        if turn.interrupted:
            self.wait(4.0)
            self.user([{"type": "text", "text": "[Request interrupted by user]"}])
            return
        self.respond([{"type": "text", "text": turn.reply}])
        if (self.clock - started).total_seconds() > 40:
            self.system(started)


def build(text: str) -> Session:
    """The session written in `text` (session.txt's grammar), run turn by turn."""
    header, turns = load(text)
    session = Session(header)
    for turn in turns:
        session.run_turn(turn)
    return session


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="transcript to read")
    parser.add_argument("--out", type=Path, default=OUT, help="session file to write")
    args = parser.parse_args()
    try:
        with args.data.open(encoding="utf-8", newline="") as data:
            session = build(data.read())
    except (OSError, UnicodeDecodeError, DataError) as error:
        raise SystemExit(f"{args.data}: {error}") from None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(("\n".join(session.lines) + "\n").encode())
    end = session.clock - session.start
    print(f"{args.out}: {len(session.lines)} lines, context {session.context} tokens, {end} long")


if __name__ == "__main__":
    main()
