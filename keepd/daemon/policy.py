"""Decides whether a session deserves a notice now, and words it; pure, clock passed in.

Two notices. At `threshold`, once per stop, when a ●●● zone's pick frees at least `min_frees`
(●●● only where a cue says the work before is over: core/sure.py). At `urgent` of the way to
the session's auto-compact point (core/limits.py: its trigger, not a share of the window),
once per filling of the context (until a compaction or a cut), with the best stop or the
middle of the trade even without a clear break: replayed on the calibration sessions, urgent
notices once per stop came turn after turn, each naming another stop, seldom a new task. An
urgent notice does not name one of the two newest stops unless a new task clearly begins
there (●●●): summarizing up to the prompt just answered keeps almost nothing of the work, and
replaying the corpus showed half the urgent notices did so; it names the latest graded or
trade stop before them instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from keepd.core.limits import urgent_share
from keepd.core.steps import instruction, leaves
from keepd.ops.overview import short_project

if TYPE_CHECKING:
    from keepd.config import NotifyConfig
    from keepd.core.analysis import Analysis, Stop
    from keepd.ops.memory import Memory

CLEAR = "●●●"
NEWEST = 1  # stops at most this many picker entries from the end: "the very end"
NOTICE_ROW = 100  # characters of the row's quote: a notice is read away from the terminal


@dataclass(frozen=True, slots=True)
class Notice:
    """One notification to send, and what it is about."""

    session_id: str
    path: str
    key: str  # "break:<uuid>" or "urgent:<uuid>@<filling>": remembered once sent
    urgent: bool
    title: str
    body: str
    stop: str
    quote: str


def decide(
    analysis: Analysis, session_id: str, config: NotifyConfig, memory: Memory, now: float
) -> Notice | None:
    """The notice `analysis` calls for, or None (quiet, muted, paused, or already sent)."""
    due = kind_due(analysis, config)
    if not config.enabled or due is None or analysis.path is None:
        return None
    if memory.is_paused(now) or memory.muted(session_id, now):
        return None
    kind, filled = due
    if kind == "urgent":
        once = not memory.notified_kind(session_id, "urgent", filled)
        stop = _urgent_stop(analysis) if once else None
    else:
        stop = _clear_pick(analysis, config.min_frees)
    if stop is None:
        return None
    key = f"{kind}:{stop.uuid}{filled}"
    if memory.was_notified(session_id, key):
        return None
    title, body = words(analysis, stop, urgent=kind == "urgent")
    return Notice(
        session_id=session_id,
        path=analysis.path,
        key=key,
        urgent=kind == "urgent",
        title=title,
        body=body,
        stop=stop.uuid,
        quote=stop.quote,
    )


def kind_due(analysis: Analysis, config: NotifyConfig) -> tuple[str, str] | None:
    """The kind of notice the context's share calls for ("urgent" or "break"), with the end
    of its key ("@<filling>" for an urgent one: one per filling), or None (below `threshold`).
    """
    share = analysis.context.get("share")
    if share is None:
        return None
    if share >= urgent_share(analysis.context, config.urgent):
        return "urgent", f"@{filling(analysis)}"  # a compaction or a cut starts a new filling
    return ("break", "") if share >= config.threshold else None


def filling(analysis: Analysis) -> str:
    """What names the context's current filling: the compact boundary the part Claude Code
    still sends starts at ("" before any compaction); a compaction or a cut starts another."""
    return analysis.compacted_at or ""


def _urgent_stop(analysis: Analysis) -> Stop | None:
    """The recommended stop, unless it lies at the very end without a clear break: then the
    latest graded or trade stop before the end, if any."""
    target = analysis.target_stop()
    if target is None or target.below > NEWEST or target.grade == CLEAR:
        return target
    trade = set(analysis.trade)
    earlier = [
        stop
        for stop in analysis.stops
        if stop.below > NEWEST and (stop.grade in (CLEAR, "●●") or stop.uuid in trade)
    ]
    return min(earlier, key=lambda stop: stop.below) if earlier else None


def _clear_pick(analysis: Analysis, min_frees: float) -> Stop | None:
    stop = analysis.stop(analysis.pick)
    if stop is None or stop.grade != CLEAR or stop.frees < min_frees:
        return None
    return stop


def words(analysis: Analysis, stop: Stop | None, *, urgent: bool) -> tuple[str, str]:
    """Title (project and context share) and body (where to stop, what it frees, the quote)."""
    share = analysis.context.get("share") or 0.0
    project = short_project(analysis.project)
    title = f"{project}: context {share:.0%}" + (", auto-compact is near" if urgent else "")
    if stop is None:
        return title, "No stop to summarize up to yet: every prompt is still needed."
    from keepd.core.sureness import said_sure
    from keepd.report.legend import grade_words

    left = leaves(stop.after, analysis.context.get("tokens"), stop.frees)
    words = grade_words(stop.grade)  # the report's words for its mark, not the mark alone
    sure = said_sure(analysis, stop)
    return title, f"{instruction(stop, NOTICE_ROW)}\nThat {left}: {words}." + (
        f" {sure}" if sure else ""
    )
