"""Grades the curve's zones against its own wiggle and chooses the pick, or the trade.

A zone is a peak of the curve at a change of work, and its height is measured in wiggles:
the median step between neighbouring stops of the same curve (measure.md). The session's
cues (core/cues.py, core/events.py) grade too: in the labelled sessions people call a new
task where work was just finished and the session paused or changed branch far more often
than where the words peak. Each zone says why it has its grade (`Zone.reasons`). The pick is
the stop where the newest piece of work most likely begins (core/newest.py's model, made in
core/newest_pick.py); without cues, with `Tuning.newest` None, or under the model's floor, it
is the latest zone of the strongest rank (with no ●● zone, an event's stop). The
constants were chosen on calibration data with `python -m evaluation` (docs/EVALUATION.md
names the data behind each).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from keepd.core.cued import bare_stops, event_pick, past_bare, with_points
from keepd.core.cues import StopCues
from keepd.core.curve import Curve, FloatArray
from keepd.core.events import EventCodes
from keepd.core.heights import eligible_stops, heights, multiples, peak_heights, rises, wiggle_of
from keepd.core.newest import DEFAULT_NEWEST, Column
from keepd.core.newest_pick import NEWEST_REASON, Chosen, columns, newest_at, newest_pick
from keepd.core.points import Scored, score
from keepd.core.settle import closing_prompts, settled
from keepd.core.sure import later_sure, sure_cues, sure_only
from keepd.core.zone import DEFAULT_TUNING, FALLING_MARK, STRENGTH, Grade, Tuning, Zone

__all__ = [
    "DEFAULT_TUNING",
    "FALLING_MARK",
    "NEWEST_REASON",
    "Grade",
    "Graded",
    "Grading",
    "Tuning",
    "Zone",
    "before_pick",
    "grade",
    "heights",
    "multiples",
    "newest_at",
    "rises",
]


@dataclass(frozen=True, slots=True)
class Grading:
    """Zones oldest first, the wiggle, the pick and (without a ●● zone) the trade."""

    wiggle: float
    eligible: npt.NDArray[np.bool_]
    zones: list[Zone]
    pick: Zone | None
    trade: list[int]

    @property
    def target(self) -> int | None:
        """The stop to recommend: the pick's, else the middle of the trade."""
        if self.pick is not None:
            return self.pick.best
        return self.trade[len(self.trade) // 2] if self.trade else None


def grade(
    curve: Curve,
    frees: FloatArray,
    tuning: Tuning = DEFAULT_TUNING,
    events: EventCodes | None = None,
    cues: StopCues | None = None,
) -> Grading:
    """Finds, grades and ranks the zones of `curve`; `frees` is each stop's freed share,
    `events` the session's own break before each stop (core/events.py) and `cues` what its
    prompts and tool calls say (core/cues.py), if known."""
    graded = before_pick(curve, frees, tuning, events, cues)
    eligible, zones, pick = graded.eligible, graded.zones, None
    if tuning.newest is not None and graded.scored is not None and cues is not None:
        chosen = Chosen(graded.zones, graded.scored, graded.heights, graded.wiggle)
        pick, zones = newest_pick(chosen, curve, frees, tuning=tuning, events=events, cues=cues)
    if pick is None:  # under the model's floor, the rule before it: no ●●● zone goes unpicked
        pick, zones = fallback_pick(
            zones,
            curve,
            frees,
            tuning=tuning,
            events=events,
            heights=graded.heights,
            bare=bare_stops(cues, len(curve)),
        )
    if graded.scored is not None:  # ●●● where a cue says the work before is over (issue 27)
        sure = sure_cues(tuning.points.sure)
        pick, zones = sure_only(pick, zones, sure, tuning.points.sure_height)
        pick = later_sure(pick, zones, len(curve), tuning.recent, sure)
    pick, zones = settled(pick, zones, closing_prompts(graded.scored, len(curve)))
    eligible[[zone.best for zone in zones]] = True
    # A prompt with no content of its own (a built-in command such as /compact, shell-mode
    # input, "commit") is no stop to suggest: the work begins at the prompt after it.
    offered = graded.points[~bare_stops(cues, len(curve))[graded.points]]
    trade = [] if pick is not None else _trade(curve, frees, offered)
    return Grading(graded.wiggle, eligible, zones, pick, trade)


@dataclass(frozen=True, slots=True)
class Graded:
    """What grading finds before the pick: the zones and what they were measured by
    (`eligible` is the caller's own array: `grade` marks its zones' stops in it)."""

    wiggle: float
    eligible: npt.NDArray[np.bool_]
    points: np.ndarray
    heights: FloatArray  # in wiggles
    zones: list[Zone]
    scored: Scored | None  # the cues' points, when the cues are known


def before_pick(
    curve: Curve,
    frees: FloatArray,
    tuning: Tuning,
    events: EventCodes | None,
    cues: StopCues | None,
) -> Graded:
    """What `grade` reads before it makes the pick: the eligible stops, the wiggle, every
    stop's height in wiggles, the words' zones (graded with the cues' points when `cues` is
    known) and those points. Probes that try another pick rule start from it."""
    eligible = eligible_stops(curve, frees, tuning)
    points = np.flatnonzero(eligible)
    wiggle = wiggle_of(curve.sc[points])
    heights, rise = peak_heights(curve, tuning)
    heights = heights / wiggle if np.isfinite(wiggle) else np.zeros(len(heights))
    bare = bare_stops(cues, len(curve))
    zones: list[Zone] = []
    if np.isfinite(wiggle):
        zones = _zones(
            curve, heights, rise / wiggle, points=points, tuning=tuning, bare=bare, wiggle=wiggle
        )
    scored = None
    if cues is not None and len(cues) == len(curve):
        pause = tuning.pause_minutes * 60
        scored = score(cues, events, heights >= tuning.subtopic, tuning.points, pause)
        zones = with_points(
            zones,
            curve,
            frees,
            tuning=tuning,
            scored=scored,
            cues=cues,
            heights=heights,
            wiggle=wiggle,
        )
    return Graded(wiggle, eligible, points, heights, zones, scored)


def newest_features(
    curve: Curve,
    frees: FloatArray,
    tuning: Tuning = DEFAULT_TUNING,
    events: EventCodes | None = None,
    cues: StopCues | None = None,
) -> list[Column]:
    """Every stop's features for the newest-work model (core/newest.py), by name, and none
    without cues: what `python -m evaluation.fit_newest` fits on."""
    graded = before_pick(curve, frees, tuning, events, cues)
    if graded.scored is None:
        return []
    cap = (tuning.newest or DEFAULT_NEWEST).height_cap
    return columns(graded.scored, graded.zones, graded.heights, events, cap)


def _zones(
    curve: Curve,
    heights: FloatArray,
    rise: FloatArray,
    *,
    points: np.ndarray,
    tuning: Tuning,
    bare: npt.NDArray[np.bool_],
    wiggle: float,
) -> list[Zone]:
    """Local maxima of the height among eligible stops, graded by their multiple (`heights`
    and `rise` are in wiggles).

    A clear change of work rises into its stop as well as falling after it: a zone that
    barely rises into its stop (less than `clear_rise` wiggles; the falling mark) is at
    most ●●.
    """
    allowed = np.zeros(len(heights), dtype=bool)
    allowed[points] = True
    zones: list[Zone] = []
    for k in _local_maxima(heights, points, tuning.faint).tolist():
        h = float(heights[k])
        grade = _classify(h, tuning)
        if grade is Grade.CLEAR and rise[k] < tuning.clear_rise:
            grade = Grade.SUBTOPIC
        best = _best_stop(curve.sc, heights, allowed, k, tuning.near_peak)
        best = past_bare(curve.sc, allowed, bare, best, wiggle)
        falling = best > 0 and bool(curve.sc[best] < curve.sc[best - 1])
        first, last = min(k, best), max(k, best)
        zone = Zone(first, last, best, grade, round(h, 2), falling=falling, reasons=("words",))
        zones.append(zone)
    return zones


def _best_stop(
    sc: FloatArray, heights: FloatArray, allowed: np.ndarray, peak: int, near: float
) -> int:
    """The stop of a zone to cut at: of the peak and its neighbours nearly as high, the most
    self-contained one (the earlier on a tie).

    The means behind the height make a peak two stops wide lean toward its later stop: the
    earlier one's fall counts the later one's high value among the stops after it.
    """
    floor = near * heights[peak]
    nearby = [j for j in (peak - 1, peak, peak + 1) if 0 <= j < len(sc) and allowed[j]]
    return max((j for j in nearby if heights[j] >= floor), key=lambda j: (sc[j], -j))


def _local_maxima(heights: FloatArray, points: np.ndarray, floor: float) -> np.ndarray:
    """Eligible stops at least `floor` high and not lower than an eligible neighbour."""
    allowed = np.zeros(len(heights) + 2, dtype=bool)
    allowed[points + 1] = True
    padded = np.concatenate([[-np.inf], heights, [-np.inf]])
    left = np.where(allowed[points], padded[points], -np.inf)
    right = np.where(allowed[points + 2], padded[points + 2], -np.inf)
    here = heights[points]
    keep = (here >= floor) & (here >= left) & (here >= right)
    return np.asarray(points[keep])


def _classify(multiple: float, tuning: Tuning) -> Grade:
    if multiple >= tuning.clear:
        return Grade.CLEAR
    if multiple >= tuning.subtopic:
        return Grade.SUBTOPIC
    return Grade.FAINT


def fallback_pick(
    zones: list[Zone],
    curve: Curve,
    frees: FloatArray,
    *,
    tuning: Tuning,
    events: EventCodes | None,
    heights: FloatArray,
    bare: npt.NDArray[np.bool_] | None = None,
) -> tuple[Zone | None, list[Zone]]:
    """The pick and the zones by the rule before the newest-work model: the strongest zone,
    else the stop of the latest event (a zone added for it)."""
    pick = strongest_zone(zones)
    if pick is None and events is not None:
        pick = event_pick(curve, frees, tuning, events, heights, bare=bare)
        if pick is not None:
            zones = sorted([*zones, pick], key=lambda zone: zone.best)
    return pick, zones


def strongest_zone(zones: list[Zone]) -> Zone | None:
    """The pick rule before the newest-work model: among the strongest class present, the
    latest zone; none when no zone reaches ●●.

    The words' own ●●● zones rank above those the cues made ●●●. A ● zone is barely above
    the noise: it is shown, but the trade is offered instead of presenting it as the place
    to stop.
    """
    found: Zone | None = None
    found_rank = (Grade.SUBTOPIC.strength, False)  # the least a pick may be
    top = (Grade.CLEAR.strength, True)
    # From the newest back, the first of a higher rank: the latest of the highest (zones are
    # thousands on every analysis, and the newest of the top rank ends the search).
    for zone in reversed(zones):
        rank = (STRENGTH[zone.grade], not zone.cued)
        if rank > found_rank or (found is None and rank == found_rank):
            found, found_rank = zone, rank
            if rank == top:
                break
    return found


def _trade(curve: Curve, frees: FloatArray, points: np.ndarray) -> list[int]:
    """Three stops, light to deep: the most self-contained in each third of what can be freed."""
    if len(points) == 0:
        return []
    share = frees[points]
    top = float(share.max()) or 1.0
    chosen: list[int] = []
    for low, high in ((0.0, 1 / 3), (1 / 3, 2 / 3), (2 / 3, 1.01)):
        band = points[(share >= low * top) & (share < high * top)]
        if len(band):
            chosen.append(int(band[np.argmax(curve.sc[band])]))
    return chosen
