"""A real daemon stores what Claude Code's own compaction left out (`recall.compactions`), once,
and leaves keepd's own cuts to the command that made them."""

from __future__ import annotations

import os
import time
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from keepd.api import load_state
from keepd.core.tree import Scope
from keepd.ops.operations import Operations
from keepd.paths import recall_db
from keepd.recall.search import search
from keepd.recall.store import Cut, Store
from tests.integration.daemon_kit import (
    Daemon,
    Tree,
    append,
    example_lines,
    make_tree,
    running,
    wait_until,
)


def compaction(path: Path) -> tuple[bytes, str]:
    """The two lines Claude Code appends when it compacts on its own: the boundary (after the
    last entry) and the summary under it."""
    last = orjson.loads(path.read_bytes().splitlines()[-1])
    boundary, summary = str(uuidlib.uuid4()), str(uuidlib.uuid4())
    common = {"sessionId": last.get("sessionId"), "cwd": last.get("cwd"), "version": "2.1.81"}
    lines = [
        {
            "parentUuid": None,
            "logicalParentUuid": last["uuid"],
            "isSidechain": False,
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "timestamp": "2026-03-17T12:00:00.000Z",
            "uuid": boundary,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": 160_000},
            **common,
        },
        {
            "parentUuid": boundary,
            "isSidechain": False,
            "type": "user",
            "message": {"role": "user", "content": "This session is being continued ..."},
            "isVisibleInTranscriptOnly": True,
            "isCompactSummary": True,
            "uuid": summary,
            "timestamp": "2026-03-17T12:00:01.000Z",
            **common,
        },
    ]
    return b"".join(orjson.dumps(line) + b"\n" for line in lines), boundary


def _context(path: Path) -> list[str]:
    return [node.uuid or "" for node in load_state(path, Scope.CURRENT).branch().messages]


def _cuts() -> list[Cut]:
    if not recall_db().exists():
        return []
    with Store() as store:
        return store.cuts()


@pytest.fixture
def followed(tmp_path: Path) -> Iterator[tuple[Tree, Daemon, Path]]:
    tree = make_tree(tmp_path, notify={"enabled": False})
    path = tree.session()
    path.write_bytes(b"".join(example_lines()))
    then = time.time() - 120  # quiet for two minutes: a cut may be made, the daemon follows it
    os.utime(path, (then, then))
    with running(tree) as daemon:
        daemon.settled(path)
        yield tree, daemon, path


def test_a_compaction_is_stored_once(followed: tuple[Tree, Daemon, Path]) -> None:
    _, daemon, path = followed
    before = _context(path)
    lines, boundary = compaction(path)
    append(path, lines)
    (cut,) = wait_until(_cuts)
    assert (cut.kind, cut.cut_id, cut.boundary_uuid) == ("compaction", boundary[:8], boundary)
    assert (cut.session_id, cut.path, cut.messages) == (path.stem, str(path), len(before))
    with Store() as store:
        stored = [row[0] for row in store.db.execute("SELECT uuid FROM messages ORDER BY position")]
    assert stored == before
    hits = search("csv", session=path.stem, cut=boundary[:8]).hits
    assert hits and {hit.uuid for hit in hits} <= set(before)
    daemon.call("rescan")  # another look at the same file adds nothing
    daemon.settled(path)
    assert len(_cuts()) == 1


def test_keepd_s_own_cut_is_not_stored_twice(followed: tuple[Tree, Daemon, Path]) -> None:
    _, daemon, path = followed
    operations = Operations()
    outcome = operations.write_cut(operations.plan_cut(str(path), pick=True, placement="none"))
    assert outcome.written and outcome.recalled == outcome.plan.dropped
    kept = _context(path)
    assert kept == list(outcome.plan.preserved)
    daemon.settled(path)
    lines, boundary = compaction(path)  # then Claude Code compacts the cut context
    append(path, lines)
    wait_until(lambda: len(_cuts()) == 2)
    kinds = {cut.cut_id: cut.kind for cut in _cuts()}
    assert kinds == {outcome.plan.cut_id: "cut", boundary[:8]: "compaction"}
    (compacted,) = [cut for cut in _cuts() if cut.kind == "compaction"]
    assert compacted.messages == len(kept)  # what the cut kept, Claude Code then compacted


def test_compactions_are_left_alone_when_configured_so(tmp_path: Path) -> None:
    tree = make_tree(tmp_path, notify={"enabled": False}, recall={"compactions": False})
    path = tree.session()
    path.write_bytes(b"".join(example_lines()[:-5]))
    with running(tree) as daemon:
        daemon.settled(path)
        lines, _ = compaction(path)
        append(path, lines + b"".join(example_lines()[-5:]))
        entry: dict[str, Any] = daemon.settled(path)
        assert entry["offset"] == path.stat().st_size
        time.sleep(0.5)
    assert _cuts() == []
