"""The package's layout as docs/architecture.md describes it: parts, their docstrings, and the
direction of every import between them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "keepd"
EVALUATION = PACKAGE.parent / "evaluation"

# A part may import only parts of a lower level (docs/architecture.md, "Direction of imports").
LEVELS = {
    "core": 0,
    "errors": 1,
    "paths": 1,
    "_version": 1,
    "data": 1,
    "config": 2,
    "system": 2,
    "api": 3,
    "__init__": 4,
    "report": 4,
    "recall": 4,
    "cut": 5,
    "ops": 6,
    "daemon": 7,
    "claude": 7,
    "login": 8,
    "cli": 9,
    "__main__": 10,
}
# What the pure core never touches (the guide: no threads, sockets or notifier imports).
NOT_IN_CORE = {"threading", "socket", "asyncio", "desktop_notifier", "watchdog", "apscheduler"}


def part_of(path: Path) -> str:
    """The part a module of the package belongs to: its folder, or its own name at the top."""
    relative = path.relative_to(PACKAGE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def imported(path: Path) -> Iterator[str]:
    """Every module name a file imports, wherever the import stands (functions included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "keepd":
                yield from (f"keepd.{alias.name}" for alias in node.names)
            else:
                yield node.module


def target_part(module: str) -> str | None:
    """The part of keepd an import reaches, or None for anything outside keepd."""
    names = module.split(".")
    if names[0] != "keepd":
        return None
    return names[1] if len(names) > 1 else "__init__"


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_part_has_a_level() -> None:
    assert {part_of(path) for path in modules()} == set(LEVELS)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_one_way(path: Path) -> None:
    source = part_of(path)
    wrong = sorted(
        module
        for module in imported(path)
        if (target := target_part(module)) not in (None, source)
        and LEVELS[target] >= LEVELS[source]
    )
    assert not wrong, f"{source} (level {LEVELS[source]}) may not import {wrong}"


def test_core_stays_pure() -> None:
    for path in (PACKAGE / "core").rglob("*.py"):
        roots = {module.split(".")[0] for module in imported(path)}
        assert not roots & NOT_IN_CORE, f"{path.name} imports {roots & NOT_IN_CORE}"


def test_keepd_never_imports_the_evaluation() -> None:
    for path in modules():
        assert not [m for m in imported(path) if m.split(".")[0] == "evaluation"], path


def test_the_top_holds_few_modules() -> None:
    assert len(list(PACKAGE.glob("*.py"))) <= 8


@pytest.mark.parametrize(
    "folder",
    [*sorted(p.parent for p in PACKAGE.glob("*/__init__.py")), EVALUATION, EVALUATION / "probes"],
    ids=lambda p: p.name,
)
def test_every_folder_says_its_job(folder: Path) -> None:
    docstring = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
    assert docstring, f"{folder.name}/__init__.py has no docstring"
    first = docstring.split("\n\n")[0]
    assert first.rstrip().endswith("."), f"{folder.name}: {first!r} is not a sentence"


PROBES = EVALUATION / "probes"


def evaluation_modules() -> list[Path]:
    return sorted(EVALUATION.rglob("*.py"))


@pytest.mark.parametrize("path", evaluation_modules(), ids=lambda p: str(p.relative_to(EVALUATION)))
def test_no_probe_imports_another_and_nothing_else_imports_a_probe(path: Path) -> None:
    """A probe stands alone (issue 27): what `python -m evaluation` runs never reaches into
    `evaluation/probes/`, and a probe reaches only the top of the evaluation and keepd."""
    reached = [m for m in imported(path) if m.split(".")[:2] == ["evaluation", "probes"]]
    relative = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if _relative(n)]
    assert not relative, f"{path.relative_to(EVALUATION)}: a relative import hides what it reaches"
    assert not reached, f"{path.relative_to(EVALUATION)} imports {reached}"


def test_the_probes_hold_what_was_dropped() -> None:
    held = {path.stem for path in PROBES.glob("*.py")} - {"__init__"}
    assert {"embed_probe", "grade_probe", "turn_probe", "pick_misses"} <= held
    assert not {path.stem for path in EVALUATION.glob("*_probe.py")}


def _relative(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.level > 0
