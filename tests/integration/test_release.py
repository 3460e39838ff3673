"""A release names one version everywhere (issue 16): the release check and its workflow."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from keepd._version import __version__

ROOT = Path(__file__).resolve().parents[2]


def release_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "release_check", ROOT / "packaging/release_check.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist, built as the release workflow builds them."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


def test_a_build_and_its_tag_agree(dist: Path) -> None:
    assert release_check().problems(dist, f"v{__version__}", __version__) == []


def test_a_wrong_tag_or_a_stale_file_is_refused(dist: Path) -> None:
    check = release_check()
    assert check.problems(dist, "v9.9.9", __version__) == [
        f"the tag v9.9.9 is not v{__version__} (keepd/_version.py)"
    ]
    assert any("is missing" in p for p in check.problems(dist, None, "9.9.9"))


def test_the_version_is_written_in_one_place() -> None:
    """Nothing but keepd/_version.py spells the version; the templates hold @VERSION@."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    holders = [
        name
        for name in tracked
        if not name.endswith((".png", ".jsonl", "CHANGELOG.md"))
        and (ROOT / name).is_file()
        and f'"{__version__}"' in (ROOT / name).read_text(encoding="utf-8", errors="replace")
    ]
    assert holders == ["keepd/_version.py"]
    assert "@VERSION@" in (ROOT / "packaging/arch/PKGBUILD").read_text()
    assert "@VERSION@" in (ROOT / "packaging/homebrew/keepd.rb").read_text()


def test_the_workflow_builds_checks_and_uploads_on_a_tag() -> None:
    workflow = (ROOT / ".github/workflows/release.yml").read_text()
    for step in (
        "python -m build",
        "twine check --strict",
        "packaging/release_check.py",
        "pypa/gh-action-pypi-publish",
        'tags: ["v*"]',
        "id-token: write",
    ):
        assert step in workflow, step
