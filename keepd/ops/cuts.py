"""The cut operations on a session file, as `Operations` offers them: plan, write, undo."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from keepd.cut import backup
from keepd.cut.load import Loaded, load
from keepd.cut.model import CutOutcome, Placement, Plan, UndoOutcome
from keepd.cut.plan import pick_stop, plan_cut, resolve_stop
from keepd.cut.prune import plan_prune
from keepd.cut.safety import refuse_if_busy
from keepd.cut.summary import SummaryRequest
from keepd.cut.undo import undo
from keepd.cut.write import apply
from keepd.errors import UsageError


def loaded_for_cut(
    path: Path, *, force: bool = False, window: int | None = None, dry_run: bool = False
) -> Loaded:
    """The session read for a cut, refused early if it may be in use (unless a dry run)."""
    from keepd.ops.memory import told_setup

    loaded = load(path, setup=told_setup(path, window))
    if dry_run:
        return loaded
    done = backup.records(path)
    own = done[-1].mtime_after_ns if done else None
    ids = {loaded.session_id, loaded.state.tree.session_id or loaded.session_id}
    refuse_if_busy(path, ids, force=force, own_mtime_ns=own)
    return loaded


def cut_plan(
    path: Path,
    *,
    at: str | None = None,
    pick: bool = False,
    placement: str = Placement.FIRST,
    summary: SummaryRequest | None = None,
    force: bool = False,
    window: int | None = None,
    dry_run: bool = False,
) -> Plan:
    """What `keepd cut` would write."""
    shape = Placement(placement)
    if shape is not Placement.EMPTY and (at is None) == (not pick):
        raise UsageError("name the stop with --at STOP or take the pick with --pick (one of them)")
    loaded = loaded_for_cut(path, force=force, window=window, dry_run=dry_run)
    stop = None
    if shape is not Placement.EMPTY:
        stop = pick_stop(loaded.analysis) if pick else resolve_stop(loaded.analysis, at or "")
    return plan_cut(loaded, stop, shape, summary or SummaryRequest(), force=force)


def prune_plan(
    path: Path,
    *,
    keep_last: int = 3,
    working: int = 6,
    notes: bool = False,
    force: bool = False,
    window: int | None = None,
    dry_run: bool = False,
) -> Plan:
    """What `keepd prune` would write."""
    loaded = loaded_for_cut(path, force=force, window=window, dry_run=dry_run)
    return plan_prune(loaded, keep_last=keep_last, working=working, notes=notes, force=force)


def write(plan: Plan, *, force: bool = False) -> CutOutcome:
    """Writes a plan unless it drops nothing, then keeps the dropped messages in the recall
    store (a store that fails leaves a warning on the outcome, not a failed cut)."""
    if plan.dropped == 0:
        return CutOutcome(plan, written=False)
    outcome = apply(plan, force=force)
    if outcome.backup is None:
        return outcome
    from keepd.ops.remember import remember_cut

    kept = remember_cut(plan, outcome.backup)
    return replace(outcome, recalled=kept.messages, recall_warning=kept.warning)


def undo_cut(path: Path, *, force: bool = False) -> UndoOutcome:
    """Undoes the latest cut; its messages leave the recall store (they are in the context
    again), and a store that fails only warns."""
    done = undo(path, force=force)
    if not done.cut_id:
        return done
    from keepd.ops.remember import forget_cut

    gone = forget_cut(done.session_id, done.cut_id)
    return replace(done, recall_forgotten=gone.messages, recall_warning=gone.warning)
