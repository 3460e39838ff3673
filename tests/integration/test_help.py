"""The help and the usage errors a newcomer meets (issue 26): commands in groups, examples and
the docs' page, "did you mean", -V, --json on every command that reports, bad values in one
line, and what the report says about where its session comes from."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from keepd._version import __version__
from keepd.cli.help import DOCS, GROUPS
from keepd.paths import example_session, project_slug
from tests.cut_kit import quiet_copy

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
ROOT = Path(__file__).resolve().parents[2]
LAUNCH = "import sys; from keepd.cli.launch import main; sys.exit(main())"


def keepd(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LAUNCH, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ),
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def example(private_home: Path) -> Path:
    folder = private_home / ".claude" / "projects" / project_slug("/home/dev/invoicer")
    return quiet_copy(example_session(), folder / f"{EXAMPLE_ID}.jsonl")


def test_the_help_lists_every_command_once_in_its_group() -> None:
    text = keepd("--help").stdout
    assert text.startswith("usage: keepd [-h] [-V] [-v] COMMAND ...")
    listed = re.findall(r"^  ([a-z]+)  ", text.split("\noptions:")[0], flags=re.MULTILINE)
    grouped = [name for _, names in GROUPS for name in names]
    assert listed == grouped and len(grouped) == len(set(grouped)) == 21
    for title, _ in GROUPS:
        assert f"\n{title}:\n" in text
    assert "examples:\n  keepd report " in text and "more: docs/README.md" in text


@pytest.mark.parametrize("name", [name for _, names in GROUPS for name in names])
def test_each_command_has_examples_and_its_docs_page(name: str) -> None:
    done = keepd(name, "--help")
    assert done.returncode == 0, done.stderr
    assert "examples:\n  " in done.stdout
    page = DOCS.get(name, "docs/daemon.md")
    assert f"more: {page} in keepd's source" in done.stdout
    assert (ROOT / page).is_file()


def test_no_option_text_is_cryptic() -> None:
    cut = keepd("cut", "--help").stdout
    assert "claude -p, else keepd's gist" not in cut
    assert "keepd writes a short one itself" in cut
    undo = keepd("undo", "--help").stdout
    assert "even if it runs or went on" not in undo
    assert "Claude Code has the session open or wrote to it after the cut" in " ".join(undo.split())


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        (["reprot"], "keepd report"),
        (["servce"], "keepd service"),
        (["service", "instal"], "keepd service install"),
    ],
)
def test_a_typo_gets_did_you_mean_in_one_line(typo: list[str], meant: str) -> None:
    done = keepd(*typo)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and f"did you mean `{meant}`?" in done.stderr
    assert "choose from" not in done.stderr


def test_a_word_like_no_command_gets_no_guess() -> None:
    done = keepd("zzzzzz")
    assert done.returncode == 2 and "did you mean" not in done.stderr
    assert "no command 'zzzzzz'" in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version(flag: str) -> None:
    done = keepd(flag)
    assert (done.returncode, done.stdout) == (0, f"keepd {__version__}\n")


@pytest.mark.parametrize("prefix", ["1", "ab", "2bc"])
def test_a_prefix_under_4_characters_is_a_usage_error(example: Path, prefix: str) -> None:
    for command in ("report", "cut", "undo", "show"):
        done = keepd(command, prefix)
        assert done.returncode == 2, (command, done.stderr)
        assert done.stderr.count("\n") == 1 and "4 or more characters" in done.stderr
    assert keepd("report", "2bca").returncode == 0


def test_cut_prune_undo_and_note_answer_in_json(example: Path, tmp_path: Path) -> None:
    dry = keepd("cut", EXAMPLE_ID, "--pick", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    planned = orjson.loads(dry.stdout)
    assert (planned["kind"], planned["dry_run"], planned["written"]) == ("cut", True, False)
    assert planned["kept"] > 0 and planned["dropped"] > 0 and planned["undo"] is None
    assert example.read_bytes() == example_session().read_bytes()
    cut = orjson.loads(keepd("cut", EXAMPLE_ID, "--pick", "--json").stdout)
    assert cut["written"] and cut["cut_id"] == planned["cut_id"]
    assert cut["undo"] == f"keepd undo {EXAMPLE_ID}" and Path(cut["backup"]).is_file()
    assert cut["recalled"] == cut["dropped"]
    undone = orjson.loads(keepd("undo", EXAMPLE_ID, "--json").stdout)
    assert undone["cut_id"] == cut["cut_id"] and undone["size"] == example.stat().st_size
    assert example.read_bytes() == example_session().read_bytes()
    pruned = orjson.loads(keepd("prune", EXAMPLE_ID, "--dry-run", "--json").stdout)
    assert pruned["kind"] == "prune" and {turn["what"] for turn in pruned["turns"]} <= {
        "recent",
        "keep",
        "drop",
    }
    note = orjson.loads(keepd("note", EXAMPLE_ID, "--dir", str(tmp_path), "--json").stdout)
    assert Path(note["note"]).parent == tmp_path and note["url"].startswith("file://")
    assert note["session_id"] == EXAMPLE_ID


def test_several_reports_are_apart(example: Path) -> None:
    done = keepd("report", EXAMPLE_ID, "--example")
    assert done.returncode == 0, done.stderr
    text = keepd("report", EXAMPLE_ID, EXAMPLE_ID).stdout
    second = text.index("  session ", 1)
    assert text[second - 2 : second] == "\n\n"


def test_the_header_names_the_project_and_a_session_from_elsewhere(
    example: Path, tmp_path: Path
) -> None:
    """Run in a folder whose project has no sessions: the newest of another project, said."""
    elsewhere = keepd("report", cwd=tmp_path)
    assert elsewhere.returncode == 0, elsewhere.stderr
    head = " ".join(elsewhere.stdout.split("\n\n")[0].split())
    assert "session 2bcaea32 · project invoicer" in head
    assert f"(not this folder's project: {tmp_path} has no sessions;" in head
    named = keepd("report", EXAMPLE_ID, cwd=tmp_path)
    assert "project invoicer" in named.stdout and "not this folder's" not in named.stdout
    as_json = keepd("report", "--json", cwd=tmp_path)
    assert orjson.loads(as_json.stdout)["project"] == "/home/dev/invoicer"
    assert f"no sessions of {tmp_path}; showing the newest of another project" in as_json.stderr


def test_the_session_of_this_folder_is_not_said_to_be_elsewhere(
    private_home: Path, tmp_path: Path
) -> None:
    folder = private_home / ".claude" / "projects" / project_slug(tmp_path)
    quiet_copy(example_session(), folder / f"{EXAMPLE_ID}.jsonl")
    done = keepd("report", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "not this folder's" not in done.stdout + done.stderr


def test_counts_and_windows_read_plainly(example: Path, tmp_path: Path) -> None:
    lines = example.read_bytes().splitlines(keepends=True)
    one = tmp_path / "one.jsonl"
    one.write_bytes(next(line for line in lines if b'"type":"user"' in line))
    text = keepd("report", str(one), "--window", "1000000").stdout
    assert "1 place to stop" in text and "1 places" not in text
    assert "1 message ·" in text or "1 message\n" in text
    wide = keepd("report", EXAMPLE_ID, "--window", "1000000").stdout
    assert "of 1M" in wide and "1000k" not in wide
    doctor = keepd("doctor").stdout
    assert "1 session in " in doctor and "(1)" not in doctor
