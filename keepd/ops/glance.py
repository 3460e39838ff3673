"""One session at a glance, as the status line shows it: its context use and the pick, made from
what an analysis found; what the daemon answers for `glance` and caches per session."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from keepd.core.limits import urgent_share
from keepd.ops.glance_io import THRESHOLD, URGENT, checked


@dataclass(frozen=True, slots=True)
class Glance:
    """A session's context use and pick; `known` false: the daemon does not follow it."""

    session_id: str
    known: bool = False
    analysed: bool = False  # the fields below come from an analysis
    offset: int = 0  # the bytes of the file that analysis read
    tokens: int | None = None
    window: int | None = None
    share: float | None = None
    pick: str | None = None
    grade: str | None = None  # the pick's grade; None when the stop is the trade's
    below: int | None = None
    frees: float | None = None
    code_changed: bool = False  # the stop's rewind menu offers to restore code (core/steps.py)
    after: int | None = None  # the context's tokens after a cut there (core/aftercut.py)
    threshold: float = THRESHOLD  # the daemon's notify.threshold, and notify.urgent of the
    urgent: float = URGENT  # way to the session's auto-compact point, as shares of the window
    written: float | None = None  # when it was made, seconds since the epoch

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def from_dict(data: object) -> Glance | None:
    """The glance in a reply or a cache file; a field of the wrong type is left at its default.

    >>> glance = from_dict({"session_id": "ab", "known": True, "below": "7", "offset": True})
    >>> glance.session_id, glance.known, glance.below, glance.offset
    ('ab', True, None, 0)
    """
    fields = checked(data)
    return Glance(**fields) if fields is not None else None  # type: ignore[arg-type]


def from_summary(
    session_id: str,
    summary: dict[str, Any],
    *,
    offset: int,
    threshold: float,
    urgent: float,
    written: float | None = None,
) -> Glance:
    """A glance from `overview.pick_fields` (what an analysis found), for the daemon and for
    the in-process backend."""
    context = summary.get("context") or {}
    fields = {
        "session_id": session_id,
        "known": True,
        "analysed": bool(summary),
        "offset": offset,
        "tokens": context.get("tokens"),
        "window": context.get("window"),
        "share": context.get("share"),
        "pick": summary.get("pick"),
        "grade": summary.get("grade"),
        "below": summary.get("below"),
        "frees": summary.get("frees"),
        "code_changed": summary.get("code_changed") is True,
        "after": summary.get("after"),
        "threshold": threshold,
        "urgent": round(urgent_share(context, urgent), 4),
        "written": time.time() if written is None else written,
    }
    glance = from_dict(fields)
    assert glance is not None
    return glance
