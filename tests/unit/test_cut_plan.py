"""Choosing a cut: the stop named, the kept list and its checks, tokens, the empty context."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from keepd.cut.load import Loaded, load
from keepd.cut.model import Placement
from keepd.cut.plan import pick_stop, plan_cut, resolve_stop
from keepd.cut.summary import SummaryRequest
from keepd.cut.validate import check_kept
from keepd.errors import NoSuchStopError, UnsafeCutError, UsageError
from tests.unit.builders import progress, tool_use_block
from tests.unit.cut_sessions import conversation, write_session


@pytest.fixture
def loaded(tmp_path: Path) -> Loaded:
    return load(write_session(tmp_path, conversation()))


def test_stop_by_presses_uuid_prefix_or_below(loaded: Loaded) -> None:
    analysis = loaded.analysis
    assert resolve_stop(analysis, "u005").index == 4
    assert resolve_stop(analysis, "u01").uuid == "u011"
    assert resolve_stop(analysis, "below~0").uuid == "u011"
    assert resolve_stop(analysis, "~3").uuid == "u003"
    # the report's one number: ↑N, the presses from "(current)", is below~N-1
    for spec in ("↑1", "^1", "1", "↑ 1"):
        assert resolve_stop(analysis, spec).uuid == "u011", spec
    assert resolve_stop(analysis, "↑4").uuid == "u003"


@pytest.mark.parametrize("spec", ["u00", "nope", "below~9", "", "u002", "↑0", "↑99", "0"])
def test_stops_that_are_not_one_are_refused(loaded: Loaded, spec: str) -> None:
    with pytest.raises(NoSuchStopError):
        resolve_stop(loaded.analysis, spec)


def test_no_pick_takes_the_suggested_stop_as_the_report_does(loaded: Loaded) -> None:
    traded = replace(loaded.analysis, pick=None, trade=["u003", "u005", "u007"])
    assert pick_stop(traded).uuid == "u005" == traded.target
    with pytest.raises(NoSuchStopError, match="suggests no stop"):
        pick_stop(replace(traded, trade=[]))


def test_cut_keeps_everything_from_the_stop(loaded: Loaded) -> None:
    stop = resolve_stop(loaded.analysis, "u005")
    plan = plan_cut(loaded, stop, Placement.NONE, SummaryRequest())
    assert list(plan.preserved) == loaded.uuids[4:]
    assert plan.dropped == 4 and plan.summary is None
    assert plan.written.intended == plan.preserved
    assert 0 < plan.tokens_after < plan.tokens_before


def test_summary_first_carries_the_given_text(loaded: Loaded) -> None:
    stop = resolve_stop(loaded.analysis, "u005")
    plan = plan_cut(loaded, stop, Placement.FIRST, SummaryRequest(text=" parser done ", origin="x"))
    assert plan.summary is not None and plan.summary.endswith("Summary:\nparser done")
    assert plan.summary.startswith("This session is being continued from a previous conversation")
    assert plan.written.intended[0] == plan.written.summary_uuid
    assert plan.tokens_summary == pytest.approx(len(plan.summary) / 4)


def test_empty_keeps_nothing_and_needs_no_stop(loaded: Loaded) -> None:
    plan = plan_cut(loaded, None, Placement.EMPTY, SummaryRequest())
    assert plan.preserved == () and plan.dropped == len(loaded.uuids)
    assert plan.written.intended == ()


def test_a_cut_that_frees_nothing_is_refused(loaded: Loaded) -> None:
    with pytest.raises(UsageError, match="nothing comes before"):
        plan_cut(loaded, resolve_stop(loaded.analysis, "u001"), Placement.NONE, SummaryRequest())


def test_kept_list_checks(loaded: Loaded) -> None:
    uuids = loaded.uuids
    check_kept(loaded, uuids[4:])
    for bad, reason in [
        ([*uuids[4:], uuids[4]], "twice"),
        (["nope", *uuids[4:]], "not messages"),
        (list(reversed(uuids[10:])), "out of their order"),
        (uuids[12:], "without it"),  # a tool result whose call is dropped
        (uuids[10:12], "without its result"),
        ([*uuids[4:6], uuids[7]], "only in part"),  # half of a parallel response
    ]:
        with pytest.raises(UnsafeCutError, match=reason):
            check_kept(loaded, bad)


def test_a_call_without_any_result_yet_needs_force(tmp_path: Path) -> None:
    loaded = load(write_session(tmp_path, conversation(open_call=True)))
    stop = resolve_stop(loaded.analysis, "u011")
    with pytest.raises(UnsafeCutError, match="no result yet"):
        plan_cut(loaded, stop, Placement.NONE, SummaryRequest())
    plan = plan_cut(loaded, stop, Placement.NONE, SummaryRequest(), force=True)
    assert plan.preserved[-1] == loaded.uuids[-1]


def test_a_sub_agent_still_working_when_the_file_was_saved_needs_force(tmp_path: Path) -> None:
    """A Task call whose sub-agent's progress lines close the file: it is still running (as in
    the corpus's FSM1 cipher-box dc session), so a cut without its result is refused."""
    chain = conversation()
    chain.prompt("research how the share transfer works")
    chain.reply([tool_use_block("t-task", "Task", description="Research", prompt="look")])
    for step in range(3):
        entry = progress(f"p{step}", chain.last)
        entry["data"] = {"type": "agent_progress", "message": {"type": "assistant"}}
        entry["toolUseID"] = "t-task"
        chain.add(entry)
    loaded = load(write_session(tmp_path, chain))
    stop = resolve_stop(loaded.analysis, "u011")
    with pytest.raises(UnsafeCutError, match="tool call t-task has no result yet"):
        plan_cut(loaded, stop, Placement.NONE, SummaryRequest())
    assert plan_cut(loaded, stop, Placement.NONE, SummaryRequest(), force=True).dropped > 0


def test_the_bundled_example_is_never_cut() -> None:
    from keepd.paths import example_session

    with pytest.raises(UsageError, match="copy it"):
        load(example_session())


def test_a_sub_agent_file_is_not_a_session(tmp_path: Path) -> None:
    folder = tmp_path / "sess" / "subagents"
    folder.mkdir(parents=True)
    with pytest.raises(UsageError, match="sub-agent"):
        load(write_session(folder, conversation(), "agent-1.jsonl"))
