"""The harness's preparation of corpus sessions for a cut (tests/claude/corpus_cut.py): paths
moved into the world, files written as the session last showed them, usage recounted in the
fake's unit. Pure: no client runs here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.claude.corpus_cut import (
    _body_bytes,
    fake_counts,
    files_shown,
    moved,
    project_of,
    recounted,
    write_files,
)
from tests.claude.fake_api import Request


def _line(entry: dict[str, Any]) -> bytes:
    return json.dumps(entry).encode()


def _assistant(msg_id: str, blocks: list[dict[str, Any]], tokens: int) -> bytes:
    usage = {"input_tokens": tokens, "cache_read_input_tokens": 5, "output_tokens": 7}
    return _line({"type": "assistant", "cwd": "/old/proj",
                  "message": {"id": msg_id, "role": "assistant", "content": blocks,
                              "usage": usage}})


def _result(call: str, text: str) -> bytes:
    block = {"type": "tool_result", "tool_use_id": call, "content": text}
    return _line({"type": "user", "cwd": "/old/proj", "message": {"content": [block]}})


READ = {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "/old/proj/a.py"}}
EDIT = {"type": "tool_use", "id": "c2", "name": "Edit",
        "input": {"file_path": "/old/proj/a.py", "old_string": "two", "new_string": "TWO"}}
SESSION = [
    _line({"type": "user", "cwd": "/old/proj", "message": {"content": "read a.py"}}),
    _assistant("m1", [READ], 1000),
    _result("c1", "     1→one\n     2→two"),
    _assistant("m2", [EDIT], 2000),
    _result("c2", "The file /old/proj/a.py has been updated."),
    _assistant("m3", [{"type": "text", "text": "done"}], 3000),
]


def test_paths_move_at_a_path_boundary_only() -> None:
    lines = [_line({"a": "/old/proj/a.py", "b": "/old/project", "c": "/old/proj"})]
    assert project_of(SESSION) == "/old/proj"
    assert json.loads(moved(lines, "/old/proj", "/new/w")[0]) == {
        "a": "/new/w/a.py", "b": "/old/project", "c": "/new/w"}


def test_files_are_what_the_reads_and_edits_showed(tmp_path: Path) -> None:
    lines = moved(SESSION, "/old/proj", str(tmp_path))
    files = files_shown(lines)
    assert files == {str(tmp_path / "a.py"): "one\nTWO\n"}
    assert write_files(files | {"/elsewhere/b.py": "x"}, tmp_path) == 1
    assert (tmp_path / "a.py").read_text() == "one\nTWO\n"


def test_usage_is_the_fakes_count_of_the_request_before_each_response() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "read a.py"}]},
        {"role": "assistant", "content": [READ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                      "content": "     1→one\n     2→two"}]},
        {"role": "assistant", "content": [EDIT]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2",
                                      "content": "updated"}]},
        {"role": "user", "content": [{"type": "text", "text": "next"}]},
    ]
    body = {"model": "m", "system": "s" * 400, "tools": [{"name": "Read"}], "messages": messages}
    counts = fake_counts(Request("/v1/messages", body, _body_bytes(body)))
    assert counts == {"tool_use:c1": _body_bytes(body | {"messages": messages[:1]}) // 4,
                      "tool_use:c2": _body_bytes(body | {"messages": messages[:3]}) // 4}
    lines, kept, dropped = recounted(SESSION, counts)
    usages = [json.loads(raw)["message"].get("usage") for raw in lines[1::2]]
    assert usages[0] == {"input_tokens": counts["tool_use:c1"], "cache_creation_input_tokens": 0,
                         "cache_read_input_tokens": 0, "output_tokens": 7}
    assert usages[1]["input_tokens"] == counts["tool_use:c2"]
    assert usages[2] is None  # a response the request does not hold loses its usage
    assert (kept, dropped) == (2, 1)
