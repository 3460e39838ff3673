"""Scores picks against gold stops, for any tuning, from curves computed once per case."""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass

import numpy as np

from evaluation.cases import Case
from keepd.api import load_state
from keepd.core.cues import StopCues
from keepd.core.curve import Curve, FloatArray, curve
from keepd.core.events import EventCodes
from keepd.core.grade import DEFAULT_TUNING, Grade, Grading, Tuning, Zone, grade
from keepd.core.index import IntArray
from keepd.core.messages import DEFAULT_POLICY, TextPolicy
from keepd.core.session import SessionState
from keepd.core.tokens import freed_shares, message_tokens
from keepd.core.tree import Branch, Scope


@dataclass(frozen=True, slots=True)
class Prepared:
    """A case's curve and freed shares, and where its gold stop lies on the curve."""

    case: Case
    curve: Curve
    frees: FloatArray
    gold: int | None  # position on the curve, None when the gold uuid is not a stop
    turns: list[list[str]]  # the content words of each stop's turn, for the baselines
    events: EventCodes | None = None  # the session's own breaks (a join's: its pieces')
    uuids: tuple[str | None, ...] = ()  # each stop's prompt uuid
    cues: StopCues | None = None  # what the prompts and tool calls say (core/cues.py)
    prompt_uses: IntArray | None = None  # content words of each stop's prompt


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    gold: int | None
    pick: int | None
    grade: str | None
    gold_grade: str | None
    distance: int | None


def prepare(case: Case, policy: TextPolicy = DEFAULT_POLICY) -> Prepared:
    """A case's curve over its whole history, computed once for any number of tunings."""
    return prepare_state(case, load_state(case.path, Scope.WHOLE, policy=policy))


def prepare_state(case: Case, state: SessionState) -> Prepared:
    branch = state.branch()
    tokens, _ = message_tokens(branch.messages)
    uuids = [branch.messages[i].uuid for i in branch.stops]
    gold = uuids.index(case.gold) if case.gold in uuids else None
    return Prepared(
        case,
        curve(state.index, branch.stops),
        freed_shares(tokens, branch.stops),
        gold,
        _turns(branch),
        _events(case, state, uuids),
        tuple(uuids),
        state.stop_cues(),
        state.index.uses_by_message[np.asarray(branch.stops, dtype=np.int64)],
    )


def _events(case: Case, state: SessionState, stop_uuids: list[str | None]) -> EventCodes:
    """The session's own breaks; in a stitched join, those of its pieces alone.

    The stitcher hangs each piece under the last one a minute later, and pieces from other
    projects differ in git branch there: an event at a junction would give it away, so the
    junctions' stops have none.
    """
    codes = state.stop_events(DEFAULT_TUNING.pause_minutes * 60)
    if case.junctions:
        at = {uuid: k for k, uuid in enumerate(stop_uuids)}
        codes[[at[uuid] for uuid in case.junctions if uuid in at]] = 0
    return codes


def _turns(branch: Branch) -> list[list[str]]:
    """Each stop's turn: its words and those of every message up to the next stop.

    Messages before the first stop (an injected summary, say) join the first turn. Words are
    interned: hundreds of cases repeat the same few thousand.
    """
    if not branch.stops:
        return []
    ends = [*branch.stops[1:], len(branch.messages)]
    starts = [0, *branch.stops[1:]]
    return [
        [sys.intern(word) for node in branch.messages[a:b] for word in node.words]
        for a, b in zip(starts, ends, strict=True)
    ]


def grading_of(prepared: Prepared, tuning: Tuning = DEFAULT_TUNING) -> Grading:
    """keepd's grading of a prepared case: the curve with the session's events and cues."""
    return grade(prepared.curve, prepared.frees, tuning, prepared.events, prepared.cues)


def judge(prepared: Prepared, tuning: Tuning) -> Outcome:
    grading = grading_of(prepared, tuning)
    return _outcome(prepared, grading, grading.pick)


def judge_outranking(prepared: Prepared, tuning: Tuning) -> Outcome:
    """As `judge`, were the session's events to outrank ●● zones (a variant weighed in the
    README, not keepd's rule): a ●●● zone still wins, else the later of the ●● pick and the
    stop of the latest event."""
    words = grade(prepared.curve, prepared.frees, tuning)
    pick = words.pick
    if prepared.events is not None and (pick is None or pick.grade is not Grade.CLEAR):
        # With no zone able to reach ●●, grade() makes its event pick whatever the words say.
        mute = dataclasses.replace(tuning, subtopic=math.inf, clear=math.inf)
        event = grade(prepared.curve, prepared.frees, mute, prepared.events).pick
        if event is not None and (pick is None or event.best > pick.best):
            pick = event
    return _outcome(prepared, words, pick)


def _outcome(prepared: Prepared, grading: Grading, zone: Zone | None) -> Outcome:
    pick = zone.best if zone else None
    gold = prepared.gold
    distance = None if pick is None or gold is None else abs(pick - gold)
    return Outcome(
        prepared.case,
        gold,
        pick,
        zone.grade.value if zone else None,
        _grade_at(grading, gold),
        distance,
    )


def _grade_at(grading: Grading, position: int | None) -> str | None:
    """The grade of the zone whose best stop is `position` or next to it."""
    if position is None:
        return None
    near = [z for z in grading.zones if abs(z.best - position) <= 1]
    return max(near, key=lambda z: z.grade.strength).grade.value if near else None


@dataclass(frozen=True, slots=True)
class Summary:
    cases: int
    exact: float
    within_one: float
    clear_at_gold: float
    clear_zones: float


def summarise(outcomes: list[Outcome], zones_per_case: list[int] | None = None) -> Summary:
    n = len(outcomes) or 1
    exact = sum(1 for o in outcomes if o.distance == 0) / n
    near = sum(1 for o in outcomes if o.distance is not None and o.distance <= 1) / n
    clear = sum(1 for o in outcomes if o.gold_grade == Grade.CLEAR.value) / n
    mean_zones = float(np.mean(zones_per_case)) if zones_per_case else 0.0
    return Summary(len(outcomes), exact, near, clear, mean_zones)


def clear_zone_count(prepared: Prepared, tuning: Tuning) -> int:
    zones = grading_of(prepared, tuning).zones
    return sum(1 for zone in zones if zone.grade is Grade.CLEAR)
