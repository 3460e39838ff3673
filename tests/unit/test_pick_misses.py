"""The pick's miss analysis (evaluation/probes/pick_misses.py): causes, what the model reads at a
stop, and the tables, on small fixtures."""

from __future__ import annotations

import numpy as np

from evaluation.fit_newest import Case
from evaluation.probes.pick_misses import (
    AFTER_MARKED,
    AFTER_UNMARKED,
    AT_JUNCTION,
    BETWEEN,
    EARLIER_PIECE,
    NO_PICK,
    RIGHT,
    JoinMiss,
    cause_table,
    join_cause,
    seen,
    tail_table,
)
from keepd.core.newest import HEIGHT, POINTS, ZONE_FEATURES, Newest


def test_a_pick_within_one_of_any_gold_stop_is_right() -> None:
    assert join_cause(11, (8, 12), 5, marked=False) == RIGHT
    assert join_cause(9, (8, 12), 5, marked=False) == RIGHT
    assert join_cause(None, (8,), 5, marked=False) == NO_PICK


def test_a_miss_is_placed_against_the_junction_and_the_gold() -> None:
    assert join_cause(2, (5,), 5, marked=False) == EARLIER_PIECE
    assert join_cause(6, (12,), 5, marked=False) == AT_JUNCTION  # next to the junction
    assert join_cause(9, (12,), 5, marked=False) == BETWEEN
    # The junction itself is the gold: a pick beside it is right, not "at the junction".
    assert join_cause(6, (5,), 5, marked=False) == RIGHT


def test_a_pick_after_the_gold_says_whether_a_reader_marked_its_stop() -> None:
    assert join_cause(14, (8,), 5, marked=True) == AFTER_MARKED
    assert join_cause(14, (8,), 5, marked=False) == AFTER_UNMARKED


def _case(points: list[float], cues_zone_at: int) -> Case:
    stops = len(points)
    zones = {name: np.zeros(stops) for name in ZONE_FEATURES}
    zones[ZONE_FEATURES[1]][cues_zone_at] = 1.0
    return Case(
        "s",
        frozenset({"s"}),
        [(POINTS, np.array(points)), (HEIGHT, np.zeros(stops)), *zones.items()],
        np.ones(stops, dtype=bool),
        np.zeros(stops),
        np.zeros(stops, dtype=bool),
        0.01,
        tuple(f"u{k}" for k in range(stops)),
        (),
    )


def test_seen_reads_the_points_the_zone_and_the_chance_at_a_stop() -> None:
    model = Newest(intercept=-2.0, weights=((POINTS, 1.0),))
    case = _case([0.0, 2.0, 0.0], cues_zone_at=1)
    at = seen(case, model, 1)
    assert at.points == 2.0 and at.zone == ZONE_FEATURES[1]
    assert abs(at.chance - 0.5) < 1e-9  # logit -2 + 2
    assert seen(case, model, 0).zone == "no zone"


def test_the_tables_count_causes_per_group_and_misses_per_tail() -> None:
    misses = [
        JoinMiss("g", "t1", AT_JUNCTION, True, "no zone"),
        JoinMiss("g", "t1", AT_JUNCTION, True, "no zone"),
        JoinMiss("g", "t2", RIGHT, False, "no zone"),
        JoinMiss("h", "t2", AFTER_UNMARKED, False, ZONE_FEATURES[0]),
    ]
    causes = cause_table(misses, ["g", "h"])
    assert f"| {AT_JUNCTION} | 2 (2) | 0 (0) |" in causes
    assert "| all joins | 3 (2) | 1 (0) |" in causes
    tails = tail_table(misses).splitlines()
    assert tails[2].startswith("| t1 | 2 | 2 |") and tails[3].startswith("| t2 | 2 | 1 |")
