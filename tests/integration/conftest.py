"""Fixtures of the daemon's integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.daemon_kit import PrivateBus


@pytest.fixture
def bus() -> Iterator[PrivateBus]:
    """A private session bus (skips when dbus-daemon is not installed)."""
    private = PrivateBus()
    yield private
    private.close()
