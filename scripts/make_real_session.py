"""Makes a session with the real Claude Code against the test kit's fake Messages API.

Run: `python scripts/make_real_session.py OUT.jsonl [--turns 30] [--compact-at 15]`. Each turn is
one headless `claude -p` (resumed after the first): a prompt, a reply that runs one shell command,
its result and a closing reply, so the file holds everything a working turn writes (attachments,
request records, cost state...). `/compact` runs before turn `--compact-at`. Everything happens
in a scratch folder with only loopback traffic (tests/claude/client.py); the transcript is
copied to OUT. Needs npm (or the pinned Claude Code already in ~/.cache/keepd-tests).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.claude.client import World, install
from tests.claude.fake_api import FakeApi, Reply, Request, ToolCall

TOPICS = (
    "the tokenizer of the expression parser: numbers, identifiers and operators",
    "operator precedence climbing in the parser grammar",
    "error messages with line and column for the lexer",
    "the docs page for the parser, with examples of the grammar",
    "a release checklist: changelog, version bump, tag",
    "the screenshots of the settings dialog for the docs",
)
COMPACTING = "CRITICAL: Respond with TEXT ONLY"
SUMMARY = (
    "<analysis>The user works through a parser.</analysis>\n<summary>1. Primary Request: the "
    "parser's tokenizer and grammar, its errors and its docs. 2. Key concepts: precedence "
    "climbing, tokens, line and column. 3. Pending: the release checklist.</summary>"
)


def _last_text(request: Request) -> str:
    messages = request.body.get("messages") or [{}]
    content = messages[-1].get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def _answers_a_result(request: Request) -> bool:
    messages = request.body.get("messages") or [{}]
    content = messages[-1].get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def respond(request: Request) -> Reply:
    """The fake model: a summary when asked to compact, a command then a closing reply."""
    if COMPACTING in _last_text(request):
        return Reply(text=SUMMARY)
    if not request.is_conversation:
        return Reply(text="Parser work")
    if _answers_a_result(request):
        return Reply(text="The check passed; notes on " + _last_text(request)[:80])
    return Reply(
        text="Let me look at the files first.",
        tools=(ToolCall("Bash", {"command": "echo checked", "description": "Check the tree"}),),
    )


def make(out: Path, turns: int, compact_at: int | None) -> Path:
    """Runs the turns and copies the transcript to `out`."""
    api = FakeApi().start()
    api.responder = respond
    try:
        with tempfile.TemporaryDirectory(prefix="keepd-real-") as scratch:
            world = World(Path(scratch), api.url, install())
            session: str | None = None
            for turn in range(turns):
                if turn == compact_at and session is not None:
                    world.print_turn("/compact", resume=session)
                topic = TOPICS[turn * len(TOPICS) // max(turns, 1)]
                prompt = f"Turn {turn + 1}: let us work on {topic}."
                result = world.print_turn(
                    prompt, resume=session, extra=("--allowedTools", "Bash(echo:*)")
                )
                session = str(result["session_id"])
            assert session is not None
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(world.transcript(session), out)
    finally:
        api.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--compact-at", type=int, default=None, help="default: the middle")
    args = parser.parse_args()
    compact_at = args.turns // 2 if args.compact_at is None else args.compact_at
    started = time.monotonic()
    path = make(args.out, args.turns, compact_at if compact_at > 0 else None)
    size = path.stat().st_size
    print(f"{path}: {args.turns} turns, /compact before turn {compact_at + 1}, {size:,} bytes,")
    print(f"  made in {time.monotonic() - started:.0f} s with Claude Code {install().version}")


if __name__ == "__main__":
    main()
