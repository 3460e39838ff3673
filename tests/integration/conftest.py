"""Fixtures of the daemon's integration tests."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.integration.daemon_kit import SHORT_DIRS, PrivateBus


@pytest.fixture(autouse=True)
def short_dirs() -> Iterator[None]:
    """Removes the short folders in /tmp that a test made for its sockets."""
    yield
    while SHORT_DIRS:
        shutil.rmtree(SHORT_DIRS.pop(), ignore_errors=True)


@pytest.fixture
def bus() -> Iterator[PrivateBus]:
    """A private session bus (skips when dbus-daemon is not installed)."""
    private = PrivateBus()
    yield private
    private.close()
