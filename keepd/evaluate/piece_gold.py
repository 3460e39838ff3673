"""A join's gold as a reader would give it from its pieces' labels: where its newest task begins.

A stitched join's last piece is the tail of a real session. The join's newest task begins at
the junction, unless that session's readers marked a new task inside the tail: then it begins
there, and a pick there is right for a person ("summarize up to the newest work"). The readers'
task boundaries are mapped into the join by the prompt's uuid. Where both readers call a stop a
task (within one stop of each other, as labels.py counts task switches), the newest such pair
inside the tail is the gold, and a pick at either reader's stop is at it; a later task only one
reader marked counts beside that (or beside the junction), either reader's answer being right.
Steps do not move the gold: a step continues the task begun at the junction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from keepd.core.grade import Grading
from keepd.evaluate.labels import Labelled, agreed
from keepd.evaluate.score import Prepared, grading_of


@dataclass(frozen=True, slots=True)
class PieceGold:
    """The join stops a pick may land on (exact), and how they were found."""

    stops: tuple[int, ...]
    how: str  # "junction", "agreed", "disagreed"

    @property
    def moved(self) -> bool:
        """The gold is not the junction alone."""
        return self.how != "junction"


def piece_gold(
    junction: int,
    join_uuids: Sequence[str | None],
    piece_uuids: Sequence[str | None],
    tasks: tuple[Sequence[int], Sequence[int]],
) -> PieceGold:
    """The gold of a join whose last piece begins at stop `junction` (`join_uuids` the join's
    stop uuids), when the piece's whole session has `piece_uuids` and its two readers called
    stops `tasks` of that session new tasks."""
    at_join = {uuid: k for k, uuid in enumerate(join_uuids) if uuid is not None}
    in_piece = {uuid: k for k, uuid in enumerate(piece_uuids) if uuid is not None}
    # The tail's first stop in the session: the junction's own prompt may not be a stop there
    # (a /compact that opens the tail is one only as a join's first prompt of a piece).
    start = next((in_piece[u] for u in join_uuids[junction:] if u in in_piece), len(piece_uuids))

    def into_join(stops: Sequence[int]) -> set[int]:
        found = {_into_join(k, start, junction, piece_uuids, at_join) for k in stops}
        return {k for k in found if k is not None}

    pairs = agreed(sorted(tasks[0]), sorted(tasks[1]))
    inside = [stops for stops in map(into_join, pairs) if stops - {junction}]
    newest = inside[-1] if inside else {junction}
    alone = [
        k
        for reader, side in zip(tasks, (0, 1), strict=True)
        for k in reader
        if k not in {pair[side] for pair in pairs}
    ]
    later = {k for k in into_join(alone) if k > max(newest)}
    if later:
        return PieceGold(tuple(sorted(newest | later)), "disagreed")
    if inside:
        return PieceGold(tuple(sorted(newest)), "agreed")
    return PieceGold((junction,), "junction")


def _into_join(
    stop: int,
    start: int,
    junction: int,
    piece_uuids: Sequence[str | None],
    at_join: dict[str, int],
) -> int | None:
    """A stop of the piece's session as a join stop: the junction when it lies before the
    tail's first stop; None when its prompt is not a stop of the join."""
    if stop < start:
        return junction
    uuid = piece_uuids[stop] if stop < len(piece_uuids) else None
    return at_join.get(uuid) if uuid is not None else None


def join_gold(case: Prepared, labelled: Sequence[Labelled]) -> PieceGold:
    """A prepared join's gold, `labelled` the sessions labelled on its side of the split (a
    join's pieces are drawn from those alone: cases.side_sessions)."""
    if case.gold is None:
        return PieceGold((), "junction")
    last = case.case.pieces[-1] if case.case.pieces else ""
    source = next((s for s in labelled if s.name == last), None)
    if source is None:
        raise LookupError(f"{case.case.name}: its last piece {last!r} is not labelled on its side")
    a, b = source.readers
    return piece_gold(case.gold, case.uuids, source.prepared.uuids, (a.tasks(), b.tasks()))


@dataclass(frozen=True, slots=True)
class PieceScore:
    """A group of joins under both golds: the piece-aware one, and the junction alone."""

    cases: int
    exact: float
    within_one: float
    junction_exact: float
    junction_within_one: float
    moved: int  # joins whose gold is not the junction alone


def piece_score(
    cases: Sequence[Prepared], labelled: Sequence[Labelled], gradings: Sequence[Grading] = ()
) -> PieceScore:
    """The picks of `gradings` (default keepd's) against the piece-aware gold and the junction."""
    found = list(gradings) or [grading_of(case) for case in cases]
    golds = [join_gold(case, labelled) for case in cases]
    picks = [g.pick.best if g.pick is not None else None for g in found]
    n = max(len(cases), 1)

    def share(stops: Sequence[tuple[int, ...]], reach: int) -> float:
        hits = sum(
            1
            for pick, gold in zip(picks, stops, strict=True)
            if pick is not None and any(abs(pick - k) <= reach for k in gold)
        )
        return hits / n

    junctions = [(case.gold,) if case.gold is not None else () for case in cases]
    piece = [gold.stops for gold in golds]
    return PieceScore(
        len(cases),
        share(piece, 0),
        share(piece, 1),
        share(junctions, 0),
        share(junctions, 1),
        sum(1 for gold in golds if gold.moved),
    )
