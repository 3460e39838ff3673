"""Finding the shared corpus (evaluation/cases.py `shared_or_none`): a folder given that holds
no corpus is one line on stderr and no folder, not a traceback later."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.cases import shared_or_none


def test_a_folder_without_a_corpus_is_one_line_and_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert shared_or_none(tmp_path / "missing", "probe") is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("probe: ") and "corpus/sessions" in err


def test_a_folder_with_a_corpus_is_taken(tmp_path: Path) -> None:
    (tmp_path / "corpus" / "sessions").mkdir(parents=True)
    assert shared_or_none(tmp_path, "probe") == tmp_path
