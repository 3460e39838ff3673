"""Checks a cut before and after writing: the kept list is sound, the file rebuilds it exactly."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import orjson

from keepd.api import load_state
from keepd.core.session import SessionState
from keepd.core.tree import Scope
from keepd.cut.boundary import now
from keepd.cut.load import Loaded
from keepd.cut.model import Placement, Written
from keepd.errors import CutNotVerifiedError, UnsafeCutError

PROBE_UUID = "keepd-probe-of-the-next-turn"
# Placements whose context keepd's reader rebuilds as soon as the lines are written: all of
# them, since the reader starts, as the loader does, from the anchor's last descendant when
# nothing has been written under the relinked context yet.
DIRECT = frozenset(Placement)


def check_kept(loaded: Loaded, kept: Sequence[str], *, allow_open_calls: bool = False) -> None:
    """Refuses a kept list that would break the context (the seed's gotchas 1-4)."""
    if len(set(kept)) != len(kept):
        raise UnsafeCutError("the kept list names a message twice")
    on_branch = set(loaded.uuids)
    missing = [uuid for uuid in kept if uuid not in on_branch or uuid not in loaded.raw]
    if missing:
        raise UnsafeCutError(f"{len(missing)} kept uuids are not messages of the context")
    order = {uuid: i for i, uuid in enumerate(loaded.uuids)}
    if [order[uuid] for uuid in kept] != sorted(order[uuid] for uuid in kept):
        raise UnsafeCutError("the kept messages are out of their order in the conversation")
    _check_tools(loaded, kept, allow_open_calls)
    _check_responses(loaded, kept)


def _check_tools(loaded: Loaded, kept: Sequence[str], allow_open_calls: bool) -> None:
    calls: dict[str, int] = {}
    results: dict[str, int] = {}
    for pos, uuid in enumerate(kept):
        calls.update(dict.fromkeys(loaded.raw[uuid].calls, pos))
        results.update(dict.fromkeys(loaded.raw[uuid].results, pos))
    answered = {tool for raw in loaded.raw.values() for tool in raw.results}
    for tool, pos in calls.items():
        if tool in results and results[tool] < pos:
            raise UnsafeCutError(f"the result of tool call {tool} would come before the call")
        if tool not in results and tool in answered:
            raise UnsafeCutError(f"tool call {tool} would be kept without its result")
        if tool not in answered and not allow_open_calls:
            raise UnsafeCutError(
                f"tool call {tool} has no result yet (is the session running? --force keeps it)"
            )
    orphans = [tool for tool in results if tool not in calls]
    if orphans:
        raise UnsafeCutError(f"the result of tool call {orphans[0]} would be kept without it")


def _check_responses(loaded: Loaded, kept: Sequence[str]) -> None:
    """Every line of a kept API response is kept: the loader would pull dropped ones back."""
    members: dict[str, set[str]] = {}
    for node in loaded.branch.messages:
        if node.msg_id is not None and node.uuid is not None:
            members.setdefault(node.msg_id, set()).add(node.uuid)
    chosen = set(kept)
    for uuid in kept:
        msg_id = loaded.raw[uuid].msg_id
        if msg_id is not None and not members.get(msg_id, set()) <= chosen:
            raise UnsafeCutError(f"response {msg_id} would be kept only in part")


def verify(path: Path, written: Written, placement: Placement, session_id: str) -> bool:
    """Re-reads the written file with keepd's reader; True if it rebuilds the context at once.

    The check also feeds, in memory only, a next turn under the context's tail, as Claude Code
    writes it on `--resume`: the context must then be exactly the intended one plus that turn.
    """
    state = load_state(path, Scope.CURRENT, skim=False)  # the probe may reach back anywhere
    direct = _uuids(state) == list(written.intended)
    if placement in DIRECT and not direct:
        raise CutNotVerifiedError(_differs(path, written, _uuids(state)))
    state.feed(probe_line(written.tail, session_id))
    after = _uuids(state)
    if after != [*written.intended, PROBE_UUID]:
        raise CutNotVerifiedError(_differs(path, written, after[:-1]))
    return direct


def probe_line(parent: str, session_id: str) -> bytes:
    """A user turn under `parent`, as Claude Code appends the next prompt (never written)."""
    entry = {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": "(the next turn)"},
        "uuid": PROBE_UUID,
        "timestamp": now(),
        "sessionId": session_id,
    }
    return orjson.dumps(entry) + b"\n"


def _uuids(state: SessionState) -> list[str]:
    return [node.uuid or "" for node in state.branch().messages]


def _differs(path: Path, written: Written, got: list[str]) -> str:
    return (
        f"{path.name} rebuilds {len(got)} messages instead of the {len(written.intended)} "
        "intended; the write was undone"
    )
