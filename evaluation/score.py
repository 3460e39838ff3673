"""Scores picks against gold stops, for any tuning, from curves computed once per case."""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Sequence
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
    golds: tuple[int, ...] = ()  # the stops at the gold (a join's: piece_gold.py); () `gold`

    def at_gold(self) -> tuple[int, ...]:
        """The stops a pick may land on to be at the gold."""
        return self.golds or (() if self.gold is None else (self.gold,))


@dataclass(frozen=True, slots=True)
class Outcome:
    """A pick against the gold; `gold` is the case's own stop (a join's junction), `golds`
    every stop at the gold, `distance` the pick's to the nearest of them."""

    case: Case
    gold: int | None
    pick: int | None
    grade: str | None
    gold_grade: str | None  # the grade at (or next to) `gold`
    distance: int | None
    golds: tuple[int, ...] = ()

    @property
    def moved(self) -> bool:
        """The gold is not the case's own stop alone (a join's last piece has a newer task)."""
        return self.golds != (() if self.gold is None else (self.gold,))

    @property
    def junction_distance(self) -> int | None:
        """The pick's distance to the case's own stop alone (a join's junction)."""
        return None if self.pick is None or self.gold is None else abs(self.pick - self.gold)


def prepare(case: Case, policy: TextPolicy = DEFAULT_POLICY) -> Prepared:
    """A case's curve over its whole history, computed once for any number of tunings."""
    return prepare_state(case, load_state(case.path, Scope.WHOLE, policy=policy))


def prepare_state(case: Case, state: SessionState) -> Prepared:
    branch = state.branch()
    tokens, _ = message_tokens(branch.messages)
    uuids = [branch.messages[i].uuid for i in branch.stops]
    gold = uuids.index(case.gold) if case.gold in uuids else None
    golds = tuple(sorted(uuids.index(u) for u in case.targets if u in uuids))
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
        golds,
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
        [sys.intern(word) for node in branch.messages[a:b] for word in node.take_words()]
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


def judge_grading(prepared: Prepared, grading: Grading) -> Outcome:
    """Any grading's pick (a variant's, say) against the case's gold."""
    return _outcome(prepared, grading, grading.pick)


def _outcome(prepared: Prepared, grading: Grading, zone: Zone | None) -> Outcome:
    pick = zone.best if zone else None
    golds = prepared.at_gold()
    distance = None if pick is None or not golds else min(abs(pick - k) for k in golds)
    return Outcome(
        prepared.case,
        prepared.gold,
        pick,
        zone.grade.value if zone else None,
        _grade_at(grading, prepared.gold),
        distance,
        golds,
    )


def _grade_at(grading: Grading, position: int | None) -> str | None:
    """The grade of the zone whose best stop is `position` or next to it."""
    if position is None:
        return None
    near = [z for z in grading.zones if abs(z.best - position) <= 1]
    return max(near, key=lambda z: z.grade.strength).grade.value if near else None


@dataclass(frozen=True, slots=True)
class Summary:
    """Picks at the gold and within one stop of it, and the same for the cases' own stop
    alone (a join's junction); `moved` cases have a gold beyond that stop."""

    cases: int
    exact: float
    within_one: float
    clear_at_gold: float  # the case's own stop (a join's junction) graded ●●●
    clear_zones: float
    junction_exact: float = 0.0
    junction_within_one: float = 0.0
    moved: int = 0


def summarise(outcomes: Sequence[Outcome], zones_per_case: list[int] | None = None) -> Summary:
    n = len(outcomes) or 1
    clear = sum(1 for o in outcomes if o.gold_grade == Grade.CLEAR.value) / n
    mean_zones = float(np.mean(zones_per_case)) if zones_per_case else 0.0
    return Summary(
        len(outcomes),
        _share([o.distance for o in outcomes], 0),
        _share([o.distance for o in outcomes], 1),
        clear,
        mean_zones,
        _share([o.junction_distance for o in outcomes], 0),
        _share([o.junction_distance for o in outcomes], 1),
        sum(1 for o in outcomes if o.moved),
    )


def _share(distances: Sequence[int | None], reach: int) -> float:
    return sum(1 for d in distances if d is not None and d <= reach) / (len(distances) or 1)


def clear_zone_count(prepared: Prepared, tuning: Tuning) -> int:
    zones = grading_of(prepared, tuning).zones
    return sum(1 for zone in zones if zone.grade is Grade.CLEAR)
