"""Writing a cut and undoing it: one checked append, the backup, roll-back, truncation."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from keepd.cut import backup
from keepd.cut.load import load
from keepd.cut.model import Placement, Plan
from keepd.cut.plan import plan_cut, resolve_stop
from keepd.cut.summary import SummaryRequest
from keepd.cut.undo import undo
from keepd.cut.write import apply
from keepd.errors import (
    CutNotVerifiedError,
    NothingToUndoError,
    SessionBusyError,
    SessionChangedError,
    UndoRefusedError,
    WriteFailedError,
)
from tests.cut_kit import age, context, continued, unpaired
from tests.unit.cut_sessions import conversation, write_session


def _plan(path: Path, placement: Placement = Placement.FIRST) -> Plan:
    loaded = load(path)
    stop = None if placement is Placement.EMPTY else resolve_stop(loaded.analysis, "u005")
    return plan_cut(loaded, stop, placement, SummaryRequest(text="parser planned", origin="test"))


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return write_session(tmp_path, conversation())


@pytest.mark.parametrize("placement", list(Placement))
def test_each_placement_rebuilds_exactly_and_undoes_byte_for_byte(
    session: Path, placement: Placement
) -> None:
    before, mtime = session.read_bytes(), session.stat().st_mtime_ns
    plan = _plan(session, placement)
    outcome = apply(plan)
    written = plan.written
    assert session.read_bytes() == before + written.payload
    assert continued(session, written.tail) == list(written.intended)
    assert outcome.rebuilt_directly
    if outcome.rebuilt_directly:
        assert context(session) == list(written.intended)
    kept = [u for u in written.intended if u != written.summary_uuid]
    assert not unpaired(session, kept)
    assert outcome.backup is not None and outcome.backup.read_bytes() == before
    done = undo(session)
    assert session.read_bytes() == before and session.stat().st_mtime_ns == mtime
    assert done.removed == len(written.payload) and not outcome.backup.exists()


def test_a_file_without_a_last_newline_gets_one_first(session: Path) -> None:
    session.write_bytes(session.read_bytes().rstrip(b"\n"))
    age(session)
    before = session.read_bytes()
    plan = _plan(session, Placement.NONE)
    apply(plan)
    assert session.read_bytes() == before + b"\n" + plan.written.payload
    undo(session)
    assert session.read_bytes() == before


def test_a_file_changed_after_the_analysis_is_refused(session: Path) -> None:
    plan = _plan(session)
    with session.open("ab") as handle:
        handle.write(b'{"type":"progress"}\n')
    changed = session.read_bytes()
    with pytest.raises(SessionChangedError):
        apply(plan, force=True)
    assert session.read_bytes() == changed and not backup.records(session)


def test_a_failed_check_rolls_the_append_back(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, mtime = session.read_bytes(), session.stat().st_mtime_ns

    def refuse(*_: object) -> bool:
        raise CutNotVerifiedError("rebuilds something else")

    monkeypatch.setattr("keepd.cut.write.verify", refuse)
    with pytest.raises(CutNotVerifiedError):
        apply(_plan(session))
    assert session.read_bytes() == before and session.stat().st_mtime_ns == mtime
    assert not backup.records(session)


def test_a_partial_append_is_taken_back(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = session.read_bytes()
    real_write = os.write

    def half(fd: int, data: bytes) -> int:
        """Writes half of the boundary's append (only), as a full disk might."""
        if bytes(data[:300]).startswith(b'{"type":"system"'):
            return real_write(fd, data[: len(data) // 2])
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", half)
    with pytest.raises(WriteFailedError, match="only"):
        apply(_plan(session))
    assert session.read_bytes() == before and not backup.records(session)


def test_a_write_by_someone_else_during_the_cut_is_left_alone(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = b'{"type":"user","uuid":"theirs"}\n'

    def intrude(path: Path, *_: object) -> bool:
        with path.open("ab") as handle:
            handle.write(theirs)
        raise CutNotVerifiedError("rebuilds something else")

    monkeypatch.setattr("keepd.cut.write.verify", intrude)
    plan = _plan(session)
    before = session.read_bytes()
    with pytest.raises(WriteFailedError, match="left as it is"):
        apply(plan)
    assert session.read_bytes() == before + plan.written.payload + theirs
    (record,) = backup.records(session)
    assert record.backup(backup.record_dir(session)).read_bytes() == before


def test_cuts_stack_and_undo_one_at_a_time(session: Path) -> None:
    first = session.read_bytes()
    apply(_plan(session, Placement.NONE))
    second = session.read_bytes()
    apply(_plan(session, Placement.EMPTY))  # keepd's own write a moment ago is no sign of use
    assert len(backup.records(session)) == 2
    undo(session)
    assert session.read_bytes() == second
    undo(session)
    assert session.read_bytes() == first
    with pytest.raises(NothingToUndoError):
        undo(session)


def test_undo_refuses_to_drop_turns_written_after_the_cut(session: Path) -> None:
    before = session.read_bytes()
    plan = _plan(session, Placement.NONE)
    apply(plan)
    turn = b'{"type":"user","uuid":"next","parentUuid":"u012"}\n'
    with session.open("ab") as handle:
        handle.write(turn)
    with pytest.raises(SessionBusyError):  # just written, by someone else
        undo(session)
    age(session)
    with pytest.raises(UndoRefusedError, match="went on after"):
        undo(session)
    done = undo(session, force=True)
    assert session.read_bytes() == before
    assert done.kept_after is not None
    assert done.kept_after.read_bytes() == plan.written.payload + turn


def test_undo_refuses_a_rewritten_file(session: Path) -> None:
    apply(_plan(session, Placement.NONE))
    data = bytearray(session.read_bytes())
    data[5:9] = b"XXXX"
    session.write_bytes(bytes(data))
    age(session)
    with pytest.raises(UndoRefusedError, match="no longer match the backup"):
        undo(session, force=True)
    assert session.read_bytes() == bytes(data)


def test_undo_refuses_a_damaged_backup(session: Path) -> None:
    outcome = apply(_plan(session, Placement.NONE))
    after = session.read_bytes()
    assert outcome.backup is not None
    outcome.backup.write_bytes(b"garbage")
    with pytest.raises(UndoRefusedError, match="damaged"):
        undo(session)
    assert session.read_bytes() == after


def test_backups_are_private(session: Path) -> None:
    outcome = apply(_plan(session))
    assert outcome.backup is not None
    assert outcome.backup.stat().st_mode & 0o777 == 0o600
    assert outcome.backup.parent.stat().st_mode & 0o777 == 0o700
