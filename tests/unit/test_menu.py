"""Which rewind menu a stop gets (core/steps.py, SessionState.code_changed): six options when
Claude Code snapshotted the files at the stop and a tracked file was edited after it, else four;
the instruction names the option and its ↓ presses in each (checked on the real client by
tests/claude/test_menu.py)."""

from __future__ import annotations

import json
from typing import Any

from keepd.api import analyse_texts
from keepd.core import steps
from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
from tests.unit.builders import Chain, tool_result, tool_use_block


def _snapshot(uuid: str) -> bytes:
    """A snapshot line as 2.1.332 writes it: type, then messageId."""
    entry = {"type": "file-history-snapshot", "messageId": uuid,
             "snapshot": {"messageId": uuid, "trackedFileBackups": {}}, "isSnapshotUpdate": False}
    return json.dumps(entry, separators=(",", ":")).encode()


class _Chain(Chain):
    """Uuids as long as Claude Code's (a snapshot's head holds one)."""

    def _uuid(self) -> str:
        self._count += 1
        return f"00000000-0000-4000-8000-{self._count:012d}"


def _session(
    edit_in: int | None, tool: str = "Edit", snapshots: bool = True
) -> tuple[bytes, list[str]]:
    """Six prompts, each after its snapshot line; the one numbered `edit_in` makes a `tool`
    call before its answer."""
    chain = _Chain()
    lines: list[bytes] = []
    prompts = []
    for number in range(6):
        prompt = chain.prompt(f"Prompt {number}: the parser work, part {number}")
        prompts.append(prompt)
        if number == edit_in:
            call = f"toolu_edit{number}"
            block = tool_use_block(call, tool, file_path="/w/a.py", old_string="x", new_string="y")
            chain.reply([block], context=20_000 + number * 1000)
            chain.add(tool_result(chain._uuid(), str(chain.last), call, "updated"))
        chain.reply(f"Answer {number}: done with the parser part", context=21_000 + number * 1000)
    for entry in chain.entries:
        if snapshots and entry.get("uuid") in prompts:
            lines.append(_snapshot(entry["uuid"]))
        lines.append(json.dumps(entry, separators=(",", ":")).encode())
    return b"\n".join(lines) + b"\n", prompts


def _menus(data: bytes) -> dict[str, bool]:
    state = SessionState()
    state.feed(data)
    return {stop.uuid: stop.code_changed for stop in analyse_state(state).stops}


def test_stops_before_an_edit_get_the_six_option_menu() -> None:
    data, prompts = _session(edit_in=3)
    menus = _menus(data)
    assert [menus[p] for p in prompts] == [True, True, True, True, False, False]


def test_write_and_notebook_edits_count_a_bash_command_does_not() -> None:
    for tool, changed in (("Write", True), ("NotebookEdit", True), ("MultiEdit", True),
                          ("Bash", False), ("Read", False)):
        data, prompts = _session(edit_in=2, tool=tool)
        assert _menus(data)[prompts[0]] is changed, tool


def test_without_snapshots_no_stop_offers_to_restore_code() -> None:
    data, _ = _session(edit_in=4, snapshots=False)
    assert not any(_menus(data).values())
    assert not any(stop.code_changed for stop in analyse_texts(["a", "b", "c"]).stops)


def test_appended_edits_reach_the_stops_before_them() -> None:
    data, _ = _session(edit_in=5)
    lines = data.splitlines(keepends=True)
    state = SessionState()
    half = len(lines) - 4  # up to the sixth prompt's snapshot and prompt
    state.feed(b"".join(lines[:half]))
    assert not any(stop.code_changed for stop in analyse_state(state).stops)
    state.feed(b"".join(lines[half:]))
    assert all(stop.code_changed for stop in analyse_state(state).stops)


class _Stop:
    def __init__(self, code_changed: bool) -> None:
        self.uuid, self.below, self.quote, self.in_picker = "u1", 2, "fix it", True
        self.code_changed = code_changed


def test_the_instruction_names_the_option_and_its_downs_in_each_menu() -> None:
    six, four = steps.instruction(_Stop(True)), steps.instruction(_Stop(False))
    assert "Enter, then ↓ 4 to “Summarize up to here”, not the first option: it restores code" \
        in six
    assert "Enter, then ↓ 2 to “Summarize up to here”" in four
    for code, shown in ((True, six), (False, four)):
        options = steps.menu(code)
        assert options[steps.downs(code)] == "Summarize up to here"
        data: Any = steps.as_json(_Stop(code))
        assert data["downs"] == steps.downs(code) and data["menu"] == list(options)
        assert data["text"] == shown
    assert steps.keys(2, True) == "Esc Esc ↑3 Enter ↓4"
