"""The recall store filled by real cuts and prunes of a copy of the example session: recall finds
what only the dropped part said, `--uuid` prints it whole, undo takes it out, a broken store
never fails a cut, and bad queries are one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from keepd.cli.main import main
from keepd.cut.model import Placement
from keepd.cut.summary import RECALL_LINE
from keepd.ops.operations import Operations
from keepd.paths import example_session, project_slug, recall_db, recall_dir
from keepd.recall.store import Store
from keepd.recall.text import render
from tests.cut_kit import by_uuid, entries, quiet_copy

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
DETAIL = "quantize"  # the rounding helper's call: read early, never mentioned after the pick


@pytest.fixture
def example(private_home: Path) -> Path:
    folder = private_home / ".claude" / "projects" / project_slug("/home/dev/invoicer")
    return quiet_copy(example_session(), folder / f"{EXAMPLE_ID}.jsonl")


def _new_context_text(path: Path) -> str:
    """Everything the model sees after the cut: the summary and the kept messages."""
    added = entries(path.read_bytes()[path.read_bytes().rfind(b'{"type":"system"') :])
    kept = added[0]["compactMetadata"]["preservedMessages"]["uuids"]
    lines = by_uuid(path)
    return "\n".join(render(lines[uuid]) for uuid in [*kept, *(e["uuid"] for e in added[1:])])


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "keepd", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
        check=False,
    )


def test_a_cut_fills_the_store(example: Path) -> None:
    operations = Operations()
    plan = operations.plan_cut(str(example), pick=True, placement=Placement.FIRST)
    outcome = operations.write_cut(plan)
    assert outcome.written and outcome.recall_warning is None
    assert outcome.recalled == plan.dropped == len(plan.dropped_uuids) > 100
    with Store() as store:
        (cut,) = store.cuts(EXAMPLE_ID)
        rows = store.db.execute(
            "SELECT uuid FROM messages WHERE session_id = ? AND cut_id = ? ORDER BY position",
            (EXAMPLE_ID, plan.cut_id),
        ).fetchall()
    assert (cut.kind, cut.boundary_uuid, cut.messages) == ("cut", plan.written.boundary_uuid, 170)
    assert [row[0] for row in rows] == list(plan.dropped_uuids)
    assert not set(plan.dropped_uuids) & set(plan.preserved)
    assert RECALL_LINE.format(cut=plan.cut_id) in (plan.summary or "")
    assert plan.written.boundary_uuid.startswith(plan.cut_id)
    assert oct(recall_db().stat().st_mode & 0o777) == "0o600"
    assert oct(recall_dir().stat().st_mode & 0o777) == "0o700"


def test_recall_finds_a_detail_only_the_dropped_part_had(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert DETAIL in example.read_text()
    assert main(["cut", EXAMPLE_ID, "--pick", "--summary-file", _summary(example)]) == 0
    capsys.readouterr()
    assert DETAIL not in _new_context_text(example)  # the model no longer sees it
    assert main(["recall", DETAIL, "--session", EXAMPLE_ID[:8], "--json"]) == 0
    found = orjson.loads(capsys.readouterr().out)
    (plan_cut,) = {hit["cut_id"] for hit in found["hits"]}
    assert found["match"] == "all" and found["hits"]
    hit = found["hits"][0]
    assert f"«{DETAIL}»" in hit["snippet"]
    assert "ROUND_HALF_UP" in hit["snippet"]  # the detail itself: cents rounded half up
    original = by_uuid(example)[hit["uuid"]]
    assert original["timestamp"] == hit["timestamp"]
    assert main(["recall", "cents", "half", "up", "--cut", plan_cut]) == 0
    assert hit["uuid"] in capsys.readouterr().out


def test_recall_uuid_prints_one_message_whole(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    operations = Operations()
    outcome = operations.write_cut(operations.plan_cut(str(example), pick=True, placement="none"))
    lines = by_uuid(example)
    longest = max(outcome.plan.dropped_uuids, key=lambda uuid: len(render(lines[uuid])))
    whole = render(lines[longest])
    assert len(whole) > 5000
    assert main(["recall", "--uuid", longest]) == 0
    out = capsys.readouterr().out
    head, _, body = out.partition("\n\n")
    assert longest in head and f"cut {outcome.plan.cut_id}" in head
    assert body == whole + "\n"
    assert main(["recall", "--uuid", longest[:13], "--json"]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert data["text"] == whole and data["entry"] == lines[longest]


def test_a_prune_fills_the_store_and_its_notes_name_the_cut(example: Path) -> None:
    operations = Operations()
    plan = operations.plan_prune(str(example), keep_last=2, working=1, notes=True)
    outcome = operations.write_cut(plan)
    assert outcome.recalled == plan.dropped > 0
    assert RECALL_LINE.format(cut=plan.cut_id) in (plan.summary or "")
    with Store() as store:
        assert [c.kind for c in store.cuts(EXAMPLE_ID)] == ["prune"]


def test_undo_takes_the_cut_out_of_the_store(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    operations = Operations()
    first = operations.write_cut(operations.plan_cut(str(example), pick=True, placement="none"))
    second = operations.write_cut(operations.plan_cut(str(example), placement="empty"))
    assert second.recalled == len(first.plan.preserved)
    assert main(["undo", EXAMPLE_ID]) == 0
    assert f"left the recall store (cut {second.plan.cut_id})" in capsys.readouterr().out
    with Store() as store:
        assert [c.cut_id for c in store.cuts(EXAMPLE_ID)] == [first.plan.cut_id]
    operations.undo_cut(EXAMPLE_ID)
    with Store() as store:
        assert store.cuts() == []
        assert store.db.execute("SELECT count(*) FROM messages_fts").fetchone() == (0,)


def test_a_store_that_fails_warns_and_the_cut_stands(example: Path) -> None:
    recall_dir().parent.mkdir(parents=True, exist_ok=True)
    recall_dir().write_text("not a folder")  # the store cannot be made
    before = example.read_bytes()
    done = _run("cut", EXAMPLE_ID, "--pick", "--no-summary")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") == 1 and "warning: recall store" in done.stderr
    assert "Traceback" not in done.stderr
    written = example.read_bytes()
    assert written.startswith(before) and b"compact_boundary" in written[len(before) :]
    assert "written and checked" in done.stdout
    undone = _run("undo", EXAMPLE_ID)  # undo works too, and warns the same way
    assert undone.returncode == 0 and example.read_bytes() == before
    assert "Traceback" not in undone.stderr


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["recall", '"'], 18, "has no words"),
        (["recall", "x", "--limit", "0"], 18, "the limit must be"),
        (["recall", "x", "--cut", "nope"], 19, "no stored cut"),
        (["recall", "x", "--session", "nope"], 19, "nothing is stored for the session"),
        (["recall", "--uuid", "nope"], 19, "no stored message"),
        (["recall"], 2, "give words"),
        (["recall", "x", "--uuid", "y"], 2, "not both"),
    ],
)
def test_bad_queries_are_one_line(example: Path, args: list[str], code: int, says: str) -> None:
    Operations().write_cut(Operations().plan_cut(str(example), pick=True, placement="none"))
    done = _run(*args)
    assert done.returncode == code, done.stderr
    assert done.stderr.startswith("keepd: ") and done.stderr.count("\n") == 1, done.stderr
    assert says in done.stderr and done.stdout == ""


def test_with_json_an_error_is_json_on_stdout(example: Path) -> None:
    """A script reading `recall --json` always gets an object; the line stays on stderr."""
    done = _run("recall", "anything", "--json")
    assert done.returncode == 19 and done.stderr.count("\n") == 1
    data = orjson.loads(done.stdout)
    assert data["schema"] == 1 and data["error"]["code"] == "not_in_the_recall_store"
    assert data["error"]["exit"] == 19 and "nothing is stored yet" in data["error"]["message"]
    Operations().write_cut(Operations().plan_cut(str(example), pick=True, placement="none"))
    for args, code in ((['"'], 18), (["x", "--cut", "nope"], 19), (["--uuid", "nope"], 19)):
        done = _run("recall", *args, "--json")
        assert done.returncode == code
        assert orjson.loads(done.stdout)["error"]["exit"] == code
    done = _run("recall", "--json")
    assert done.returncode == 2 and orjson.loads(done.stdout)["error"]["code"] == "usage"


def test_recall_before_any_cut(private_home: Path) -> None:
    done = _run("recall", "anything")
    assert done.returncode == 19 and "nothing is stored yet" in done.stderr
    assert not recall_db().exists()  # asking does not create the store


def _summary(example: Path) -> str:
    path = example.parent.parent.parent / "summary.txt"
    path.write_text("We built the CSV import and fixed the overdue check.\n")
    return str(path)
