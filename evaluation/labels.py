"""Scores grades and picks against two readers' boundaries (corpus/labels/boundaries.json).

Each reader marked, on the prompts alone, every stop where a new piece of work begins, as a
`task` or a `step`, and the `newest` piece. What is scored counts only what both say:
- a task switch: a stop both readers call a task (within one stop of each other); it is
  found when a ●●● zone's best stop lies within one stop of it;
- a ●●● zone is false when no boundary of either reader (any kind) lies within one stop;
- the pick is scored where both readers' newest agree within one stop: found when it lies
  within one stop of either (a newest of 0, the whole session one piece: when nothing is
  picked, or the pick is within one stop of the start).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from evaluation.cases import HELD_OUT_LABELS, Case, label_file, shared_or_none
from evaluation.piece_gold import agreed
from evaluation.score import Prepared, grading_of, prepare
from keepd.core.grade import DEFAULT_TUNING, Grade, Grading, Tuning, grade

HELD_OUT = HELD_OUT_LABELS


@dataclass(frozen=True, slots=True)
class Source:
    """A file of two readers' labels, and whether any constant was chosen on it."""

    title: str
    path: Path
    held_out: bool


def sources(shared: Path) -> list[Source]:
    """The calibration labels (corpus/labels/boundaries.json), then the held-out ones."""
    found = [
        Source("boundaries.json", label_file(shared, False), False),
        Source("held_out_labels.json", label_file(shared, True), True),
    ]
    return [source for source in found if source.path.is_file()]


@dataclass(frozen=True, slots=True)
class Reader:
    """One reader's answer, by stop position: boundary kinds and the newest piece."""

    kinds: dict[int, str]
    newest: int | None

    def tasks(self) -> list[int]:
        """The stops this reader calls a new task, in order."""
        return sorted(k for k, kind in self.kinds.items() if kind == "task")


@dataclass(frozen=True, slots=True)
class Labelled:
    """A prepared session and its two readers."""

    prepared: Prepared
    readers: tuple[Reader, Reader]

    @property
    def name(self) -> str:
        return self.prepared.case.name

    def task_switches(self) -> list[tuple[int, int]]:
        """Stops both readers call a task, as (a's, b's) pairs within one stop of each other."""
        a, b = self.readers
        return agreed(a.tasks(), b.tasks())

    def boundaries(self) -> set[int]:
        """Every stop either reader marked, any kind."""
        return set(self.readers[0].kinds) | set(self.readers[1].kinds)

    def newest(self) -> tuple[int, int] | None:
        """Both readers' newest piece, when they agree within one stop."""
        a, b = (reader.newest for reader in self.readers)
        if a is None or b is None or abs(a - b) > 1:
            return None
        return (a, b)


def load(shared: Path, labels_path: Path | None = None) -> list[Labelled]:
    """The sessions a label file names (default: the calibration one), each prepared over
    its whole history."""
    path = labels_path or shared / "corpus" / "labels" / "boundaries.json"
    labels = orjson.loads(path.read_bytes())
    folder = shared / "corpus" / "sessions"
    out = []
    for session, label in sorted(labels.items()):
        case = Case(session, folder / session, None, "labelled")
        prepared = prepare(case)
        at = {uuid: k for k, uuid in enumerate(prepared.uuids)}
        readers = label["readers"]
        pair = (reader_of(readers["a"], at), reader_of(readers["b"], at))
        out.append(Labelled(prepared, pair))
    return out


def reader_of(answer: dict[str, object], at: dict[str | None, int]) -> Reader:
    """A reader's marks by stop position, matched on the prompt's uuid."""
    marks = answer.get("boundaries")
    kinds = {}
    for mark in marks if isinstance(marks, list) else []:
        k = at.get(mark.get("uuid"))
        if k is not None:
            kinds[k] = str(mark.get("kind"))
    newest = answer.get("newest")
    position = at.get(newest.get("uuid")) if isinstance(newest, dict) else None
    if position is None and isinstance(newest, dict) and newest.get("index") == 0:
        position = 0
    return Reader(kinds, position)


@dataclass(frozen=True, slots=True)
class SessionScore:
    """One labelled session: its switches found, its false ●●● zones, its pick."""

    name: str
    stops: int
    switches: list[tuple[int, int]]
    found: list[bool]
    clear: list[int]  # best stops of the ●●● zones
    false_clear: list[int]
    newest: tuple[int, int] | None
    pick: int | None
    pick_grade: str | None
    pick_near: bool | None  # None: the readers' newest differ


def score_session(labelled: Labelled, tuning: Tuning = DEFAULT_TUNING) -> SessionScore:
    return score_grading(labelled, grading_of(labelled.prepared, tuning))


def score_words(labelled: Labelled, tuning: Tuning = DEFAULT_TUNING) -> SessionScore:
    """The score of the grades before the cues: the words and the session's events."""
    p = labelled.prepared
    return score_grading(labelled, grade(p.curve, p.frees, tuning, p.events))


def score_grading(labelled: Labelled, grading: Grading) -> SessionScore:
    """The score of one grading of a labelled session (any rule that yields zones and a pick)."""
    clear = [zone.best for zone in grading.zones if zone.grade is Grade.CLEAR]
    pick = grading.pick.best if grading.pick is not None else None
    grade_of = grading.pick.grade.value if grading.pick is not None else None
    return score_stops(labelled, clear, pick, grade_of)


def score_stops(
    labelled: Labelled, clear: Sequence[int], pick: int | None, pick_grade: str | None = None
) -> SessionScore:
    """The score of ●●● at the stops `clear` and of `pick` (keepd's, or a baseline's)."""
    switches = labelled.task_switches()
    found = [any(_near(z, pair) for z in clear) for pair in switches]
    marked = labelled.boundaries()
    false_clear = [z for z in clear if not any(abs(z - k) <= 1 for k in marked)]
    newest = labelled.newest()
    return SessionScore(
        labelled.name,
        len(labelled.prepared.curve),
        switches,
        found,
        list(clear),
        false_clear,
        newest,
        pick,
        pick_grade,
        pick_near(newest, pick),
    )


def pick_near(newest: tuple[int, int] | None, pick: int | None) -> bool | None:
    """Whether `pick` lies within one stop of the readers' `newest` (None when they differ);
    a newest of 0 (one piece) is found by no pick or one at the start."""
    if newest is None:
        return None
    if max(newest) == 0:
        return pick is None or pick <= 1
    return pick is not None and _near(pick, newest)


def _near(stop: int, pair: tuple[int, int]) -> bool:
    return any(abs(stop - k) <= 1 for k in pair)


@dataclass(frozen=True, slots=True)
class LabelSummary:
    """The three figures over a set of labelled sessions."""

    switches: int
    found: int
    clear: int
    false_clear: int
    sessions: int  # where the readers' newest agree
    picks_near: int

    @property
    def found_share(self) -> float:
        return self.found / max(self.switches, 1)

    @property
    def clear_at_boundary(self) -> float:
        return (self.clear - self.false_clear) / max(self.clear, 1)

    @property
    def pick_share(self) -> float:
        return self.picks_near / max(self.sessions, 1)

    def line(self) -> str:
        return (
            f"task switches with ●●● within one: {self.found}/{self.switches} "
            f"({self.found_share:.0%}); ●●● zones at a reader boundary: "
            f"{self.clear - self.false_clear}/{self.clear} ({self.clear_at_boundary:.0%}); "
            f"pick within one of the newest: {self.picks_near}/{self.sessions} "
            f"({self.pick_share:.0%})"
        )


def summarise(scores: Sequence[SessionScore]) -> LabelSummary:
    judged = [s for s in scores if s.pick_near is not None]
    return LabelSummary(
        switches=sum(len(s.switches) for s in scores),
        found=sum(sum(s.found) for s in scores),
        clear=sum(len(s.clear) for s in scores),
        false_clear=sum(len(s.false_clear) for s in scores),
        sessions=len(judged),
        picks_near=sum(1 for s in judged if s.pick_near),
    )


def session_rows(scores: Sequence[SessionScore]) -> list[list[object]]:
    """One row per session for a table: switches found, ●●● zones, the pick."""
    rows: list[list[object]] = []
    for s in scores:
        missed = [pair[0] for pair, hit in zip(s.switches, s.found, strict=True) if not hit]
        rows.append(
            [
                s.name,
                s.stops,
                f"{sum(s.found)}/{len(s.switches)}",
                ", ".join(map(str, missed)) or "-",
                ", ".join(map(str, s.clear)) or "-",
                ", ".join(map(str, s.false_clear)) or "-",
                "-" if s.newest is None else "/".join(map(str, sorted(set(s.newest)))),
                "-" if s.pick is None else f"{s.pick} {s.pick_grade}",
                {True: "yes", False: "no", None: "-"}[s.pick_near],
            ]
        )
    return rows


ROW_HEADERS = [
    "session",
    "stops",
    "task switches found",
    "missed",
    "●●● at",
    "●●● off any boundary",
    "newest",
    "pick",
    "within one",
]


def calibration_for(prog: str, argv: list[str] | None) -> list[Labelled] | None:
    """A probe's command line (`--shared`) and the calibration sessions it reads; None, said
    in one line, when no shared folder is found."""
    parser = argparse.ArgumentParser(prog=f"python -m evaluation.probes.{prog}")
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, prog)
    if shared is None:
        return None
    return load(shared, next(s for s in sources(shared) if not s.held_out).path)
