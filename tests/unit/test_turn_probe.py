"""The turn-behaviour probe (evaluation/probes/turn_probe.py): each stop's signals from
its own turn's tool calls, on a small session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from evaluation.cases import Case
from evaluation.probes.turn_probe import BOTH, NAMES, columns, searches
from evaluation.score import prepare
from tests.unit.builders import Entry, assistant, jsonl, tool_result, tool_use_block, usage, user


class _Session:
    """A linear session: prompts, and assistant lines each making one tool call."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.calls = 0

    @property
    def last(self) -> str | None:
        return self.entries[-1]["uuid"] if self.entries else None

    def prompt(self, words: str) -> None:
        self.entries.append(user(f"u{len(self.entries)}", self.last, words))

    def call(self, name: str, output: int = 10, **arguments: Any) -> None:
        self.calls += 1
        block = tool_use_block(f"t{self.calls}", name, **arguments)
        uuid = f"a{len(self.entries)}"
        usage_ = usage(10, output=output)
        self.entries.append(
            assistant(uuid, self.last, [block], msg_id=f"m{self.calls}", usage_=usage_)
        )
        self.entries.append(tool_result(f"r{len(self.entries)}", uuid, f"t{self.calls}"))


def _signals(session: _Session, tmp_path: Path) -> dict[str, list[bool]]:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(session.entries))
    named = dict(columns(prepare(Case("s", path, None, "labelled"))))
    assert set(named) == set(NAMES)
    return {name: np.asarray(values, dtype=bool).tolist() for name, values in named.items()}


def test_each_signal_is_read_from_the_stop_s_own_turn(tmp_path: Path) -> None:
    s = _Session()
    s.prompt("fix the parser in the main module please")
    s.call("Edit", file_path="/r/parser.py", old_string="a", new_string="b")
    s.prompt("and the lexer too, same thing")
    s.call("Edit", file_path="/r/parser.py", old_string="b", new_string="c")
    s.call("Edit", file_path="/r/lexer.py", old_string="a", new_string="b")
    s.prompt("now build the export to csv for the reports")
    s.call("TodoWrite", todos=[{"content": "read the reports"}, {"content": "write csv"}])
    s.call("Read", file_path="/r/reports.py")
    s.call("Grep", pattern="export")
    s.call("Bash", command="git log -3")
    s.call("Read", file_path="/r/csv_out.py", output=500)
    s.prompt("thanks")
    found = _signals(s, tmp_path)
    assert found["fresh plan"] == [False, False, True, False]
    assert found["explores"] == [False, False, True, False]
    assert found["reads unseen files"] == [False, False, True, False]
    # 5 tool calls against a median of 1.5 a turn; 540 output tokens against a median of 15.
    assert found["big turn (tool calls)"] == [False, False, True, False]
    assert found["big turn (output)"] == [False, False, True, False]
    # The export's files share none with the parser's turns before it.
    assert found["other files than before"] == [False, False, True, False]
    assert found["plan mode"] == [False] * 4
    for both in BOTH:  # the export's turn plans, explores and turns to other files at once
        assert found[both] == [False, False, True, False]


def test_a_todo_list_of_the_same_items_is_no_fresh_plan(tmp_path: Path) -> None:
    s = _Session()
    s.prompt("plan the migration of the database layer")
    s.call("TodoWrite", todos=[{"content": "schema"}, {"content": "queries"}])
    s.prompt("go on with the queries part of it")
    s.call("TodoWrite", todos=[{"content": "schema"}, {"content": "queries"}, {"content": "x"}])
    s.prompt("plan it properly first, then do it")
    s.call("EnterPlanMode")
    found = _signals(s, tmp_path)
    assert found["fresh plan"] == [True, False, True]
    assert found["plan mode"] == [False, False, True]


def test_looking_is_reading_or_searching() -> None:
    assert searches("Bash", {"command": "cd /r && ls -la"})
    assert searches("Agent", {"prompt": "find the parser"})
    assert not searches("Bash", {"command": "npm test"})
    assert not searches("Write", {"file_path": "/r/a.py"})
