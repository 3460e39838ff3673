"""Draws the self-containment curve and share bars as inline SVG, every text escaped."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from keepd.core.analysis import Analysis, Stop, ZoneInfo
from keepd.core.grade import DEFAULT_TUNING, Tuning
from keepd.core.steps import presses
from keepd.report.chart import widened
from keepd.report.legend import mark

WIDTH, HEIGHT = 960, 320
LEFT, RIGHT, TOP, BOTTOM = 46, 14, 44, 40
_GRADE_CLASS = {"●●●": "g3", "●●": "g2", "●": "g1"}
_TRADE_NAMES = ("frees less", "the suggestion", "frees more")
_LABEL_PX = 7.2  # a rough width of one label character


_INVISIBLE = dict.fromkeys(
    [
        *range(0x00, 0x09),
        0x0B,
        0x0C,
        *range(0x0E, 0x20),
        *range(0x7F, 0xA0),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    ]
)


def esc(text: object) -> str:
    """Text made safe for HTML and SVG content and attribute values.

    Control characters and bidirectional overrides are dropped: they cannot be shown and
    can make a quote read differently from what it says.

    >>> esc('<a href="javascript:x">\u202e\x1b[31m')
    '&lt;a href=&quot;javascript:x&quot;&gt;[31m'
    """
    return escape(str(text).translate(_INVISIBLE), quote=True)


@dataclass(frozen=True, slots=True)
class Frame:
    """Maps stop numbers and SC values to plot coordinates."""

    count: int
    low: float
    high: float

    @property
    def step(self) -> float:
        return (WIDTH - LEFT - RIGHT) / max(self.count, 1)

    def x(self, k: float) -> float:
        return LEFT + (k + 0.5) * self.step

    def y(self, value: float) -> float:
        """The height of a value, clamped to the frame (see `off`)."""
        share = (min(max(value, self.low), self.high) - self.low) / ((self.high - self.low) or 1.0)
        return TOP + (1.0 - share) * (HEIGHT - TOP - BOTTOM)

    def off(self, value: float) -> bool:
        """Whether a value lies outside the frame and is drawn at its edge."""
        return not self.low - 1e-9 <= value <= self.high + 1e-9


def pickable(stops: list[Stop], tuning: Tuning = DEFAULT_TUNING) -> list[bool]:
    """Which stops the grading could pick: they free enough and keep enough words to measure."""
    total = stops[0].kept if stops else 0
    floor = max(tuning.min_kept_uses, tuning.min_kept_share * total)
    ok = [
        stop.sc is not None and stop.kept >= floor and stop.frees >= tuning.min_frees
        for stop in stops
    ]
    return [*ok[:-1], False] if ok else ok


def frame_of(stops: list[Stop]) -> Frame:
    """A frame around the SC of the stops that could be picked, padded, within 0..1.

    The first stop (nothing before it: SC 1) and the last few (a tiny kept part) would
    otherwise squash the part of the curve that matters; they are drawn at the edge.
    """
    every = [stop.sc for stop in stops if stop.sc is not None]
    chosen = [
        stop.sc
        for stop, ok in zip(stops, pickable(stops), strict=True)
        if ok and stop.sc is not None
    ]
    values = chosen if len(chosen) >= 2 else every
    if not values:
        return Frame(len(stops), 0.0, 1.0)
    low, high = min(values), max(values)
    pad = max((high - low) * 0.08, 0.02)
    top, bottom = widened(min(high + pad, 1.0), max(low - pad, 0.0))  # flat curves stay flat
    return Frame(len(stops), bottom, top)


def curve_svg(analysis: Analysis) -> str:
    """The curve, oldest stop on the left: zones, the wiggle band, one point per stop, the pick."""
    stops = analysis.stops
    frame = frame_of(stops)
    parts = [
        f'<svg class="curve" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-labelledby="curve-title" xmlns="http://www.w3.org/2000/svg">',
        '<title id="curve-title">Self-containment at every stop, oldest on the left</title>',
        *_grid(frame),
        *_zones(analysis, frame),
        *_band(stops, frame, analysis.wiggle),
        _line(stops, frame),
        *_markers(analysis, frame),
        *(_point(analysis, k, stop, frame) for k, stop in enumerate(stops)),
        *_axis(stops, frame),
        "</svg>",
    ]
    return "\n".join(parts)


def _grid(frame: Frame) -> list[str]:
    digits = 2 if frame.high - frame.low >= 0.2 else 3
    out = []
    for i in range(5):
        value = frame.low + (frame.high - frame.low) * i / 4
        y = frame.y(value)
        out += [
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>',
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{value:.{digits}f}</text>',
        ]
    return out


def _axis(stops: list[Stop], frame: Frame) -> list[str]:
    base = HEIGHT - BOTTOM
    out = [f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{base}" y2="{base}"/>']
    if stops:
        out.append(f'<text x="{LEFT}" y="{base + 32}">older · ↑{presses(stops[0].below)}</text>')
        out.append(
            f'<text x="{WIDTH - RIGHT}" y="{base + 32}" text-anchor="end">'
            f"↑{presses(stops[-1].below)} · newer</text>"
        )
    out.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.0f}" y="{base + 32}" text-anchor="middle">'
        "the stops the picker lists; later ones free more</text>"
    )
    return out


def _zones(analysis: Analysis, frame: Frame) -> list[str]:
    position = {stop.uuid: k for k, stop in enumerate(analysis.stops)}
    rows: list[float] = [-math.inf, -math.inf]
    out = []
    for zone in analysis.zones:
        if zone.first not in position or zone.last not in position:
            continue
        left = frame.x(position[zone.first] - 0.5)
        width = max(frame.x(position[zone.last] + 0.5) - left, 6.0)
        grade = _GRADE_CLASS.get(zone.grade, "g1")
        out.append(
            f'<rect class="zone {grade}" x="{left:.1f}" y="{TOP}" width="{width:.1f}" '
            f'height="{HEIGHT - TOP - BOTTOM}"><title>{esc(_zone_text(zone))}</title></rect>'
        )
        if zone.grade != "●" and zone.best in position:
            best = analysis.stops[position[zone.best]]  # the stop's mark, as its row shows it
            text = mark(best.grade, best.shape, best.event)
            out += _zone_label(text, frame.x(position[zone.best]), rows)
    return out


def _zone_text(zone: ZoneInfo) -> str:
    return f"{mark(zone.grade, zone.shape, zone.event)}: {zone.multiple:g}× the noise"


def _zone_label(text: str, x: float, rows: list[float]) -> list[str]:
    """A label (a stop's mark) above the plot in the first of two rows where it does not overlap
    the last one."""
    paused = text.endswith("⏸")  # no font of a fresh Debian has it: two bars drawn instead
    text = text.removesuffix("⏸").rstrip()
    half = (len(text) + (1.5 if paused else 0)) * _LABEL_PX / 2
    x = min(max(x, LEFT + half), WIDTH - RIGHT - half)
    for row, end in enumerate(rows):
        if x - half > end + 4:
            rows[row] = x + half
            y = TOP - 8 - row * 15
            if not paused:
                return [
                    f'<text class="zlabel" x="{x:.1f}" y="{y}" text-anchor="middle">'
                    f"{esc(text)}</text>"
                ]
            bars = x + half - 7.5  # the two bars take the label's last 7.5 pixels
            return [
                f'<text class="zlabel" x="{bars - 3:.1f}" y="{y}" text-anchor="end">'
                f"{esc(text)}</text>",
                *(
                    f'<rect class="pausebar" x="{bars + dx:.1f}" y="{y - 9}" width="2.5" '
                    'height="9"><title>pause</title></rect>'
                    for dx in (0.0, 4.5)
                ),
            ]
    return []


def _segments(stops: list[Stop]) -> list[list[tuple[int, float]]]:
    """Runs of consecutive stops that have an SC."""
    runs: list[list[tuple[int, float]]] = [[]]
    for k, stop in enumerate(stops):
        if stop.sc is None:
            runs.append([])
        else:
            runs[-1].append((k, stop.sc))
    return [run for run in runs if run]


def _line(stops: list[Stop], frame: Frame) -> str:
    path = []
    for run in _segments(stops):
        path += [
            ("M" if i == 0 else "L") + f"{frame.x(k):.1f},{frame.y(v):.1f}"
            for i, (k, v) in enumerate(run)
        ]
    return f'<path class="line" d="{" ".join(path)}"/>' if path else ""


def _band(stops: list[Stop], frame: Frame, wiggle: float | None) -> list[str]:
    """A band one wiggle above and below the curve: the size of its ordinary movement."""
    if not wiggle:
        return []
    out = []
    for run in _segments(stops):
        upper = [(frame.x(k), frame.y(min(v + wiggle, frame.high))) for k, v in run]
        lower = [(frame.x(k), frame.y(max(v - wiggle, frame.low))) for k, v in reversed(run)]
        if len(run) == 1:
            (x, top), (_, bottom) = upper[0], lower[0]
            upper = [(x - 3, top), (x + 3, top)]
            lower = [(x + 3, bottom), (x - 3, bottom)]
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in upper + lower)
        out.append(
            f'<polygon class="band" points="{points}"><title>± the noise: the median step'
            "</title></polygon>"
        )
    return out


def _markers(analysis: Analysis, frame: Frame) -> list[str]:
    """A dashed line at the pick, or at each stop of the trade, labelled under the axis."""
    position = {stop.uuid: k for k, stop in enumerate(analysis.stops)}
    if analysis.pick in position:
        stop = analysis.stops[position[analysis.pick]]
        label = f"the pick, ↑{presses(stop.below)}"
        return _marker(frame.x(position[analysis.pick]), label, "pickline", "picklabel", [])
    out: list[str] = []
    ends: list[float] = []
    for name, uuid in zip(_TRADE_NAMES, analysis.trade, strict=False):
        if uuid in position:
            out += _marker(frame.x(position[uuid]), name, "tradeline", "", ends)
    return out


def _marker(x: float, label: str, line: str, text: str, ends: list[float]) -> list[str]:
    """The line, and its label centred under the axis unless it would overlap the last one."""
    out = [f'<line class="{line}" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}"/>']
    half = len(label) * _LABEL_PX / 2
    at = min(max(x, LEFT + half), WIDTH - RIGHT - half)
    if not ends or at - half > ends[-1] + 4:
        ends.append(at + half)
        out.append(
            f'<text class="{text}" x="{at:.1f}" y="{HEIGHT - BOTTOM + 15}" '
            f'text-anchor="middle">{esc(label)}</text>'
        )
    return out


def _point(analysis: Analysis, k: int, stop: Stop, frame: Frame) -> str:
    """One stop: a column that shows its hover text, and its point on the curve."""
    radius = min(max(frame.step * 0.3, 1.8), 4.5)
    classes = ["pt"]
    if stop.sc is None:
        classes.append("nosc")
    elif frame.off(stop.sc):
        classes.append("off")
    if stop.grade:
        classes.append("zoned")
    if stop.uuid == analysis.pick:
        classes.append("pick")
        radius = max(radius, 5.5)
    y = frame.y(stop.sc) if stop.sc is not None else HEIGHT - BOTTOM
    left = frame.x(k - 0.5)
    return (
        f'<g class="stop"><title>{esc(hover_text(stop, stop.uuid == analysis.pick))}</title>'
        f'<rect class="hit" x="{left:.1f}" y="{TOP}" width="{frame.step:.1f}" '
        f'height="{HEIGHT - TOP - BOTTOM}"/>'
        f'<circle class="{" ".join(classes)}" cx="{frame.x(k):.1f}" cy="{y:.1f}" '
        f'r="{radius:.1f}"/></g>'
    )


def hover_text(stop: Stop, picked: bool = False) -> str:
    """What hovering over a stop says (plain text; escape it before use)."""
    sc = "no SC" if stop.sc is None else f"SC {stop.sc:.3f}"
    head = f"↑{presses(stop.below)} · {sc} · frees {stop.frees:.0%}"
    if stop.grade:
        head += f" · {mark(stop.grade, stop.shape, stop.event)} {stop.multiple or 0:g}×"
    if picked:
        head += " · the pick"
    if not stop.in_picker:
        head += " · before the last compaction"
    return f"{head}\n“{stop.quote}”"


def bar_svg(share: float, *, side_trip: bool = False) -> str:
    """A small horizontal bar for a share between 0 and 1."""
    filled = max(0.0, min(share, 1.0)) * 100
    fill = "fill trip" if side_trip else "fill"
    return (
        '<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect class="track" width="100" height="10"/>'
        f'<rect class="{fill}" width="{filled:.1f}" height="10"/></svg>'
    )
