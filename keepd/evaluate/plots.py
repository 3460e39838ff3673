"""The evaluation's figures, drawn with matplotlib's Agg backend into PNG files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

WIDTH = 9.0


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure: Any, path: Path) -> None:
    figure.tight_layout()
    figure.savefig(path, dpi=110, metadata={"Software": None})
    _pyplot().close(figure)


def segmentation(results: dict[str, dict[str, tuple[float, float]]], path: Path) -> None:
    """Pk and WindowDiff of every method, one panel per data set (lower is better)."""
    plt = _pyplot()
    figure, axes = plt.subplots(len(results), 1, figsize=(WIDTH, 3.4 * len(results)), squeeze=False)
    for axis, (dataset, rows) in zip(axes[:, 0], results.items(), strict=True):
        names = list(rows)
        y = np.arange(len(names))
        axis.barh(y - 0.2, [rows[n][0] for n in names], 0.4, label="Pk")
        axis.barh(y + 0.2, [rows[n][1] for n in names], 0.4, label="WindowDiff")
        if "no boundary" in rows:
            axis.axvline(rows["no boundary"][0], color="grey", linestyle=":", linewidth=1)
        axis.set_yticks(y, names, fontsize=8)
        axis.invert_yaxis()
        axis.set_title(f"{dataset} test (lower is better)", fontsize=10)
        axis.set_xlim(0, 0.7)
        axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _save(figure, path)


def picks(rows: dict[str, tuple[float, float]], title: str, path: Path) -> None:
    """Exact and within-one rates of every method choosing one stop."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(WIDTH, 3.8))
    names = list(rows)
    y = np.arange(len(names))
    axis.barh(y - 0.2, [rows[n][0] for n in names], 0.4, label="pick at the gold")
    axis.barh(y + 0.2, [rows[n][1] for n in names], 0.4, label="within one stop")
    axis.set_yticks(y, names, fontsize=8)
    axis.invert_yaxis()
    axis.set_xlim(0, 1)
    axis.set_title(title, fontsize=10)
    axis.legend(fontsize=8, loc="lower right")
    _save(figure, path)


def multiples(kinds: dict[str, list[float]], thresholds: Sequence[float], path: Path) -> None:
    """Distributions of zone multiples (log scale) with the grade thresholds.

    Curves without any zone a wiggle high (multiple 0) are left out of the picture.
    """
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(WIDTH, 4.2))
    bins = np.logspace(0, np.log10(400), 40)
    for name, values in kinds.items():
        shown = [v for v in values if v >= 1.0]
        if shown:
            clipped = np.clip(shown, 1.0, 399.0)
            axis.hist(clipped, bins=bins, density=True, histtype="step", linewidth=1.6, label=name)
    for value, mark in zip(thresholds, ("●", "●●", "●●●"), strict=True):
        axis.axvline(value, color="black", linestyle="--", linewidth=0.8)
        axis.text(value, axis.get_ylim()[1] * 0.95, f" {mark} {value:g}", fontsize=8)
    axis.set_xscale("log")
    axis.set_xlabel("zone height, in wiggles of its own curve")
    axis.set_ylabel("density")
    axis.legend(fontsize=7, loc="upper right")
    _save(figure, path)


def tail_order(
    series: dict[str, list[float]],
    stops: list[int],
    gold: int | None,
    rho: dict[str, list[float]],
    path: Path,
) -> None:
    """Left: one session's scores by stop (each scaled to 0-1). Right: ρ with tail size."""
    plt = _pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(WIDTH, 3.8))
    for name, values in series.items():
        v = np.asarray(values, dtype=np.float64)
        span = np.nanmax(v) - np.nanmin(v)
        left.plot(stops, (v - np.nanmin(v)) / (span or 1.0), marker=".", label=_short(name))
    if gold is not None:
        left.axvline(gold, color="black", linestyle="--", linewidth=1, label="junction")
    left.set_xlabel("stop (later = smaller tail)")
    left.set_ylabel("score, scaled")
    left.legend(fontsize=7)
    names = list(rho)
    data = [[r for r in rho[n] if np.isfinite(r)] for n in names]
    right.boxplot(data, orientation="horizontal")
    right.set_yticks(np.arange(1, len(names) + 1), [_short(n) for n in names], fontsize=8)
    right.axvline(0, color="grey", linewidth=0.8)
    right.set_xlabel("Spearman ρ with tail size, per session")
    _save(figure, path)


def _short(name: str) -> str:
    return name.split(" (", maxsplit=1)[0]


def sweep(calibration: Sequence[float], held_out: Sequence[float], path: Path) -> None:
    """Within-one rate of every combination, sorted, calibration and held out."""
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(WIDTH, 3.4))
    for label, values in (("calibration", calibration), ("held out", held_out)):
        axis.plot(sorted(values), marker=".", linewidth=1, label=label)
    axis.set_xlabel("combinations of the constants, sorted")
    axis.set_ylabel("picks within one stop")
    axis.set_ylim(0, 1)
    axis.legend(fontsize=8)
    _save(figure, path)
