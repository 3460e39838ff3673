"""The daemon's glances for the status line: built from what the last analysis of a session
found, answered over the socket, and cached in a small file per session for when it is down."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from keepd.ops.glance import Glance, from_summary
from keepd.ops.glance_io import prune_cached, write_cached

if TYPE_CHECKING:
    from keepd.config import NotifyConfig
    from keepd.daemon.registry import Followed, Registry

log = logging.getLogger(__name__)


def find(registry: Registry, session_id: str, path: str | None = None) -> Followed | None:
    """The followed session at `path`, else the one with exactly this id (never a prefix)."""
    if path:
        followed = registry.sessions.get(Path(path))
        if followed is not None:
            return followed
    return next((f for f in registry.sessions.values() if f.session_id == session_id), None)


def glance_of(followed: Followed, notify: NotifyConfig, now: float | None = None) -> Glance:
    """What the last analysis of a followed session found (nothing yet: `analysed` false)."""
    return from_summary(
        followed.session_id,
        {key: value for key, value in followed.summary.items() if key != "project"},
        offset=max(followed.analysed_offset, 0),
        threshold=notify.threshold,
        urgent=notify.urgent,
        written=time.time() if now is None else now,
    )


class GlanceCache:
    """Writes a session's glance file after each analysis that changed what it shows."""

    def __init__(self, notify: Callable[[], NotifyConfig]) -> None:
        self.notify = notify
        self._last: dict[str, Glance] = {}
        self.failures = 0

    def write(self, followed: Followed) -> None:
        """Called by the registry after an analysis; a failure is logged, never raised."""
        glance = glance_of(followed, self.notify())
        unstamped = replace(glance, written=None)
        if self._last.get(glance.session_id) == unstamped:
            return
        try:
            if write_cached(glance.to_dict()):
                self._last[glance.session_id] = unstamped
        except OSError as error:
            self.failures += 1
            level = logging.WARNING if self.failures == 1 else logging.DEBUG
            log.log(level, "cannot cache the glance of %s: %s", glance.session_id, error)

    def prune(self, known: set[str]) -> int:
        """Forgets the glances of sessions whose files are gone."""
        for session_id in [s for s in self._last if s not in known]:
            del self._last[session_id]
        removed = prune_cached(known)
        if removed:
            log.debug("removed %d cached glances of vanished sessions", removed)
        return removed
