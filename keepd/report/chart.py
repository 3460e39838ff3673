"""Draws the self-containment curve in block characters, oldest stop on the left.

>>> print("\\n".join(chart_lines([0.9, 0.5, 0.55, 0.2], height=3, width=20)))
0.90 ┤█
0.67 ┤ ▃▅
0.43 ┤   ▁
     └────
"""

from __future__ import annotations

import math
from collections.abc import Sequence

_EIGHTHS = " ▁▂▃▄▅▆▇█"
LABEL = 7  # "0.66 ┤"
# The least span the vertical scale shows: a flat curve (0.224-0.227) stays flat instead of
# being zoomed until its noise looks like a cliff, and a single stop gets labels within 0..1.
MIN_SPAN = 0.1


def columns(count: int, width: int) -> list[int]:
    """Which stop each chart column shows when there are more stops than columns."""
    room = max(width - LABEL, 8)
    if count <= room:
        return list(range(count))
    return [round(i * (count - 1) / (room - 1)) for i in range(room)]


def widened(top: float, bottom: float) -> tuple[float, float]:
    """The scale's top and bottom, at least `MIN_SPAN` apart, kept within 0..1 when the values are.

    >>> widened(0.227, 0.224), widened(0.4, 0.4), widened(1.0, 0.98), widened(0.9, 0.2)
    ((0.2755, 0.1755), (0.45, 0.35), (1.0, 0.9), (0.9, 0.2))
    """
    if top - bottom >= MIN_SPAN:
        return top, bottom
    middle = (top + bottom) / 2
    low, high = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    if bottom >= 0.0 and low < 0.0:
        low, high = 0.0, MIN_SPAN
    if top <= 1.0 and high > 1.0:
        low, high = 1.0 - MIN_SPAN, 1.0
    return round(high, 6), round(low, 6)


def chart_lines(
    values: Sequence[float],
    *,
    height: int = 7,
    width: int = 80,
    scale: Sequence[float] | None = None,
) -> list[str]:
    """Rows of the chart, top first, then the axis; NaN values leave their column empty.

    The vertical scale spans `scale` (default: the values); values outside it are drawn at
    the top or bottom row.
    """
    shown = [values[i] for i in columns(len(values), width)]
    finite = [v for v in (scale if scale is not None else shown) if math.isfinite(v)]
    if not finite:
        return []
    top, bottom = widened(max(finite), min(finite))
    span = top - bottom
    shown = [min(max(v, bottom), top) if math.isfinite(v) else v for v in shown]
    rows = [[" "] * len(shown) for _ in range(height)]
    for col, value in enumerate(shown):
        if not math.isfinite(value):
            continue
        level = min((value - bottom) / span * height, height - 1e-9)
        row = int(level)
        eighth = min(max(math.ceil((level - row) * 8), 1), 8)
        rows[height - 1 - row][col] = _EIGHTHS[eighth]
    labels = [top - span * i / height for i in range(height)]
    digits = 2 if span >= 0.05 else 3
    lines = [
        f"{label:.{digits}f} ┤{''.join(cells)}".rstrip()
        for label, cells in zip(labels, rows, strict=True)
    ]
    lines.append(" " * (digits + 3) + "└" + "─" * len(shown))
    return lines
