"""Scores each stop by its cues in points: the table that grades a change of work ●●● where
the words cannot see it.

In the labelled sessions the words rarely peak where both readers call a new task: work
inside one project keeps its vocabulary. What people read instead is in the session: work
finished in the turn before, a git branch switch or a long pause, a long self-contained
prompt (above all after short replies), a prompt that says it turns to the next thing, a
prompt whose words no earlier prompt used, files never touched before; and against it, a
prompt that opens as a reply to the turn before ("yes", "but", "also"). Each cue earns points;
a stop whose total reaches `clear` and is not beaten by a neighbour is a place people call a
new task. The points are a logistic model's coefficients (evaluation/fit_points.py, ridge 1),
fitted on the calibration labels (`../shared/corpus/labels/boundaries.json`: stops both
readers call a task against the usable stops no reader marked within one stop) and rounded
to halves; `clear` was chosen on the same stops, `ranked` on the same sessions' newest piece
and the calibration joins (docs/EVALUATION.md, "Which data chose each constant").
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from keepd.core.cues import BARE, CLOSES, COMMAND, TURNS, StopCues
from keepd.core.events import EVENTS, Event, EventCodes

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


# The cues that say the work before is over (issue 27: they carry across projects): work
# finished, a branch switch, a pause, a prompt that turns to the next thing, one after a prompt
# that closed the work.
SURE_FIELDS = ("finished", "branch", "pause", "turns", "after_closing")


@dataclass(frozen=True, slots=True)
class Points:
    """Points per cue and the total that makes ●●● (calibration labels, rounded logit)."""

    finished: float = 1.5  # a commit, push, merge or PR in the turn before (logit 1.67)
    branch: float = 1.0  # another git branch than the stop before (0.89)
    pause: float = 1.5  # a pause of `Tuning.pause_minutes` or more before the prompt (1.54)
    long_prompt: float = 1.0  # a prompt of `long_words` content words or more (0.98)
    long_words: int = 20
    after_short: float = 1.0  # a prompt of `fuller` words or more after a command or one of
    fuller: int = 10  # `short` words or fewer: a self-contained request after replies (0.88)
    short: int = 3
    turns: float = 1.5  # the prompt says it turns to the next thing ("next issue", 1.42)
    after_closing: float = 1.5  # the prompt before said the work is done ("that works", 1.60)
    new_files: float = 0.5  # most files of the next `turns_ahead` turns never touched (0.49)
    fresh_share: float = 0.6
    turns_ahead: int = 3
    novel: float = 1.5  # `novel_share` or more of the prompt's words no earlier prompt used,
    novel_share: float = 0.6  # of `novel_words` content words or more (1.50)
    novel_words: int = 5
    replies: float = -1.0  # the prompt opens as a reply to the turn before: "yes", "but" (-1.23)
    words: float = 0.5  # the words stand `Tuning.subtopic` wiggles high there (0.54)
    bare: float = -1.0  # a prompt with no content of its own (-0.82)
    clear: float = 3.0  # a total this high, not beaten next to it, is ●●●
    ranked: float = 4.5  # ... and ranks with the words' own ●●● zones for the pick
    # ●●● stays only where one of these cues says the work before is over (core/sure.py);
    # () keeps every ●●● zone, as before issue 27.
    sure: tuple[str, ...] = SURE_FIELDS
    sure_height: float = 10.0  # ... or where the words stand this many wiggles high


DEFAULT_POINTS = Points()

# Each cue's name in a zone's reasons, by the `Points` field that gives its points.
SIGNAL_NAMES = {
    "finished": "work finished",
    "branch": "git branch",
    "pause": "pause",
    "long_prompt": "long prompt",
    "after_short": "after short replies",
    "turns": "says it turns to the next thing",
    "after_closing": "the prompt before closed the work",
    "new_files": "new files",
    "novel": "new words",
    "replies": "replies to the turn before",
    "words": "words",
    "bare": "no content of its own",
}


class Signal(NamedTuple):
    """One cue: the `Points` field that gives its points, its name in reasons, its points,
    and the stops where it is present."""

    field: str
    name: str
    value: float
    present: BoolArray


@dataclass(frozen=True, slots=True)
class Scored:
    """Every stop's total points, and each cue's points and stops (for the reasons)."""

    totals: FloatArray
    signals: list[Signal]

    def reasons(self, k: int) -> tuple[str, ...]:
        """The cues that earned stop `k` points, by name (read for the few zones only)."""
        return tuple(s.name for s in self.signals if s.value > 0 and s.present[k])

    def reasons_at(self, stops: IntArray) -> list[tuple[str, ...]]:
        """`reasons` of each of `stops`, read in one pass over the signals: each stop's set
        of cues as the bits of one number, named once per distinct set."""
        earning = [s for s in self.signals if s.value > 0]
        names = [s.name for s in earning]
        sets = np.zeros(len(stops), dtype=np.int64)
        for bit, signal in enumerate(earning):
            sets |= np.asarray(signal.present, dtype=bool)[stops].astype(np.int64) << bit
        named: dict[int, tuple[str, ...]] = {}
        for one in set(sets.tolist()):
            named[one] = tuple(compress(names, ((one >> bit) & 1 for bit in range(len(names)))))
        return list(map(named.__getitem__, sets.tolist()))


def score(
    cues: StopCues,
    events: EventCodes | None,
    words_high: BoolArray,
    table: Points,
    pause_seconds: float = 600.0,
) -> Scored:
    """The points of every stop: `events` are the session's own (core/events.py), `words_high`
    says where the words stand a ●● zone high, `pause_seconds` makes a pause."""
    stops = len(cues)
    named = _signals(cues, events, words_high, table, pause_seconds)
    totals = np.zeros(stops, dtype=np.float64)
    for signal in named:
        totals += signal.value * signal.present
    return Scored(totals, named)


def _signals(
    cues: StopCues, events: EventCodes | None, words_high: BoolArray, table: Points, pause: float
) -> list[Signal]:
    stops = len(cues)
    codes = events if events is not None and len(events) == stops else np.zeros(stops, np.int8)
    words = cues.words if cues.words is not None else np.zeros(stops, dtype=np.int64)
    # A command's words are its markup: it is neither long nor a self-contained request.
    command = (cues.marks & (BARE | COMMAND)) != 0
    text = ~command
    short = np.concatenate([[False], (words[:-1] <= table.short) | command[:-1]])
    after_short = text & (words >= table.fuller) & short[:stops]
    closed = np.concatenate([[False], (cues.marks[:-1] & CLOSES) != 0])[:stops]
    fresh = cues.fresh_share(table.turns_ahead) >= table.fresh_share
    paused = cues.pause >= pause if cues.pause is not None else np.zeros(stops, dtype=bool)
    asides = cues.aside()
    novel = text & (asides.novelty >= table.novel_share) & (words >= table.novel_words)
    present = {
        "finished": np.asarray(cues.finished, dtype=bool),
        "branch": codes == EVENTS.index(Event.BRANCH),
        # A pause counts beside a branch switch: the session's event names only the switch.
        "pause": (codes == EVENTS.index(Event.PAUSE)) | paused,
        "long_prompt": text & (words >= table.long_words),
        "after_short": after_short,
        "turns": (cues.marks & TURNS) != 0,
        "after_closing": closed,
        "new_files": fresh,
        "novel": novel,
        "replies": text & asides.replies,
        "words": words_high,
        "bare": (cues.marks & BARE) > 0,
    }
    return [
        Signal(field, SIGNAL_NAMES[field], getattr(table, field), present[field])
        for field in present
    ]


def clear_stops(totals: FloatArray, usable: BoolArray, clear: float) -> list[int]:
    """Usable stops whose total reaches `clear` and is not beaten by a usable neighbour (of
    two equal neighbours, the later: the work begins at the prompt after).

    >>> clear_stops(np.array([0, 2.5, 2.5, 0, 3.0, 1.0]), np.ones(6, bool), 2.0)
    [2, 4]
    """
    masked = np.where(usable, totals, -np.inf)
    left = np.concatenate([[-np.inf], masked[:-1]])
    right = np.concatenate([masked[1:], [-np.inf]])
    keep = usable & (masked >= clear) & (masked >= left) & (masked > right)
    return list(np.flatnonzero(keep).tolist())
