"""A join's piece-aware gold: where the newest work begins, read from its last piece's readers.

A stitched join's junction is where its last piece begins, but that piece is the tail of a
real session, and when the session's readers marked the work still going on at its end as
beginning inside that tail, that stop (and not the junction) is where the join's newest work
begins. The gold is then the readers' newest, mapped into the join by the prompt's uuid, when
both agree within one stop; where they disagree, either reader's newest or the junction is
counted; where the newest began before the tail, or the piece's session is not labelled on
this side of the split, the junction stays the gold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.labels import Labelled
from evaluation.score import Prepared, grading_of
from keepd.core.grade import Grading


@dataclass(frozen=True, slots=True)
class PieceGold:
    """The join stops a pick may land on (exact), and how they were found."""

    stops: tuple[int, ...]
    how: str  # "junction", "unlabelled", "agreed", "disagreed"

    @property
    def moved(self) -> bool:
        """The gold is not the junction alone."""
        return self.how in ("agreed", "disagreed")


def piece_gold(
    junction: int,
    join_uuids: Sequence[str | None],
    piece_uuids: Sequence[str | None],
    newest: tuple[int | None, int | None],
) -> PieceGold:
    """The gold of a join whose last piece begins at stop `junction` (`join_uuids` the join's
    stop uuids), when the piece's whole session has `piece_uuids` and its two readers named
    stops `newest` (positions in that session, None: not named)."""
    at_join = {uuid: k for k, uuid in enumerate(join_uuids) if uuid is not None}
    in_piece = {uuid: k for k, uuid in enumerate(piece_uuids) if uuid is not None}
    # The tail's first stop in the session: the junction's own prompt may not be a stop there
    # (a /compact that opens the tail is one only as a join's first prompt of a piece).
    start = next((in_piece[u] for u in join_uuids[junction:] if u in in_piece), len(piece_uuids))
    mapped = [_into_join(k, start, junction, piece_uuids, at_join) for k in newest]
    named = {k for k in mapped if k is not None}
    if named <= {junction}:
        return PieceGold((junction,), "junction")
    a, b = newest
    if a is not None and b is not None and abs(a - b) <= 1:
        # Agreed: both readers' stops count, as in the labelled sessions' own scoring.
        return PieceGold(tuple(sorted(named)), "agreed")
    return PieceGold(tuple(sorted(named | {junction})), "disagreed")


def _into_join(
    newest: int | None,
    start: int,
    junction: int,
    piece_uuids: Sequence[str | None],
    at_join: dict[str, int],
) -> int | None:
    """A reader's newest as a join stop: the junction when it lies before the tail's first
    stop; None when it was not named or its prompt is not a stop of the join."""
    if newest is None:
        return None
    if newest < start:
        return junction
    uuid = piece_uuids[newest] if newest < len(piece_uuids) else None
    return at_join.get(uuid) if uuid is not None else None


def join_gold(case: Prepared, labelled: Sequence[Labelled]) -> PieceGold:
    """A prepared join's piece-aware gold, `labelled` the sessions labelled on its side."""
    if case.gold is None:
        return PieceGold((), "junction")
    tail = set(case.uuids[case.gold : case.gold + 3])  # stops of the last piece alone
    source = next((s for s in labelled if tail.intersection(s.prepared.uuids)), None)
    if source is None:
        return PieceGold((case.gold,), "unlabelled")
    newest = (source.readers[0].newest, source.readers[1].newest)
    return piece_gold(case.gold, case.uuids, source.prepared.uuids, newest)


@dataclass(frozen=True, slots=True)
class PieceScore:
    """A group of joins under both golds."""

    cases: int
    junction_exact: float
    junction_within_one: float
    exact: float
    within_one: float
    moved: int  # joins whose gold is not the junction alone
    unlabelled: int  # joins whose last piece is not labelled on this side


def piece_score(
    cases: Sequence[Prepared], labelled: Sequence[Labelled], gradings: Sequence[Grading] = ()
) -> PieceScore:
    """The picks of `gradings` (default keepd's) against the junction and the piece-aware gold."""
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
        share(junctions, 0),
        share(junctions, 1),
        share(piece, 0),
        share(piece, 1),
        sum(1 for gold in golds if gold.moved),
        sum(1 for gold in golds if gold.how == "unlabelled"),
    )
