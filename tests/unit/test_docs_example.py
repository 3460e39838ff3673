"""The README's example report is what `keepd report --example` prints (scripts/docs_example.py
writes it; run it after a change to the report's words)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "docs_example.py"


def docs_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_shows_what_the_report_prints() -> None:
    script = docs_example()
    readme = script.README.read_text(encoding="utf-8")
    report = script.report_text()
    assert "→ ↑" in report and "Summarize up to here" in report  # a report, not an error
    assert script.readme_with(readme, report) == readme, (
        "the README's example differs from `keepd report --example`: "
        "run python scripts/docs_example.py"
    )


def test_the_readme_block_is_replaced_whole() -> None:
    script = docs_example()
    readme = f"intro\n{script.BEGIN}\n```\nold\n```\n{script.END}\nrest\n"
    assert script.readme_with(readme, "new\n") == (
        f"intro\n{script.BEGIN}\n```\nnew\n```\n{script.END}\nrest\n"
    )
