"""What grading yields and is tuned by: the grades, a graded zone, the grading constants."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

from keepd.core.events import Event
from keepd.core.newest import DEFAULT_NEWEST, Newest
from keepd.core.points import DEFAULT_POINTS, Points


class Grade(StrEnum):
    """How clear a zone is, strongest first."""

    CLEAR = "●●●"
    SUBTOPIC = "●●"
    FAINT = "●"

    @property
    def strength(self) -> int:
        return STRENGTH[self]


# A grade's strength, for the loops over a long session's thousand zones (no property call).
STRENGTH = {grade: len(grade.value) for grade in Grade}
FALLING_MARK = "▔▔▁"


@dataclass(frozen=True, slots=True)
class Tuning:
    """The constants of grading, calibrated by the evaluation (docs/measure.md, "Grading")."""

    clear: float = 6.0
    subtopic: float = 4.0
    faint: float = 2.5
    min_kept_uses: int = 60
    min_kept_share: float = 0.04
    min_frees: float = 0.02
    ahead: int = 6
    behind: int = 6
    rise_weight: float = 1.5
    kept_power: float = 0.35  # heights are weighted by the kept part's share to this power
    clear_rise: float = 0.5  # ●●● also needs a rise into the stop of this many wiggles
    near_peak: float = 0.8  # a neighbour this close to the peak's height may be its best stop
    pause_minutes: float = 10.0  # a prompt this long after the message before it: an event
    points: Points = DEFAULT_POINTS  # the cues' points and the total for ●●● (core/points.py)
    # A ●●● zone among this many stops before the newest outranks an earlier pick (core/sure.py);
    # 0: the pick as the model makes it.
    recent: int = 5
    # The model of where the newest piece of work begins (core/newest.py); None: the latest
    # zone of the strongest rank, as before it.
    newest: Newest | None = DEFAULT_NEWEST


DEFAULT_TUNING = Tuning()


class Zone(NamedTuple):
    """A graded zone: stops `first..last` (positions in the curve), best at `best`.

    A named tuple rather than a dataclass: a long session has a thousand zones, built on
    every analysis, and `Zone._make` builds them from columns without a Python call each.
    """

    first: int
    last: int
    best: int
    grade: Grade
    multiple: float
    falling: bool = False
    event: Event | None = None  # set for the pick an event made (no zone reached ●●)
    reasons: tuple[str, ...] = ()  # what graded it: "words", then the cues
    cued: bool = False  # ●●● by weaker cues (core/points.py), not the words: ranks below them

    @property
    def shape(self) -> str:
        """The mark shown for the zone: its grade, the falling mark when it only falls, or
        the mark of the event that made it."""
        if self.event is not None:
            return self.event.mark
        return FALLING_MARK if self.falling else self.grade.value

    @property
    def rank(self) -> tuple[int, bool]:
        """Stronger grades first; of two ●●●, the words' own above one the cues made."""
        return self.grade.strength, not self.cued
