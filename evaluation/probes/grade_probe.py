"""`python -m evaluation.probes.grade_probe`: measures whether a better-ranking stop score finds
more task switches at the same precision: the cues' rounded points (as keepd grades today), the
same points unrounded, and a calibrated probability with continuous signals added.

Each variant scores every stop; ●●● is given where the score passes a threshold, exactly as
`cued.with_points` gives it for the points' total (evaluation/stop_score.py: the words' own
zones, then the cued stops that are not beaten by a neighbour), and the grades are counted by
`labels.score_grading`. Left one project out: the weights are fitted and the threshold chosen on
the other projects' sessions by fit_points' rule (the most task switches while ●●● zones stay at
a reader boundary in `FLOOR` or more one standard error down), then the project's sessions are
graded. The continuous signals are those the cues threshold (the pause, the prompt's length, the
share of new words, the new files' share, the words' height) and two plain word-count distances
(evaluation/texts.py): the assistant's text of a stop's turn against the turn before, and the
prompt against the turn before's text. Calibration labels only; held-out labels are never read.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evaluation import labels
from evaluation.cases import shared_or_none
from evaluation.fit_points import TOTALS
from evaluation.labels import LabelSummary
from evaluation.markdown import table
from evaluation.stop_score import (
    CONTINUOUS,
    DISTANCES,
    HALVES,
    Curve,
    FloatArray,
    Outcome,
    Session,
    Variant,
    cross_validated,
    fit,
    graded,
    session_of,
    summary,
    sweep,
)
from keepd.core.points import DEFAULT_POINTS

VARIANTS = (
    Variant("(a) points, rounded (today)", rounded=True, grid=TOTALS),
    Variant("(b) points, unrounded"),
    Variant("(c1) + continuous cues", CONTINUOUS),
    Variant("(c2) + word distances", DISTANCES),
    Variant("(c3) + continuous cues and word distances", (*CONTINUOUS, *DISTANCES)),
    Variant("(c3), ridge 0.3", (*CONTINUOUS, *DISTANCES), ridge=0.3),
    Variant("(c3), ridge 3", (*CONTINUOUS, *DISTANCES), ridge=3.0),
    Variant("(c3), ridge 10", (*CONTINUOUS, *DISTANCES), ridge=10.0),
    Variant("(c3), thresholds in halves", (*CONTINUOUS, *DISTANCES), grid=HALVES),
    Variant("(c2), thresholds in halves", DISTANCES, grid=HALVES),
    Variant("(b), thresholds in halves", grid=HALVES),
    Variant("pause, prompt words and distances", ("log pause", "log prompt words", *DISTANCES)),
)
PRECISIONS = (0.75, 0.8, 0.85, 0.9, 0.95)


def in_sample(sessions: Sequence[Session], variant: Variant) -> Curve:
    """Every threshold's scores with the weights fitted on all `sessions`: what no new
    session can expect, the most a score can give on these labels."""
    return sweep(sessions, fit(sessions, variant)[1], variant.grid)


def curves(named: Sequence[tuple[str, Curve]]) -> str:
    """Each curve's most task switches found at a threshold where ●●● zones are at a reader
    boundary in each share or more (pooled over the sessions)."""
    rows = []
    for name, curve in named:
        points = [labels.summarise(scores) for scores in curve]
        cells = []
        for floor in PRECISIONS:
            best = max(
                (s for s in points if s.clear and s.clear_at_boundary >= floor),
                key=lambda s: (s.found, -s.clear),
                default=None,
            )
            cells.append("-" if best is None else _point(best))
        rows.append([name, *cells])
    return table(["score", *(f"precision >= {p:.0%}" for p in PRECISIONS)], rows)


def _point(s: LabelSummary) -> str:
    return f"{s.found}/{s.switches} ({s.clear_at_boundary:.0%})"


def plot(outcomes: Sequence[Outcome], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4.5))
    for o in outcomes:
        points = [labels.summarise(scores) for scores in o.curve]
        shown = [s for s in points if s.clear]
        axes.plot(
            [s.clear_at_boundary for s in shown],
            [s.found_share for s in shown],
            marker=".",
            label=o.variant.name,
        )
    axes.axvline(0.85, color="grey", linestyle=":")
    axes.axhline(0.80, color="grey", linestyle=":")
    axes.set_xlabel("●●● zones at a reader boundary (left one project out)")
    axes.set_ylabel("task switches with ●●● within one")
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.probes.grade_probe", description=__doc__
    )
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--plot", type=Path, help="write the held-out curves to this PNG")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "grade_probe")
    if shared is None:
        return 2
    sessions = [session_of(case) for case in labels.load(shared)]
    check = [graded(s, s.binary @ _today(s), DEFAULT_POINTS.clear) for s in sessions]
    now = [labels.score_session(s.case) for s in sessions]
    today = labels.summarise(now)
    same = [(a.found, a.clear, a.false_clear, a.pick) for a in check]
    assert same == [(a.found, a.clear, a.false_clear, a.pick) for a in now], "not keepd's grades"
    stops = sum(int(s.fitted.sum()) for s in sessions)
    outcomes = [cross_validated(sessions, variant) for variant in VARIANTS]
    print(f"{len(sessions)} calibration sessions, {stops} fitted stops; keepd now: {today.line()}")
    print("\nleft one project out (fit and threshold on the other projects):\n")
    print(summary(outcomes, stops))
    print("\nthe held-out curves: most switches found where ●●● is at a boundary so often:\n")
    print(curves([(o.variant.name, o.curve) for o in outcomes]))
    print("\nthe same, fitted on every session (in sample, an upper bound):\n")
    print(curves([(v.name, in_sample(sessions, v)) for v in VARIANTS]))
    if args.plot is not None:
        plot(outcomes, args.plot)
    return 0


def _today(session: Session) -> FloatArray:
    return np.array([s.value for s in session.signals])


if __name__ == "__main__":
    raise SystemExit(main())
