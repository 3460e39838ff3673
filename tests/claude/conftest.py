"""Fixtures of the tests against the real Claude Code: the pinned client, the fake API, a scratch
world, tmux panes, a private D-Bus and dunst on Xvfb. Every test here carries the `claude` marker
(`-m "not claude"` skips them); without npm, tmux, dbus, dunst or Xvfb they skip, unless
KEEPD_CLAUDE_REQUIRED=1 (CI) makes that a failure."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.claude.client import Installed, Unavailable, World, install
from tests.claude.fake_api import FakeApi
from tests.claude.tmux import Tmux
from tests.integration.daemon_kit import SHORT_DIRS, PrivateBus
from tests.integration.desktop import Dunst

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.path)).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.claude)


def _required() -> bool:
    return os.environ.get("KEEPD_CLAUDE_REQUIRED", "") not in ("", "0")


@pytest.fixture(scope="session")
def claude_code() -> Installed:
    """The pinned Claude Code (KEEPD_CLAUDE_VERSION, default 2.1.332), installed once."""
    try:
        return install()
    except Unavailable as why:
        if _required():
            pytest.fail(f"Claude Code is required here: {why}")
        pytest.skip(f"Claude Code cannot be installed: {why}")


@pytest.fixture
def fake_api() -> Iterator[FakeApi]:
    api = FakeApi().start()
    yield api
    api.close()


@pytest.fixture
def world(tmp_path: Path, private_home: Path, fake_api: FakeApi, claude_code: Installed) -> World:
    """HOME (the same one keepd sees), CLAUDE_CONFIG_DIR, a trusted project folder, the fake API."""
    return World(tmp_path, fake_api.url, claude_code)


@pytest.fixture
def tmux_ui(world: World) -> Iterator[Callable[..., Tmux]]:
    """Starts `claude ARGS` in a tmux pane in the world; every pane is killed after the test."""
    panes: list[Tmux] = []

    def start(*args: str, width: int = 200, height: int = 50) -> Tmux:
        try:
            ui = Tmux(world.env(), world.cwd, width, height)
        except FileNotFoundError as why:
            if _required():
                pytest.fail(str(why))
            pytest.skip(str(why))
        panes.append(ui)
        return ui.start([str(world.claude.binary), *args])

    yield start
    for ui in panes:
        ui.close()


def _needed(make: Callable[[], Any]) -> Any:
    """`make()`, whose skip for a missing program is a failure where the harness is required."""
    try:
        return make()
    except pytest.skip.Exception as why:
        if _required():
            pytest.fail(f"required here: {why}")
        raise


@pytest.fixture
def bus() -> Iterator[PrivateBus]:
    """A private session bus; its sockets' short folders are removed after the test."""
    private: PrivateBus = _needed(PrivateBus)
    yield private
    private.close()
    while SHORT_DIRS:
        shutil.rmtree(SHORT_DIRS.pop(), ignore_errors=True)


@pytest.fixture
def desktop(bus: PrivateBus) -> Iterator[Dunst]:
    """The real notification server: dunst on an Xvfb display of its own, on the private bus."""
    dunst: Dunst = _needed(lambda: Dunst(bus))
    yield dunst
    dunst.close()
