"""Cuts and prunes on copies of real transcripts: the context rebuilt, undo, and every refusal."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from keepd.api import load_state
from keepd.cli.main import main
from keepd.core.tree import Scope
from keepd.cut.model import CutOutcome, Placement
from keepd.errors import SessionBusyError, SessionChangedError, UnsafeCutError, UsageError
from keepd.ops.operations import Operations
from keepd.paths import example_session, project_slug
from tests.cut_kit import (
    age,
    context,
    continued,
    entries,
    holding_open,
    live_process,
    quiet_copy,
    register,
    unpaired,
)

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
PLACEMENTS = [p.value for p in Placement]
HOW = [*PLACEMENTS, "prune"]


@pytest.fixture
def root(private_home: Path) -> Path:
    return private_home / ".claude"


@pytest.fixture
def example(root: Path) -> Path:
    target = root / "projects" / project_slug("/home/dev/invoicer") / f"{EXAMPLE_ID}.jsonl"
    return quiet_copy(example_session(), target)


def _branch(path: Path) -> list[str]:
    return [n.uuid or "" for n in load_state(path, Scope.CURRENT).branch().messages]


def _stop(operations: Operations, path: Path) -> str | None:
    """The pick, else the middle of the trade, else the middle stop."""
    analysis = operations.report(str(path)).analysis
    if analysis.target:
        return analysis.target
    return analysis.stops[len(analysis.stops) // 2].uuid if analysis.stops else None


def _cut(operations: Operations, path: Path, how: str, stop: str | None) -> CutOutcome:
    if how == "prune":
        plan = operations.plan_prune(str(path), keep_last=2, working=2, notes=True)
    else:
        plan = operations.plan_cut(str(path), at=stop, placement=how)
    return operations.write_cut(plan)


def _expected(
    before: list[str], how: str, stop: str | None, added: list[dict[str, Any]]
) -> list[str]:
    """The context the seed's rules give, worked out from the branch before the cut."""
    summary = [e["uuid"] for e in added if e.get("type") == "user"]
    kept = added[0]["compactMetadata"]["preservedMessages"]["uuids"]
    if how == "prune":
        return [*summary, *kept]
    start = before.index(stop) if stop else len(before)
    assert how == "empty" or kept == before[start:]
    return {
        "first": [*summary, *before[start:]],
        "last": [*before[start:], *summary],
        "none": before[start:],
        "empty": [],
    }[how]


def check_cut(
    operations: Operations, path: Path, how: str, at: str | None = None,
    before: list[str] | None = None,
) -> CutOutcome:
    """Cuts `path` one way and checks everything the issue asks of it, then undoes it. `before`
    is the file's branch if the caller read it already (the file is byte for byte as then: every
    cut here is undone and checked to be)."""
    data, mtime = path.read_bytes(), path.stat().st_mtime_ns
    before = _branch(path) if before is None else before
    stop = None if how in ("empty", "prune") else at or _stop(operations, path)
    outcome = _cut(operations, path, how, stop)
    plan = outcome.plan
    if not outcome.written:  # a prune that drops nothing writes nothing
        assert how == "prune" and plan.dropped == 0 and path.read_bytes() == data
        return outcome
    assert path.read_bytes()[: len(data)] == data
    added = entries(path.read_bytes()[len(data) :])
    assert added[0]["type"] == "system" and added[0]["subtype"] == "compact_boundary"
    expected = _expected(before, how, plan.stop_uuid, added)
    tail = expected[-1] if expected else added[0]["uuid"]  # the next turn hangs under it
    assert continued(path, tail) == expected
    if plan.placement in (Placement.LAST, Placement.NONE):
        assert context(path) == expected
    if how == "prune":
        recent = {u for t in plan.turns if t.recent for u in before[t.first : t.last + 1]}
        assert recent <= set(expected)
    assert not unpaired(path, [u for u in expected if u != plan.written.summary_uuid])
    operations.undo_cut(str(path))
    assert path.read_bytes() == data and path.stat().st_mtime_ns == mtime
    return outcome


@pytest.mark.parametrize("how", HOW)
def test_example_each_way(example: Path, how: str) -> None:
    outcome = check_cut(Operations(), example, how)
    assert outcome.plan.dropped > 0


# The corpus sessions a cut is refused on, and why: each was captured with a tool call still
# running (its result not yet written). The Nishanth session's last line is such a call; before
# that line was written, every way cuts it (below), though it holds results written before
# their calls. (Beep206 8e was refused too, "without its result", while a result written after
# a prompt typed during its tool's run stood after that prompt; the loader puts it right after
# its call, and so does keepd now.) FSM1's dc session was saved while a Task call's sub-agent
# was still at work: 150 of its sub-agent's progress lines follow the call and close the file;
# erykpiast's fb session's last line is a `git commit` Bash call.
REFUSED = {
    "FSM1__cipher-box__dc_70748a91b5_0_full.jsonl": "no result yet",
    "erykpiast__fasola__fb_f3a6bb2a38_0_full.jsonl": "no result yet",
    "Beep206__CyberVPN__9c_010c599120_0_full.jsonl": "no result yet",
    "Nishanth-sebastin__eagerminds-bookmarks__fe_621fef064f_0_full.jsonl": "no result yet",
    "entireio__cli__0f_c364a22bea_0_full.jsonl": "no result yet",
    "jimmc414__cctrace__raw_messages.jsonl": "no result yet",
}
LATE_RESULTS = "Nishanth-sebastin__eagerminds-bookmarks__fe_621fef064f_0_full.jsonl"


def test_corpus_each_way(corpus_sessions: list[Path], tmp_path: Path) -> None:
    """Every corpus session, every way; the only refusals are the expected ones."""
    operations, done, refused = Operations(), Counter[str](), Counter[str]()
    for source in corpus_sessions:
        path = quiet_copy(source, tmp_path / source.name)
        stop = _stop(operations, path)
        before = _branch(path)  # once for the five ways: each leaves the file as it found it
        for how in HOW:
            try:
                outcome = check_cut(operations, path, how, stop, before)
            except UsageError as error:  # sub-agent files; sessions without a stop
                refused["sub-agent" if "sub-agent" in str(error) else "no stop"] += 1
            except UnsafeCutError as error:
                assert REFUSED.get(source.name, "not expected") in str(error), source.name
                refused[source.name] += 1
            else:
                done[how if outcome.written else "nothing to prune"] += 1
    assert all(done[how] >= 20 for how in PLACEMENTS), done
    assert done["prune"] >= 10, (done, refused)
    present = {path.name for path in corpus_sessions}
    assert all(refused[name] >= 1 for name in REFUSED if name in present), refused


@pytest.mark.parametrize("how", HOW)
def test_results_written_before_their_calls_are_kept_after_them(
    shared: Path, tmp_path: Path, how: str
) -> None:
    """Claude Code 2.1.168 wrote two results' lines before their calls' (linked to them); the
    context follows the links, as the loader does, so the cut keeps each call first."""
    lines = (shared / "corpus" / "sessions" / LATE_RESULTS).read_bytes().splitlines(True)
    path = tmp_path / LATE_RESULTS
    path.write_bytes(b"".join(lines[:-1]))  # as it was before its last call started
    age(path)
    operations = Operations()
    stop = operations.report(str(path)).analysis.target
    outcome = check_cut(operations, path, how, stop)
    assert outcome.written and outcome.plan.dropped > 0


def test_boundary_matches_a_real_one(shared: Path, tmp_path: Path) -> None:
    source = (
        shared / "corpus" / "sessions" / "ShamsiievDmytro__entire-bmad__91_03598e5336_9_full.jsonl"
    )
    real = next(line for line in source.read_bytes().splitlines() if b'"compact_boundary"' in line)
    path = quiet_copy(source, tmp_path / "s.jsonl")
    data = path.read_bytes()
    operations = Operations()
    operations.write_cut(operations.plan_cut(str(path), placement="none", at="below~0"))
    ours = path.read_bytes()[len(data) :].splitlines()[0]
    real_keys, our_keys = list(orjson.loads(real)), list(orjson.loads(ours))
    assert our_keys == ["type", *(k for k in real_keys if k != "type")]
    assert orjson.dumps(orjson.loads(real)) == real and orjson.dumps(orjson.loads(ours)) == ours
    assert ours.startswith(b'{"type":"system","parentUuid":null,"logicalParentUuid":"')
    assert b'"compact_boundary"' in ours[:256]
    assert set(orjson.loads(real)["compactMetadata"]) - {"preCompactDiscoveredTools"} <= set(
        orjson.loads(ours)["compactMetadata"]
    )


def test_a_session_held_open_is_refused(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc: open files cannot be seen")
    data, operations = example.read_bytes(), Operations()
    plan = operations.plan_cut(EXAMPLE_ID, pick=True, placement="none")
    with holding_open(example) as holder:
        assert main(["cut", EXAMPLE_ID, "--pick", "--no-summary"]) == 8
        assert f"process {holder.pid} holds" in capsys.readouterr().err
        with pytest.raises(SessionBusyError):
            operations.write_cut(plan)  # checked again at the write, not only when planning
        assert example.read_bytes() == data
        assert main(["cut", EXAMPLE_ID, "--pick", "--no-summary", "--force"]) == 0
        assert main(["undo", EXAMPLE_ID]) == 8
        assert main(["undo", EXAMPLE_ID, "--force"]) == 0
    assert example.read_bytes() == data


def test_a_registered_running_session_is_refused(
    example: Path, root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = example.read_bytes()
    with live_process() as pid:
        entry = register(root, pid, EXAMPLE_ID)
        assert main(["cut", EXAMPLE_ID, "--pick", "--summary-last", "--summarize"]) == 8
        assert f"Claude Code runs this session (pid {pid})" in capsys.readouterr().err
        assert main(["prune", EXAMPLE_ID]) == 8
    assert example.read_bytes() == data
    assert main(["prune", EXAMPLE_ID, "--keep-last", "2", "--working", "1"]) == 0  # pid gone
    entry.unlink()
    assert main(["undo", EXAMPLE_ID]) == 0 and example.read_bytes() == data


def test_a_real_transcript_in_use_or_changed_is_refused(
    shared: Path, root: Path, tmp_path: Path
) -> None:
    """The refusals again, on a copy of a corpus session rather than the generated example."""
    source = shared / "corpus" / "sessions" / "entireio__cli__72_0c20f08988_0_full.jsonl"
    path = quiet_copy(source, tmp_path / "real.jsonl")
    data, operations = path.read_bytes(), Operations()
    session_id = operations.report(str(path)).analysis.session_id
    assert session_id is not None
    plan = operations.plan_cut(str(path), pick=True, placement="last")
    if Path("/proc/self/fd").is_dir():
        with holding_open(path), pytest.raises(SessionBusyError, match="holds"):
            operations.write_cut(plan)
    with live_process() as pid:
        entry = register(root, pid, session_id)
        with pytest.raises(SessionBusyError, match=f"pid {pid}"):
            operations.write_cut(plan)
    entry.unlink()
    assert path.read_bytes() == data
    line = b'{"type":"queue-operation","operation":"enqueue"}\n'
    with path.open("ab") as handle:
        handle.write(line)
    age(path)
    with pytest.raises(SessionChangedError):
        operations.write_cut(plan)
    assert path.read_bytes() == data + line


def test_a_session_written_a_moment_ago_is_refused(example: Path) -> None:
    example.touch()
    assert main(["cut", EXAMPLE_ID, "--pick", "--no-summary"]) == 8
    assert main(["cut", EXAMPLE_ID, "--pick", "--no-summary", "--dry-run"]) == 0


@pytest.mark.parametrize("change", ["append", "same size", "touch"])
def test_a_file_changed_between_analysis_and_write_is_refused(example: Path, change: str) -> None:
    operations = Operations()
    plan = operations.plan_cut(EXAMPLE_ID, pick=True, placement="none")
    if change == "append":
        with example.open("ab") as handle:
            handle.write(b'{"type":"last-prompt","lastPrompt":"x"}\n')
    elif change == "same size":
        data = bytearray(example.read_bytes())
        data[-3] = ord("x") if data[-3] != ord("x") else ord("y")
        example.write_bytes(bytes(data))
    age(example, 1800)  # changed, but not lately: only the comparison can tell
    changed = example.read_bytes()
    with pytest.raises(SessionChangedError):
        operations.write_cut(plan, force=True)
    assert example.read_bytes() == changed
    assert main(["undo", EXAMPLE_ID]) == 13


def test_cli_says_how_to_continue_and_what_the_context_holds(
    example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("The CSV import is done; the PDF export is the work now.\n")
    assert main(["cut", EXAMPLE_ID, "--pick", "--summary-file", str(summary)]) == 0
    out = capsys.readouterr().out
    assert f"keepd cut: {EXAMPLE_ID} at ↑20 “ok the fix PR" in out  # the report's pick, ↑20
    assert "(summary first: file summary.md," in out
    assert "the new context: " in out and "% of 200k (now 128k, 64%)" in out
    assert f"continue: cd /home/dev/invoicer && claude --resume {EXAMPLE_ID}" in out
    assert f"undo: keepd undo {EXAMPLE_ID}" in out
    assert main(["undo", EXAMPLE_ID]) == 0
    assert "back to its 412,289 bytes" in capsys.readouterr().out


def test_cli_errors_have_their_own_exit_codes(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cut", EXAMPLE_ID, "--at", "no-such-stop", "--no-summary"]) == 12
    assert main(["cut", EXAMPLE_ID, "--no-summary"]) == 2  # neither --at nor --pick
    assert main(["undo", EXAMPLE_ID]) == 13
    capsys.readouterr()
    assert main(["cut", str(example_session()), "--pick", "--no-summary"]) == 2
    assert "copy it" in capsys.readouterr().err


def test_dry_runs_show_and_write_nothing(
    example: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data, mtime = example.read_bytes(), example.stat().st_mtime_ns
    monkeypatch.setenv("PATH", "")  # no claude: the gist is shown
    assert main(["cut", EXAMPLE_ID, "--at", "below~3", "--summarize", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "the summary (" in out and "keepd's extractive gist" in out
    assert out.rstrip().splitlines()[-1].startswith("  dry run: nothing written")
    assert main(["prune", EXAMPLE_ID, "--dry-run", "--notes"]) == 0
    out = capsys.readouterr().out
    assert "turn  what     score  tokens  prompt" in out and " recent " in out
    assert example.read_bytes() == data and example.stat().st_mtime_ns == mtime


def test_reading_commands_never_write_the_session(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, mtime = example.read_bytes(), example.stat().st_mtime_ns
    for argv in (
        ["report", EXAMPLE_ID],
        ["report", EXAMPLE_ID, "--json", "--whole"],
        ["note", EXAMPLE_ID],
        ["sessions", "--all"],
        ["show", EXAMPLE_ID, "--detail"],
        ["cut", EXAMPLE_ID, "--at", "below~0", "--no-summary", "--dry-run"],
    ):
        assert main(argv) == 0, argv
    capsys.readouterr()
    assert example.read_bytes() == data and example.stat().st_mtime_ns == mtime
    assert [p.name for p in example.parent.iterdir()] == [example.name]
