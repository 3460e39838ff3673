"""Makes a session with the real Claude Code against the test kit's fake Messages API.

Run: `python scripts/make_real_session.py OUT.jsonl [--turns 30] [--compact-at 15]`. Each turn is
one headless `claude -p` (resumed after the first): a prompt, a reply of a hundred words that
reads one of the project's source files (about 6 kB) with the Read tool, its result and a closing
reply of about 150 words, so the file holds what a working turn writes (the conversation, and the
attachments, request records and cost state around it). `/compact` runs before turn
`--compact-at`. Everything happens in a scratch folder with only loopback traffic
(tests/claude/client.py); the transcript is copied to OUT. Needs npm (or the pinned Claude Code
already in ~/.cache/keepd-tests).
"""

from __future__ import annotations

import argparse
import random
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


WORDS = (
    "token grammar parser lexer precedence operator literal identifier scope binding closure "
    "frame stack heap buffer cursor offset column line error message report docs example "
    "release changelog version tag screenshot dialog settings option default value schema "
    "migration index query cache session window layout render widget button label theme"
).split()


# About half of English running text is function words; the prose mixes them in at that rate.
GLUE = "the a of to and in is that it for on with as this we be at by from or but".split()


def _prose(rng: random.Random, words: int) -> str:
    picked = (rng.choice(WORDS if rng.random() < 0.5 else GLUE) for _ in range(words))
    return " ".join(picked) + "."


def _source(rng: random.Random, number: int) -> str:
    """A plausible source file of about 6 kB."""
    lines = [f'"""Module {number}: {_prose(rng, 12)}"""', ""]
    for k in range(40):
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{k}"
        lines += [f"def {name}(value, {rng.choice(WORDS)}=None):", f"    # {_prose(rng, 9)}"]
        lines += [f"    return value + {k}  # {rng.choice(WORDS)}", ""]
    return "\n".join(lines)


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


class Model:
    """The fake model: a summary when asked to compact; for a prompt, a reply that reads one
    source file, then a closing reply."""

    def __init__(self, sources: list[Path], seed: int = 7) -> None:
        self.sources = sources
        self.rng = random.Random(seed)
        self.turn = 0

    def __call__(self, request: Request) -> Reply:
        if COMPACTING in _last_text(request):
            return Reply(text=SUMMARY)
        if not request.is_conversation:
            return Reply(text="Parser work")
        if _answers_a_result(request):
            return Reply(text="Read it. " + _prose(self.rng, 150))
        self.turn += 1
        source = self.sources[self.turn % len(self.sources)]
        read = ToolCall("Read", {"file_path": str(source)})
        return Reply(text="Let me read the module first. " + _prose(self.rng, 100), tools=(read,))


def make(out: Path, turns: int, compact_at: int | None) -> Path:
    """Runs the turns and copies the transcript to `out`."""
    api = FakeApi().start()
    try:
        with tempfile.TemporaryDirectory(prefix="keepd-real-") as scratch:
            world = World(Path(scratch), api.url, install())
            rng = random.Random(3)
            sources = [world.cwd / f"module_{n}.py" for n in range(8)]
            for number, source in enumerate(sources):
                source.write_text(_source(rng, number))
            api.responder = Model(sources)
            session: str | None = None
            for turn in range(turns):
                if turn == compact_at and session is not None:
                    world.print_turn("/compact", resume=session)
                topic = TOPICS[turn * len(TOPICS) // max(turns, 1)]
                prompt = f"Turn {turn + 1}: let us work on {topic}. {_prose(rng, 40)}"
                result = world.print_turn(prompt, resume=session, extra=("--allowedTools", "Read"))
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
