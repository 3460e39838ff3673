"""Grading's passes over a session's stops and zones, written for a thousand zones on every
analysis, give what their plain definitions give, on random stops and zones."""

from __future__ import annotations

from itertools import groupby

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from keepd.core.cued import strongest_each
from keepd.core.grade import strongest_zone
from keepd.core.heights import _neighbour_means
from keepd.core.newest import ZONE_FEATURES, zone_columns
from keepd.core.sure import SURE, is_sure, later_sure, sure_only
from keepd.core.zone import Grade, Zone

REASONS = st.lists(st.sampled_from(["words", "work finished", "pause", "new words"]), max_size=3)


@st.composite
def zones(draw: st.DrawFn, sorted_: bool = True) -> list[Zone]:
    """Zones oldest first (one a stop, or several at a stop when `sorted_` is False)."""
    count = draw(st.integers(0, 25))
    stops = draw(st.lists(st.integers(0, 40), min_size=count, max_size=count, unique=sorted_))
    out = [
        Zone(
            k,
            k,
            k,
            draw(st.sampled_from(list(Grade))),
            draw(st.sampled_from([0.0, 2.5, 12.0, 40.0, float("nan")])),
            reasons=tuple(draw(REASONS)),
            cued=draw(st.booleans()),
        )
        for k in stops
    ]
    return sorted(out, key=lambda zone: zone.best) if sorted_ else out


def _plain_strongest_zone(zones: list[Zone]) -> Zone | None:
    found = None
    for zone in zones:
        if zone.grade.strength >= 2 and (found is None or zone.rank >= found.rank):
            found = zone
    return found


def _plain_strongest_each(zones: list[Zone]) -> list[Zone]:
    """Each stop's zones in their order, the first of the highest rank among them."""
    at = sorted(range(len(zones)), key=lambda i: (zones[i].best, i))
    groups = groupby((zones[i] for i in at), key=lambda zone: zone.best)
    return [max(group, key=lambda zone: zone.rank) for _, group in groups]


@given(zones(sorted_=False))
def test_strongest_zone_is_the_latest_of_the_highest_rank(found: list[Zone]) -> None:
    assert strongest_zone(found) is _plain_strongest_zone(found)


@given(zones(sorted_=False))
def test_strongest_each_keeps_the_strongest_zone_of_each_stop(found: list[Zone]) -> None:
    got, plain = strongest_each(found), _plain_strongest_each(found)
    assert len(got) == len(plain) and all(a is b for a, b in zip(got, plain, strict=True))


@given(zones(), st.data())
def test_sure_only_grades_every_unsure_clear_zone_subtopic(
    found: list[Zone], data: st.DataObject
) -> None:
    pick = data.draw(st.sampled_from([None, *found]))
    got_pick, got = sure_only(pick, found)
    for old, new in zip(found, got, strict=True):
        unsure = old.grade is Grade.CLEAR and not is_sure(old)
        assert new == (old._replace(grade=Grade.SUBTOPIC) if unsure else old)
    if pick is not None:
        assert got_pick is got[found.index(pick)]


@given(zones(), st.integers(0, 45), st.integers(0, 8))
def test_later_sure_is_the_latest_sure_clear_zone_among_the_newest(
    found: list[Zone], stops: int, recent: int
) -> None:
    newest = stops - 1
    later = [
        z
        for z in found
        if z.grade is Grade.CLEAR
        and -1 < z.best <= newest
        and z.best >= newest - recent
        and not SURE.isdisjoint(z.reasons)
    ]
    expected = max(later, key=lambda z: z.best) if later and recent > 0 else None
    assert later_sure(None, found, stops, recent) is expected


@given(zones(sorted_=False))
def test_zone_columns_mark_each_zone_at_its_stop(found: list[Zone]) -> None:
    graded = [(zone.best, zone.grade.strength, zone.cued) for zone in found]
    columns = dict(zone_columns(41, graded, np.zeros(41), 1.0))
    for name in ZONE_FEATURES:
        marked = np.zeros(41)
        for best, strength, cued in graded:
            if ZONE_FEATURES[int(cued) if strength == 3 else 4 - strength] == name:
                marked[best] = 1.0
        assert np.asarray(columns[name]).tolist() == marked.tolist()


def _stacked_means(sc: np.ndarray, window: int, *, after: bool) -> np.ndarray:
    """The plain definition: the shifted rows stacked, their NaNs left out of a sum and count."""
    pad = np.full(window, np.nan)
    padded = np.concatenate([sc, pad] if after else [pad, sc])
    shifts = range(1, window + 1) if after else range(window - 1, -1, -1)
    rows = np.array([padded[j : j + len(sc)] for j in shifts]).reshape(window, len(sc))
    missing = np.isnan(rows)
    counts = (~missing).sum(axis=0)
    sums = np.where(missing, 0.0, rows).sum(axis=0)
    return np.asarray(np.divide(sums, counts, out=np.full(len(sc), np.nan), where=counts > 0))


VALUES = st.lists(
    st.one_of(st.floats(-1e6, 1e6), st.just(float("nan")), st.just(-0.0)), max_size=40
)


@given(VALUES, st.integers(0, 7), st.integers(0, 7))
def test_neighbour_means_are_the_stacked_rows_means_float_for_float(
    values: list[float], ahead: int, behind: int
) -> None:
    sc = np.asarray(values, dtype=np.float64)
    after, before = _neighbour_means(sc, ahead, behind)
    assert after.tobytes() == _stacked_means(sc, ahead, after=True).tobytes()
    assert before.tobytes() == _stacked_means(sc, behind, after=False).tobytes()
