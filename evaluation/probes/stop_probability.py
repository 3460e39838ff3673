"""`python -m evaluation.probes.stop_probability`: one calibrated probability per stop that a
new task begins there, its ●●● zones a threshold on it and its pick the stop where the last new
task most likely begins, measured left one project out on the calibration labels against
keepd's grading refitted the same way and against trivial picks.

The probability is a ridge logistic fit (stop_score.fit: standardised columns, weights in each
column's own units) of the stops both readers call a task against the usable stops no reader
marked within one (fit_points' rows), on the features issue 27 found to carry across projects:
work finished in the turn before, a branch switch, a prompt that says it turns to the next
thing, the prompt before closing the work, a prompt that replies to the turn before, new words
(the cue and its share), new files (the cue and its share), the pause (as a log) and how far
this turn's reply is from the last one in words. ●●● goes to the usable stops whose probability
reaches the threshold and no usable neighbour's beats (points.clear_stops), the threshold chosen
on the other projects by fit_points' rule (the most task switches while ●●● stays at a reader
boundary in 85% or more one standard error down). The pick is the usable stop, the newest
prompt never, that most likely begins the last new task: the largest p(k) times the product of
1 - p(j) over the usable stops after it; a prompt that only closes the work (the stop after it
carries "the prompt before closed the work") gives way to the prompt after it. Calibration
labels only, unless `--held-out` is given: then the model and thresholds are fitted on every
calibration session and checked once on the held-out labels.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation import baselines, labels
from evaluation.cases import label_file, project_folds, shared_or_none
from evaluation.fit_points import by_rule, share
from evaluation.labels import LabelSummary, SessionScore
from evaluation.markdown import table
from evaluation.stop_score import FloatArray, Session, Variant, fit, session_of
from keepd.core.cued import usable_stops
from keepd.core.grade import DEFAULT_TUNING
from keepd.core.points import clear_stops

BINARY = ("finished", "branch", "turns", "after_closing", "replies", "novel", "new_files")
EXTRA = ("log pause", "words: reply", "new words share", "new files share")
CHANCES = tuple(round(float(c), 2) for c in np.arange(0.2, 0.96, 0.05))  # ●●● thresholds
VARIANTS = (
    Variant("the issue's features, ridge 1", EXTRA, cues=BINARY, ridge=1.0),
    Variant("the issue's features, ridge 10", EXTRA, cues=BINARY, ridge=10.0),
    Variant("cues only (0/1), ridge 1", (), cues=BINARY, ridge=1.0),
    Variant(
        "+ prompt length and height, ridge 1",
        (*EXTRA, "log prompt words", "height"),
        cues=(*BINARY, "long_prompt"),
        ridge=1.0,
    ),
)


def chances(logit: FloatArray) -> FloatArray:
    """Every stop's probability from the model's logit."""
    return 1.0 / (1.0 + np.exp(-logit))


def usable(session: Session) -> np.ndarray:
    p = session.case.prepared
    return usable_stops(p.curve, p.frees, DEFAULT_TUNING)


def clear_at(session: Session, chance: FloatArray, threshold: float) -> list[int]:
    """The ●●● stops: usable, the probability at `threshold` or more, no usable neighbour's
    higher."""
    return clear_stops(chance, usable(session), threshold)


def closers(session: Session) -> np.ndarray:
    """Stops whose prompt closes the work (the stop after carries the signal)."""
    fields = [s.field for s in session.signals]
    after = session.binary[:, fields.index("after_closing")] > 0
    return np.concatenate([after[1:], [False]])


def pick(session: Session, chance: FloatArray, floor: float | None = None) -> int | None:
    """The session's pick (`last_task` on its usable stops and closing prompts)."""
    return last_task(usable(session), chance, closers(session), floor)


def last_task(
    usable: np.ndarray, chance: FloatArray, closing: np.ndarray, floor: float | None = None
) -> int | None:
    """Where the last new task most likely begins: the usable stop with the largest p(k) times
    the product of 1 - p(j) over the usable stops after it, or with a `floor`, the latest usable
    stop whose probability reaches it (none: the newest prompt). The pick never names the newest
    prompt: a last task that begins there is picked at the stop before it, within one. A prompt
    that only closes the work gives way to the one after it.

    >>> ok = np.array([False, False, True, True, True, True])
    >>> last_task(ok, np.array([0, 0, 0.9, 0.1, 0.1, 0.1]), np.zeros(6, bool))
    2
    >>> last_task(ok, np.array([0, 0, 0.9, 0.1, 0.1, 0.95]), np.zeros(6, bool))  # not the newest
    4
    >>> last_task(ok, np.array([0, 0, 0.9, 0.1, 0.1, 0.1]), np.array([0, 0, 1, 0, 0, 0], bool))
    3
    """
    ok = np.asarray(usable, dtype=bool).copy()
    n = len(ok)
    if n >= 2:
        ok[n - 1] = True  # where the last task may begin, not a stop to pick
    at = np.flatnonzero(ok)
    if not len(at):
        return None
    if floor is not None:
        sure = at[chance[at] >= floor]
        k = int(sure[-1]) if len(sure) else n - 1
    else:
        p = np.clip(chance[at], 1e-6, 1 - 1e-6)
        after = np.concatenate([np.cumsum(np.log1p(-p)[::-1])[::-1][1:], [0.0]])
        k = int(at[int(np.argmax(np.log(p) + after))])
    if closing[k] and k + 1 < n:
        k += 1
    return max(min(k, n - 2), 0)


FLOORS = (None, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def chosen_floor(sessions: Sequence[Session], found: Sequence[FloatArray]) -> float | None:
    """The pick's floor that puts the most picks within one of the newest (of equals, the
    first: no floor, then the lowest)."""
    best, at = -1, None
    for floor in FLOORS:
        hits = sum(
            1
            for s, c in zip(sessions, found, strict=True)
            if labels.pick_near(s.case.newest(), pick(s, c, floor))
        )
        if hits > best:
            best, at = hits, floor
    return at


def scored(
    session: Session, chance: FloatArray, threshold: float, floor: float | None = None
) -> SessionScore:
    return labels.score_stops(
        session.case, clear_at(session, chance, threshold), pick(session, chance, floor)
    )


def chosen_threshold(sessions: Sequence[Session], found: Sequence[FloatArray]) -> float:
    swept = [
        labels.summarise([scored(s, c, t) for s, c in zip(sessions, found, strict=True)])
        for t in CHANCES
    ]
    return CHANCES[by_rule(swept)]


@dataclass(frozen=True, slots=True)
class Result:
    variant: Variant
    held: list[SessionScore]
    thresholds: list[float]
    pooled: list[tuple[float, bool]]  # every usable stop's probability, and whether a task
    floors: list[float | None]  # the pick's floor chosen in each fold


def cross_validated(sessions: Sequence[Session], variant: Variant) -> Result:
    """Each project's sessions scored by the model and threshold fitted on the others."""
    held: dict[int, SessionScore] = {}
    thresholds, pooled = [], []
    floors: list[float | None] = []
    for fold in project_folds([s.case.name for s in sessions]):
        rest = [s for j, s in enumerate(sessions) if j not in fold]
        _, model = fit(rest, variant)
        found = [chances(model(s)) for s in rest]
        threshold = chosen_threshold(rest, found)
        floor = chosen_floor(rest, found)
        thresholds.append(threshold)
        floors.append(floor)
        for i in fold:
            chance = chances(model(sessions[i]))
            held[i] = scored(sessions[i], chance, threshold, floor)
            ok = usable(sessions[i])
            pooled += [
                (float(c), bool(t))
                for c, t in zip(chance[ok], near_task(sessions[i])[ok], strict=True)
            ]
    return Result(variant, [held[i] for i in range(len(sessions))], thresholds, pooled, floors)


def near_task(session: Session) -> np.ndarray:
    """Stops within one of a stop both readers call a task."""
    tasks = {k for pair in session.case.task_switches() for k in pair}
    n = len(session.case.prepared.curve)
    return np.array([any(abs(k - j) <= 1 for j in tasks) for k in range(n)], dtype=bool)


def row(name: str, s: LabelSummary) -> list[str]:
    return [
        name,
        share(s.found, s.switches),
        share(s.clear - s.false_clear, s.clear),
        share(s.picks_near, s.sessions),
    ]


def reliability(pooled: Sequence[tuple[float, bool]]) -> str:
    """How often a usable stop is within one of a task switch, by its probability (pooled,
    left one project out)."""
    edges = (0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.01)
    rows = []
    for lo, hi in itertools.pairwise(edges):
        inside = [t for c, t in pooled if lo <= c < hi]
        mean = np.mean([c for c, _ in pooled if lo <= c < hi]) if inside else float("nan")
        rows.append(
            [
                f"{lo:.1f}-{min(hi, 1.0):.1f}",
                len(inside),
                f"{mean:.2f}",
                f"{sum(inside)}/{len(inside)}",
            ]
        )
    return table(
        ["probability", "usable stops", "mean probability", "within one of a task switch"], rows
    )


HEADERS = ["rule", "task switches with ●●● within one", "●●● at a reader boundary", "pick"]


def report(sessions: Sequence[Session]) -> str:
    today = labels.summarise([labels.score_session(s.case) for s in sessions])
    points = labels.summarise(baselines.points_left_out([s.case for s in sessions]))
    results = [cross_validated(sessions, v) for v in VARIANTS]
    trivial = baselines.baselines(
        [s.case for s in sessions], [labels.score_session(s.case) for s in sessions]
    )
    best = baselines.best_pick(trivial)
    rows = [
        row("keepd as shipped (in sample)", today),
        row("keepd, points and ●●● total left one project out", points),
        *(row(f"probability: {r.variant.name}", labels.summarise(r.held)) for r in results),
        [
            "best trivial pick: " + best.name,
            "-",
            "-",
            share(best.summary.picks_near, best.summary.sessions),
        ],
    ]
    lines = [
        f"{len(sessions)} calibration sessions; left one project out "
        f"({len(project_folds([s.case.name for s in sessions]))} projects)\n",
        table(HEADERS, rows),
        "",
        *(
            f"{r.variant.name}: thresholds chosen {min(r.thresholds):g}-{max(r.thresholds):g}"
            for r in results
        ),
        "",
        f"calibration of '{results[0].variant.name}', left one project out:\n",
        reliability(results[0].pooled),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.probes.stop_probability", description=__doc__
    )
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="check once on the held-out labels, everything fitted on calibration",
    )
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "stop_probability")
    if shared is None:
        return 2
    sessions = [session_of(case) for case in labels.load(shared, label_file(shared, False))]
    if args.held_out:
        held = [session_of(case) for case in labels.load(shared, label_file(shared, True))]
        print(held_out(sessions, held))
    else:
        print(report(sessions))
    return 0


def held_out(calibration: Sequence[Session], held: Sequence[Session]) -> str:
    """Every variant fitted, its threshold and pick floor chosen, on all calibration sessions,
    then scored once on the held-out ones, beside keepd and the trivial picks."""
    cases = [s.case for s in held]
    keepd = [labels.score_session(case) for case in cases]
    trivial = baselines.baselines(cases, keepd)
    best = baselines.best_pick(trivial)
    rows = [row("keepd as shipped", labels.summarise(keepd))]
    for variant in VARIANTS:
        _, model = fit(calibration, variant)
        found = [chances(model(s)) for s in calibration]
        threshold, floor = chosen_threshold(calibration, found), chosen_floor(calibration, found)
        scores = [scored(s, chances(model(s)), threshold, floor) for s in held]
        rows.append(
            row(
                f"probability: {variant.name} (≥ {threshold:g}, floor {floor})",
                labels.summarise(scores),
            )
        )
    rows.append(
        [
            "best trivial pick: " + best.name,
            "-",
            "-",
            share(best.summary.picks_near, best.summary.sessions),
        ]
    )
    return f"{len(held)} held-out sessions, checked once\n\n" + table(HEADERS, rows)


if __name__ == "__main__":
    raise SystemExit(main())
