"""The piece-aware gold of a stitched join, mapped from its last piece's readers by uuid."""

from __future__ import annotations

from evaluation.piece_gold import piece_gold

# A join of two tails: the last piece is the tail t0..t2 of a session s0..s3, t0..t2.
JOIN = ["a0", "a1", "t0", "t1", "t2"]
SESSION = ["s0", "s1", "s2", "s3", "t0", "t1", "t2"]
JUNCTION = 2


def test_agreed_newest_inside_the_tail_moves_the_gold_by_uuid() -> None:
    gold = piece_gold(JUNCTION, JOIN, SESSION, (5, 6))
    assert gold.stops == (3, 4)
    assert gold.how == "agreed" and gold.moved


def test_newest_before_the_tail_keeps_the_junction() -> None:
    for newest in ((1, 2), (0, 0), (4, 4)):
        gold = piece_gold(JUNCTION, JOIN, SESSION, newest)
        assert gold.stops == (JUNCTION,) and not gold.moved


def test_agreement_straddling_the_tail_start_counts_both() -> None:
    assert piece_gold(JUNCTION, JOIN, SESSION, (3, 4)).stops == (JUNCTION,)
    assert piece_gold(JUNCTION, JOIN, SESSION, (4, 5)).stops == (2, 3)


def test_disagreeing_readers_count_either_newest_or_the_junction() -> None:
    gold = piece_gold(JUNCTION, JOIN, SESSION, (1, 6))
    assert gold.stops == (2, 4) and gold.how == "disagreed"
    assert piece_gold(JUNCTION, JOIN, SESSION, (None, 5)).stops == (2, 3)
    assert piece_gold(JUNCTION, JOIN, SESSION, (None, None)).how == "junction"


def test_a_junction_prompt_that_is_no_stop_of_the_session_maps_from_the_next_stop() -> None:
    join = ["a0", "a1", "compact", "t0", "t1", "t2"]  # the tail opens with a /compact prompt
    session = ["s0", "s1", "t0", "t1", "t2"]
    assert piece_gold(2, join, session, (3, 3)).stops == (4,)
    assert piece_gold(2, join, session, (2, 2)).stops == (3,)
    assert piece_gold(2, join, session, (1, 1)).stops == (2,)
