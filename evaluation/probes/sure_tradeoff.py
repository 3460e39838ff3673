"""`python -m evaluation.probes.sure_tradeoff [--held-out]`: ●●● only where a cue says the work
before is over (core/sure.py), the height that keeps the words' own ●●●, and the pick's move to
a later sure break among the newest prompts, each on and off: issue 27's figures side by side.

For each setting: the readers' three figures on the calibration labels in sample and with the
cues' points and ●●● total refitted left one project out (fit_points), and the notices of every
calibration session replayed turn by turn through the daemon's policy (evaluation/replay.py),
with the share within one stop of a reader's task boundary. Calibration only, unless
`--held-out` is given: then the same settings on the held-out labels (the points as shipped,
nothing refitted), to be looked at once, after the choice made on calibration.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from evaluation import fit_points, labels, replay
from evaluation.cases import label_file, shared_or_none
from evaluation.labels import Labelled, LabelSummary
from evaluation.markdown import table
from keepd.core.grade import DEFAULT_TUNING, Tuning, grade

NEVER = 1e9  # a height no zone reaches: the words alone never keep ●●●


def tuned(sure: bool, height: float, recent: int) -> Tuning:
    """keepd's tuning with the sure rule on or off, its height, and the pick's window."""
    points = DEFAULT_TUNING.points
    points = dataclasses.replace(
        points, sure=points.sure if sure else (), sure_height=height if sure else NEVER
    )
    return dataclasses.replace(DEFAULT_TUNING, points=points, recent=recent)


SETTINGS = (
    ("before issue 27's change: every ●●● kept, no move", tuned(False, NEVER, 0)),
    ("●●● needs a sure cue", tuned(True, NEVER, 0)),
    ("●●● needs a sure cue or 10+ wiggles", tuned(True, 10.0, 0)),
    ("●●● needs a sure cue; the pick moves (5)", tuned(True, NEVER, 5)),
    ("keepd: a sure cue or 10+ wiggles; the pick moves (5)", DEFAULT_TUNING),
)


def in_sample(cases: Sequence[Labelled], tuning: Tuning) -> LabelSummary:
    found = []
    for case in cases:
        p = case.prepared
        found.append(labels.score_grading(case, grade(p.curve, p.frees, tuning, p.events, p.cues)))
    return labels.summarise(found)


def notices(cases: Sequence[Labelled], tuning: Tuning) -> str:
    """Notices replayed, and how many lie within one stop of a reader's task boundary."""
    by_name = {case.name: case for case in cases}
    runs = [replay.replay(case.prepared.case.path, tuning=tuning) for case in cases]
    s = replay.summarise(runs, by_name)
    task = s.at(replay.NEWEST, replay.TASK)
    return f"{task}/{s.notices()} ({task / max(s.notices(), 1):.0%})"


def cells(s: LabelSummary) -> list[str]:
    return [
        fit_points.share(s.found, s.switches),
        fit_points.share(*fit_points.at_boundary(s)),
        fit_points.share(s.picks_near, s.sessions),
    ]


HEADERS = ["setting", "figures", "task switches with ●●● within one", "●●● at a reader boundary"]
HEADERS += ["pick within one of the newest", "notices at a task boundary (replayed)"]


def report(cases: Sequence[Labelled], held_out: bool) -> str:
    rows = []
    sessions = [] if held_out else [fit_points.stops_of(case) for case in cases]
    keep = list(sessions[0].fields) if sessions else []
    for name, tuning in SETTINGS:
        said = notices(cases, tuning)
        rows.append(
            [name, "held out" if held_out else "in sample", *cells(in_sample(cases, tuning)), said]
        )
        if sessions:
            lopo = labels.summarise(fit_points.cross_validated(sessions, keep, tuning))
            rows.append([name, "left one project out", *cells(lopo), "-"])
    return table(HEADERS, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.probes.sure_tradeoff")
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--held-out", action="store_true", help="the held-out labels, once")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "sure_tradeoff")
    if shared is None:
        return 2
    cases = labels.load(shared, label_file(shared, args.held_out))
    print(report(cases, args.held_out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
