"""Robustness: the pick over a grid of tuning constants and text policies, case by case.

Each case is judged at every combination: is the pick within one stop of the gold one, and
does it stay inside the top zone (within one stop of the default's pick, or no pick when the
default makes none)?
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from evaluation.markdown import percent, table
from evaluation.score import Prepared, judge
from keepd.core.grade import DEFAULT_TUNING, Tuning
from keepd.core.messages import DEFAULT_POLICY

THRESHOLDS = ((3.0, 5.0), (4.0, 6.0), (5.0, 8.0))  # (●●, ●●●)
FLOORS = ((0.02, 30), (0.04, 60), (0.08, 120))  # (kept share, kept uses)
RISE_WEIGHTS = (1.0, 1.5, 2.0)
KEPT_POWERS = (0.25, 0.35, 0.5)
WINDOWS = (4, 6, 8)
POLICIES = {
    "default": DEFAULT_POLICY,
    "+ thinking": dataclasses.replace(
        DEFAULT_POLICY, counted=DEFAULT_POLICY.counted | {"thinking"}
    ),
}


@dataclass(frozen=True, slots=True)
class Combination:
    policy: str
    tuning: Tuning

    @property
    def label(self) -> str:
        t = self.tuning
        return (
            f"{self.policy}; ●● {t.subtopic:g} ●●● {t.clear:g}; floor {t.min_kept_share:g}/"
            f"{t.min_kept_uses}; rise ×{t.rise_weight:g}; windows {t.ahead}; "
            f"kept^{t.kept_power:g}"
        )


def grid() -> list[Combination]:
    return [
        Combination(policy, _tuning(thresholds, floor, rise, window, power))
        for policy, thresholds, floor, rise, window, power in product(
            POLICIES, THRESHOLDS, FLOORS, RISE_WEIGHTS, WINDOWS, KEPT_POWERS
        )
    ]


def _tuning(
    thresholds: tuple[float, float],
    floor: tuple[float, int],
    rise: float,
    window: int,
    power: float,
) -> Tuning:
    return dataclasses.replace(
        DEFAULT_TUNING,
        subtopic=thresholds[0],
        clear=thresholds[1],
        min_kept_share=floor[0],
        min_kept_uses=floor[1],
        rise_weight=rise,
        ahead=window,
        behind=window,
        kept_power=power,
    )


@dataclass(frozen=True, slots=True)
class CaseSweep:
    """One case over the grid: within one stop of gold, and inside the default's top zone."""

    name: str
    group: str
    role: str  # "calibration", "held out" or "labelled"
    near: list[bool]
    stays: list[bool]


def sweep_case(
    versions: dict[str, Prepared], combos: Sequence[Combination], group: str, role: str
) -> CaseSweep:
    """`versions` holds the case prepared under each text policy."""
    default = judge(versions["default"], DEFAULT_TUNING).pick
    near, stays = [], []
    for combo in combos:
        o = judge(versions[combo.policy], combo.tuning)
        near.append(o.distance is not None and o.distance <= 1)
        same = o.pick is None if default is None else o.pick is not None
        stays.append(same and (o.pick is None or default is None or abs(o.pick - default) <= 1))
    name = versions["default"].case.name
    return CaseSweep(name, group, role, near, stays)


def group_table(sweeps: Sequence[CaseSweep]) -> str:
    rows = []
    for title in dict.fromkeys(s.group for s in sweeps):
        chosen = [s for s in sweeps if s.group == title]
        near = np.array([s.near for s in chosen], dtype=bool)
        stays = np.array([s.stays for s in chosen], dtype=bool)
        rows.append(
            [
                title,
                len(chosen),
                percent(float(near.mean())),
                percent(float(near.all(axis=1).mean())),
                percent(float((near.mean(axis=1) >= 0.9).mean())),
                percent(float(stays.mean())),
                percent(float((stays.mean(axis=1) >= 0.9).mean())),
            ]
        )
    headers = [
        "cases",
        "n",
        "within one, over all combinations",
        "cases within one at every combination",
        "at ≥ 90% of them",
        "pick inside the top zone, over all",
        "cases inside at ≥ 90%",
    ]
    return table(headers, rows)


def case_table(sweeps: Sequence[CaseSweep]) -> str:
    rows = [
        [s.name, percent(float(np.mean(s.near))), percent(float(np.mean(s.stays)))] for s in sweeps
    ]
    return table(["session", "pick within one of the label", "pick inside the top zone"], rows)


def constant_table(sweeps: Sequence[CaseSweep], combos: Sequence[Combination]) -> str:
    """Within one stop for each value of each constant, stitched calibration against held out."""
    sets = {
        role: np.array([s.near for s in sweeps if s.role == role], dtype=bool).reshape(
            -1, len(combos)
        )
        for role in ("calibration", "held out")
    }
    rows = []
    for name, value_of in _constants():
        for value in dict.fromkeys(value_of(c) for c in combos):
            columns = np.array([value_of(c) == value for c in combos])
            cells = [_mean(matrix[:, columns]) for matrix in sets.values()]
            default = value == value_of(Combination("default", DEFAULT_TUNING))
            rows.append([name, f"{value}{' (default)' if default else ''}", *cells])
    return table(["constant", "value", "calibration: within one", "held out: within one"], rows)


def _mean(matrix: np.ndarray) -> str:
    return percent(float(matrix.mean())) if matrix.size else "-"


def _constants() -> list[tuple[str, Callable[[Combination], str]]]:
    return [
        ("text policy", lambda c: c.policy),
        ("thresholds ●● / ●●●", lambda c: f"{c.tuning.subtopic:g} / {c.tuning.clear:g}"),
        (
            "kept floor (share / uses)",
            lambda c: f"{c.tuning.min_kept_share:g} / {c.tuning.min_kept_uses}",
        ),
        ("rise weight", lambda c: f"{c.tuning.rise_weight:g}"),
        ("windows (ahead = behind)", lambda c: f"{c.tuning.ahead}"),
        ("kept share's power", lambda c: f"{c.tuning.kept_power:g}"),
    ]
