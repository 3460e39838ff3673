"""A scripted model for sessions with real file work: each prompt's "DO READ f", "DO WRITE f",
"DO EDIT f" or "DO RUN `command`" becomes that tool call (Read, Write, Edit, Bash) on the world's
folder, then a short answer; a compaction request gets a summary as long as the corpus's median
one (core/aftercut.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

from keepd.core.aftercut import SUMMARY_CHARS
from tests.claude.client import World
from tests.claude.fake_api import Reply, Request, ToolCall

COMPACTING = "CRITICAL: Respond with TEXT ONLY"
_WORDS = "the parser work and its tokenizer were changed and tested; "
SUMMARY = (
    "<analysis>a</analysis>\n<summary>1. Primary Request: "
    + (_WORDS * (SUMMARY_CHARS // len(_WORDS)))[: SUMMARY_CHARS - 60]
    + "</summary>"
)
_ACTION = re.compile(r"DO (READ|WRITE|EDIT|RUN) (`[^`]+`|\S+)")


def model(world: World, lines: int = 30) -> Callable[[Request], Reply]:
    """The responder: a Write makes `lines` lines of the file's own name (a task's files share
    no words), an Edit changes every one."""

    def reply(request: Request) -> Reply:
        if COMPACTING in request.joined()[-6000:]:
            return Reply(text=SUMMARY)
        # The newest user message: 2.1.332 puts a `system` message after the first prompt.
        users = [m for m in request.body.get("messages") or [] if m.get("role") == "user"]
        content = (users or [{}])[-1].get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if any(block.get("type") == "tool_result" for block in blocks):
            return Reply(text="Done with the tool.")
        said = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        found = _ACTION.findall(said)
        if not found:
            return Reply(text="Answer: the parser step is done. " + "More words. " * 40)
        action, name = found[-1]
        path, stem = str(world.cwd / name), name.split(".")[0]  # the file's own words
        call = {
            "READ": ToolCall("Read", {"file_path": path}),
            "WRITE": ToolCall("Write", {"file_path": path, "content": f"{stem} = 1\n" * lines}),
            "EDIT": ToolCall("Edit", {"file_path": path, "old_string": f"{stem} = 1",
                                      "new_string": f"{stem} = 2", "replace_all": True}),
            "RUN": ToolCall("Bash", {"command": name.strip("`"), "description": "run it"}),
        }[action]
        return Reply(tools=(call,))

    return reply
