"""The full evaluation on a tiny subset of the corpus writes every table and figure: a short
guide page (EVALUATION.md) led by the replayed notices with and without the reader, and the
reference page with the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

GUIDE_WORDS = 1_500
SECTIONS = (
    "## The notices a person would get",
    "## Dialogue topic segmentation",
    "### DialSeg711: test",
    "### TIAGE: test",
    "## Sessions: keepd's pick",
    "### Grades at the junction",
    "### The labelled sessions",
    "### Were events to outrank ●● zones",
    "## Sessions: keepd against the other methods",
    "### TextTiling, timed against keepd on the same sessions",
    "## Does the score rank stops by tail size?",
    "## Zone multiples: junctions, sub-topics, noise",
    "## Robustness: 486 combinations of the constants",
    "## Speed",
    "### The daemon",
)
METHODS = (
    "keepd",
    "TextTiling, block comparison",
    "TextTiling, vocabulary introduction",
    "KernelCPD (linear kernel)",
    "Pelt (RBF cost)",
    "even split",
    "no boundary",
    "random",
    "similarity split (the seed's score)",
)


def test_full_evaluation_on_a_tiny_subset(shared: Path, tmp_path: Path) -> None:
    for module in ("nltk", "ruptures", "matplotlib"):
        pytest.importorskip(module, reason='needs pip install -e ".[eval]"')
    from evaluation.document import FIGURES
    from evaluation.full import main

    assert main(["--shared", str(shared), "--tiny", "--out", str(tmp_path)]) == 0
    guide = (tmp_path / "EVALUATION.md").read_text(encoding="utf-8")
    text = (tmp_path / "EVALUATION-reference.md").read_text(encoding="utf-8")
    for heading in SECTIONS:
        assert heading in text, heading
    for method in METHODS:
        assert f"| {method} |" in text or f" {method} |" in text, method
    for name in FIGURES.values():
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG"), name
        assert f"]({name})" in text, name
    assert text.index("## The notices a person would get") < text.index("## Dialogue topic")
    assert "keepd against trivial picks and grades" in text
    assert "fitted on the other projects (left one project out): " in text
    assert "right where the other is not: keepd " in text
    assert "A `--tiny` run" in text and "A `--tiny` run" in guide
    assert "for orjson" in text
    assert "Load: the 1-minute load average was" in text
    loaded = "**The machine was loaded while this run timed keepd**"
    if loaded in text.split("## Speed")[1]:
        assert loaded in text.split("\n## ")[0] and loaded in guide.split("\n## ")[0]
    else:
        assert loaded not in text and loaded not in guide
    first = guide.index("## The notices a person would get, keepd alone and with the reader")
    assert first < guide.index("## keepd alone on every labelled session")
    for side in ("### calibration", "### held out"):
        assert side in guide, side
    assert "| keepd alone | with the recorded answers | hindsight bound |" in guide
    assert "| notices at a reader's task boundary, keepd's points left one project out |" in guide
    assert "EVALUATION-reference.md" in guide
    assert len(guide.split()) < GUIDE_WORDS
