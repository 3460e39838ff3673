"""Test set-up: every test gets its own HOME and XDG folders, and the shared corpus if present."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Points HOME and the XDG folders at tmp_path so no test sees or writes the real ones."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_RUNTIME_DIR", "run"),
    ):
        folder = home / sub
        folder.mkdir(parents=True)
        monkeypatch.setenv(name, str(folder))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture
def shared() -> Path:
    """The shared corpus beside the checkout; tests that need it skip when it is absent."""
    if not (SHARED / "corpus" / "sessions").is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def corpus_sessions(shared: Path) -> list[Path]:
    return sorted((shared / "corpus" / "sessions").glob("*.jsonl"))
