"""Markdown pieces for the evaluation document: tables, percentages, quantiles.

>>> print(table(["a", "b"], [[1, "x"]]))
| a | b |
|---|---|
| 1 | x |
>>> percent(0.755), share(3, 4)
('76%', '3 of 4')
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def percent(value: float) -> str:
    return f"{value:.0%}" if np.isfinite(value) else "-"


def share(part: int, whole: int) -> str:
    return f"{part} of {whole}"


def number(value: float, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if np.isfinite(value) else "-"


def quantiles(values: Sequence[float], points: Sequence[float] = (10, 50, 90)) -> list[str]:
    """The given percentiles of `values`, one decimal (dashes when there are none)."""
    if not len(values):
        return ["-"] * len(points)
    return [f"{float(np.percentile(values, p)):.1f}" for p in points]


def image(name: str, alt: str) -> str:
    return f"![{alt}]({name})"
