"""The `--json` forms of `cut`, `prune` and `undo` (schema in docs/json.md)."""

from __future__ import annotations

from typing import Any

import orjson

from keepd.core.analysis import SCHEMA_VERSION
from keepd.cut.model import CutOutcome, Plan, Turn, UndoOutcome
from keepd.ops.names import resume_command, session_name


def cut_json(plan: Plan, outcome: CutOutcome | None, *, dry_run: bool) -> bytes:
    """A cut or prune: what it keeps and drops, and, when written, where the old file is."""
    path = plan.snapshot.path
    written = outcome is not None and outcome.written
    data: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "kind": plan.kind,
        "session_id": plan.session_id,
        "path": str(path),
        "project": plan.project,
        "dry_run": dry_run,
        "written": written,
        "cut_id": plan.cut_id if plan.dropped else None,
        "stop": _stop(plan),
        "placement": str(plan.placement),
        "kept": len(plan.preserved),
        "dropped": plan.dropped,
        "summary": _summary(plan),
        "tokens": {"before": plan.tokens_before, "after": plan.tokens_after},
        "window": plan.window,
        "share": {"before": plan.share_before, "after": plan.share_after},
        "turns": [_turn(turn) for turn in plan.turns],
        "backup": str(outcome.backup) if outcome and outcome.backup else None,
        "recalled": outcome.recalled if outcome else 0,
        "recall_warning": outcome.recall_warning if outcome else None,
        "undo": f"keepd undo {session_name(path, plan.session_id)}" if written else None,
        "resume": resume_command(path, plan.session_id, plan.project),
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def undo_json(done: UndoOutcome) -> bytes:
    """An undone cut: the file's size again and what left the recall store."""
    data = {
        "schema": SCHEMA_VERSION,
        "session_id": done.session_id,
        "path": str(done.path),
        "size": done.size,
        "removed": done.removed,
        "kept_after": str(done.kept_after) if done.kept_after else None,
        "cut_id": done.cut_id or None,
        "recall_forgotten": done.recall_forgotten,
        "recall_warning": done.recall_warning,
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"


def _stop(plan: Plan) -> dict[str, Any] | None:
    if plan.stop_uuid is None:
        return None
    return {"uuid": plan.stop_uuid, "below": plan.stop_below, "quote": plan.stop_quote}


def _summary(plan: Plan) -> dict[str, Any] | None:
    if plan.summary is None:
        return None
    return {"source": plan.summary_source, "tokens": plan.tokens_summary, "text": plan.summary}


def _turn(turn: Turn) -> dict[str, Any]:
    what = "recent" if turn.recent else ("keep" if turn.keep else "drop")
    return {
        "number": turn.number,
        "what": what,
        "score": turn.score,
        "tokens": turn.tokens,
        "quote": turn.quote,
    }
