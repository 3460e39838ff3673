"""A scripted model for sessions with real file work: each prompt's "DO READ f", "DO WRITE f" or
"DO EDIT f" becomes that tool call on the world's folder, then a short answer; a compaction
request gets a summary as long as the corpus's median one (core/aftercut.py)."""

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
_ACTION = re.compile(r"DO (READ|WRITE|EDIT) (\S+)")


def model(world: World, lines: int = 30) -> Callable[[Request], Reply]:
    """The responder: a Write makes `lines` lines, an Edit changes every one."""

    def reply(request: Request) -> Reply:
        if COMPACTING in request.joined()[-6000:]:
            return Reply(text=SUMMARY)
        messages = request.body.get("messages") or [{}]
        content = messages[-1].get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if any(block.get("type") == "tool_result" for block in blocks):
            return Reply(text="Done with the tool.")
        said = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        found = _ACTION.findall(said)
        if not found:
            return Reply(text="Answer: the parser step is done. " + "More words. " * 40)
        action, name = found[-1]
        path = str(world.cwd / name)
        call = {
            "READ": ToolCall("Read", {"file_path": path}),
            "WRITE": ToolCall("Write", {"file_path": path, "content": "code line\n" * lines}),
            "EDIT": ToolCall("Edit", {"file_path": path, "old_string": "code line",
                                      "new_string": "edited line", "replace_all": True}),
        }[action]
        return Reply(tools=(call,))

    return reply
