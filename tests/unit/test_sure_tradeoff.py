"""The settings evaluation/probes/sure_tradeoff.py compares: each part of issue 27's change on
and off, the last one keepd's own."""

from __future__ import annotations

from evaluation.probes.sure_tradeoff import NEVER, SETTINGS, tuned
from keepd.core.grade import DEFAULT_TUNING


def test_before_the_change_keeps_every_clear_zone_and_the_pick() -> None:
    before = tuned(False, 10.0, 0)
    assert before.points.sure == () and before.points.sure_height == NEVER and before.recent == 0
    assert SETTINGS[0][1] == before


def test_the_last_setting_is_keepd_as_shipped() -> None:
    assert SETTINGS[-1][1] == DEFAULT_TUNING
    assert tuned(True, DEFAULT_TUNING.points.sure_height, DEFAULT_TUNING.recent) == DEFAULT_TUNING
    assert len({tuning for _, tuning in SETTINGS}) == len(SETTINGS)
