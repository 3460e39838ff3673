"""keepd report, plain and --json, on every real transcript of the corpus, in both scopes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from keepd.cli.main import main


@pytest.mark.parametrize("whole", [False, True], ids=["current", "whole"])
def test_report_runs_on_every_corpus_file(
    corpus_sessions: list[Path], whole: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    scope = ["--whole"] if whole else []
    for path in corpus_sessions:
        assert main(["report", str(path), *scope]) == 0, path.name
        text = capsys.readouterr().out
        assert text.startswith("  session "), path.name
        assert main(["report", str(path), "--json", *scope]) == 0, path.name
        data = orjson.loads(capsys.readouterr().out)
        assert data["scope"] == ("whole" if whole else "current")
        assert data["stop_count"] == len(data["stops"])
        assert data["pick"] is None or data["pick"] in {s["uuid"] for s in data["stops"]}


def test_several_sessions_give_a_json_array(
    corpus_sessions: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = [str(path) for path in corpus_sessions[:3]]
    assert main(["report", "--json", *chosen]) == 0
    data = orjson.loads(capsys.readouterr().out)
    assert [item["path"] for item in data] == chosen


def test_installed_command_reports_a_corpus_file(corpus_sessions: list[Path]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "keepd.cli.main", "report", str(corpus_sessions[0])],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "\033[" not in done.stdout  # piped: plain text
    assert "stands on its own" in done.stdout


def test_evaluation_runs_on_a_tiny_subset(shared: Path) -> None:
    from evaluation.__main__ import main as evaluate

    assert evaluate(["--shared", str(shared), "--count", "3"]) == 0


def test_the_calibration_evaluation_prints_nothing_held_out(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evaluation.__main__ import main as evaluate

    assert evaluate(["--shared", str(shared), "--count", "3", "--calibration"]) == 0
    printed = capsys.readouterr().out
    assert "calibration (seeds" in printed and "boundaries.json" in printed
    assert "held" not in printed and "held_out_labels" not in printed
