"""Assembles the report's data (core/results.py's dataclasses) from a session's branch, index,
curve and grades."""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import replace
from typing import Any

import numpy as np

from keepd.core.aftercut import OnDisk, after_cut, asked_once
from keepd.core.blocks import Block, BorrowedWord, blocks_before, borrowed_words
from keepd.core.curve import Curve, FloatArray, curve
from keepd.core.events import EVENTS, EventCodes
from keepd.core.grade import DEFAULT_TUNING, Grading, Tuning, Zone, grade
from keepd.core.limits import Limits, Setup, limits
from keepd.core.messages import Node
from keepd.core.results import (
    SCHEMA_VERSION,
    Analysis,
    BlockInfo,
    ReaderInfo,
    Stop,
    WordInfo,
    ZoneInfo,
)
from keepd.core.session import SessionState
from keepd.core.tokens import ContextUse, context_use
from keepd.core.tree import Branch

__all__ = [
    "NEWEST_PASSED",
    "SCHEMA_VERSION",
    "Analysis",
    "BlockInfo",
    "ReaderInfo",
    "Stop",
    "WordInfo",
    "ZoneInfo",
    "analyse_state",
    "context_of",
    "guidance_at",
]


def analyse_state(
    state: SessionState,
    *,
    path: str | None = None,
    tuning: Tuning = DEFAULT_TUNING,
    window: int | None = None,
    every_stop: bool = True,
    setup: Setup | None = None,
) -> Analysis:
    """The analysis of what `state` has read so far; `setup` holds what decides the window and
    the trigger outside the file (`window`, if given, is its `window`: keepd's own choice).

    With `every_stop` False, `stops` and `zones` hold only what a follower shows (`_shown`:
    the pick, the trade, the latest ●● or ●●● stops before the newest), so what it builds
    after every burst of writes does not grow with the number of zones; every other field is
    the same as with every stop.
    """
    branch = state.branch()
    estimated = state.ledger.estimated
    positions = state.stop_indices()
    frees = state.ledger.freed(positions)
    points = curve(state.index, positions)
    events = state.stop_events(tuning.pause_minutes * 60)
    grading = grade(points, frees, tuning, events, state.stop_cues())
    use, found, setup = _use(state, branch, window, setup)
    marked = None if every_stop else _shown(grading, len(branch.stops))
    stops = _stops(
        branch, points, frees, grading, _picker_start(branch, state), events=events, only=marked
    )
    _after_cut(state, stops, use.tokens, setup.on_disk)
    target = grading.target
    blocks: list[BlockInfo] = []
    words: list[WordInfo] = []
    if target is not None and state.index.detail:
        blocks, words = guidance_at(state, branch.stops[target])
    return Analysis(
        session_id=state.tree.session_id,
        path=path,
        project=state.tree.cwd,
        scope=state.scope.value,
        messages=len(branch.messages),
        skipped_lines=state.reader.skipped,
        context=_context(use, found, setup),
        tokens_estimated=estimated,
        wiggle=None if not np.isfinite(grading.wiggle) else round(grading.wiggle, 6),
        stops=stops,
        zones=[_zone_info(branch, zone) for zone in _zones_at(grading.zones, marked)],
        pick=_uuid(branch, grading.pick.best) if grading.pick else None,
        trade=[_uuid(branch, k) for k in grading.trade],
        blocks=blocks,
        borrowed_words=words,
        sidechain_only=state.tree.sidechain_only and bool(branch.messages),
        stops_total=None if every_stop else len(branch.stops),
        compacted_at=branch.boundary.uuid if branch.boundary is not None else None,
    )


def context_of(
    state: SessionState, *, window: int | None = None, setup: Setup | None = None
) -> dict[str, Any]:
    """`analyse_state(...).context` alone: how full the context is, without the curve (what a
    follower needs between analyses)."""
    use, found, setup = _use(state, state.branch(), window, setup)
    return _context(use, found, setup)


def _use(
    state: SessionState, branch: Branch, window: int | None, setup: Setup | None
) -> tuple[ContextUse, Limits, Setup]:
    """The context's use, the window and trigger found, and the setup they came from."""
    setup = setup or Setup()
    if window is not None:
        setup = replace(setup, window=window)
    tree = state.tree
    found = limits(tree.model, tree.largest_usage, tree.auto_compacted, setup)
    return context_use(tree, branch.boundary, found.window), found, setup


def _after_cut(
    state: SessionState, stops: list[Stop], now: int | None, on_disk: OnDisk | None
) -> None:
    """Each stop's menu (core/steps.py) and the context a cut there leaves (core/aftercut.py)."""
    dropped = state.ledger.before(np.asarray([stop.index for stop in stops], dtype=np.int64))
    newest = state.files.newest()
    there = asked_once(on_disk)
    for stop, before in zip(stops, dropped.tolist(), strict=True):
        stop.code_changed = state.code_changed(stop.uuid, stop.index)
        back = sum(tokens for _, tokens in state.files.read_back(stop.index, newest, there))
        stop.after = after_cut(now, before, back)


# A follower's urgent notice passes over this many newest stops unless a new task clearly
# begins there (daemon/policy.py): `_shown` keeps the latest graded stop before them.
NEWEST_PASSED = 2


def _shown(grading: Grading, count: int) -> list[int]:
    """Positions of the stops a follower shows, oldest first: the pick, the trade, and the
    ●● or ●●● zones from the latest one before the `NEWEST_PASSED` newest stops on."""
    shown = {*grading.trade}
    if grading.pick is not None:
        shown.add(grading.pick.best)
    for zone in reversed(grading.zones):
        if zone.grade.strength >= 2:
            shown.add(zone.best)
            if zone.best < count - NEWEST_PASSED:
                break
    return sorted(shown)


def _zones_at(zones: list[Zone], marked: list[int] | None) -> list[Zone]:
    """The zones whose best stop is among `marked` (all of them for None)."""
    if marked is None:
        return zones
    wanted = set(marked)
    return [zone for zone in zones if zone.best in wanted]


def guidance_at(state: SessionState, index: int) -> tuple[list[BlockInfo], list[WordInfo]]:
    """What a summary of messages 0..index-1 must keep: the six blocks and the borrowed words.

    Needs an index that keeps per-use detail (not a compact state).
    """
    branch = state.branch()
    blocks = _blocks(branch, blocks_before(state.index, index))
    ignored = _path_words(state.tree.cwd)
    words = _words(branch, borrowed_words(state.index, index, ignore=ignored))
    return blocks, words


def _stops(
    branch: Branch,
    points: Curve,
    frees: FloatArray,
    grading: Grading,
    picker_from: int,
    *,
    events: EventCodes,
    only: list[int] | None = None,
) -> list[Stop]:
    # Plain lists: reading numpy scalars one by one costs more than building the stops.
    best = {zone.best: zone for zone in grading.zones}
    chosen = np.arange(len(branch.stops)) if only is None else np.asarray(only, dtype=np.int64)
    sc = [None if math.isnan(v) else v for v in np.round(points.sc[chosen], 5).tolist()]
    shares = np.round(frees[chosen], 4).tolist()
    kept, borrowed = points.kept[chosen].tolist(), points.borrowed[chosen].tolist()
    eligible = np.asarray(grading.eligible)[chosen].tolist()
    named = [EVENTS[code] for code in events[chosen].tolist()]
    count = len(branch.stops)
    out = []
    for row, k in enumerate(chosen.tolist()):
        index = branch.stops[k]
        node = branch.messages[index]
        zone = best.get(k)
        out.append(
            Stop(
                uuid=node.uuid or "",
                index=index,
                below=count - k - 1,
                in_picker=node.pos > picker_from or node.pos in branch.kept,
                frees=shares[row],
                sc=sc[row],
                kept=kept[row],
                borrowed=borrowed[row],
                grade=zone.grade.value if zone else None,
                shape=zone.shape if zone else None,
                multiple=zone.multiple if zone else None,
                quote=node.quote,
                quote_raw=node.raw_quote,
                timestamp=node.timestamp,
                eligible=bool(eligible[row]),
                event=named[row].value if named[row] is not None else None,
                reasons=list(zone.reasons) if zone else None,
            )
        )
    return out


def _picker_start(branch: Branch, state: SessionState) -> int:
    """File position after which the picker lists every prompt: the newest compact boundary
    (before it, only the prompts it preserved: `Branch.kept`)."""
    if branch.boundary is not None:
        return branch.boundary.pos
    newest = state.tree.newest_boundary
    return newest.pos if newest is not None else -1


def _uuid(branch: Branch, k: int) -> str:
    return branch.messages[branch.stops[k]].uuid or ""


def _zone_info(branch: Branch, zone: Zone) -> ZoneInfo:
    return ZoneInfo(
        first=_uuid(branch, zone.first),
        best=_uuid(branch, zone.best),
        last=_uuid(branch, zone.last),
        grade=zone.grade.value,
        shape=zone.shape,
        multiple=zone.multiple,
        event=zone.event.value if zone.event is not None else None,
        reasons=list(zone.reasons),
    )


def _blocks(branch: Branch, blocks: list[Block]) -> list[BlockInfo]:
    out = []
    for block in blocks:
        lead = _turn_of(branch, block.first, block.last)
        out.append(
            BlockInfo(
                first=block.first,
                last=block.last,
                first_uuid=lead.uuid,
                borrowed=block.borrowed,
                share=round(block.share, 4),
                side_trip=block.side_trip,
                quote=lead.quote,
            )
        )
    return out


def _path_words(cwd: str | None) -> frozenset[str]:
    """The words of the project's own path: every tool call repeats them, no summary needs them.

    >>> sorted(_path_words("/Users/me/work/metrics-app"))
    ['app', 'me', 'metrics', 'users', 'work']
    """
    return frozenset(part.lower() for part in re.split(r"[^A-Za-z0-9_]+", cwd or "") if part)


def _turn_of(branch: Branch, first: int, last: int) -> Node:
    """The prompt of the turn message `first` belongs to, else the first prompt up to `last`.

    Messages before the first prompt the picker lists (a compaction summary, say) have no
    turn of their own; they are named by the block's first message.
    """
    at = bisect.bisect_right(branch.stops, first) - 1
    if at >= 0:
        return branch.messages[branch.stops[at]]
    inside = [i for i in branch.stops if first <= i <= last]
    return branch.messages[inside[0] if inside else first]


def _words(branch: Branch, words: list[BorrowedWord]) -> list[WordInfo]:
    return [
        WordInfo(word=w.word, uses=w.uses, first=w.first, first_uuid=branch.messages[w.first].uuid)
        for w in words
    ]


def _context(use: ContextUse, found: Limits, setup: Setup) -> dict[str, Any]:
    share = use.share
    told = setup.told
    trigger = found.trigger
    return {
        "tokens": use.tokens,
        "window": use.window,
        "share": None if share is None else round(share, 4),
        "source": use.source,
        "window_source": found.window_source,
        "model": found.model,
        "trigger": trigger,
        "trigger_source": found.trigger_source,
        "trigger_share": None if trigger is None else round(trigger / use.window, 4),
        "claude_share": None if told is None or told.share is None else round(told.share, 4),
    }
