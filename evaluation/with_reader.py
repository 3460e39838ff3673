"""The reader's headline for `python -m evaluation`: the replayed notices and the label figures
with the reader's recorded answers beside keepd alone, per side, each next to issue 28's floor.

The reader fits nothing: its answers are scored as recorded on every side. The rules that take
its answer (keepd/core/reader.py `takes`, the ●●● at its task starts, the break notice waiting
for a task start in keepd/daemon/alerts.py) were chosen on the calibration sessions' answers
(evaluation/probes/reader_merge.py measures others) and have no constant; held out, no rule saw
them. keepd's own constants are as shipped, chosen on the calibration sessions (its figures
left one project out are in the labels' section).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluation import reader, reader_replay, replay
from evaluation.cases import side_labels
from evaluation.labels import Labelled, Source
from evaluation.reader import Tally

EXACT = reader_replay.EXACT  # the side with the answers as recorded

# Issue 28's floors: notices at a task boundary, at the newest task so far; the pick; task
# switches with ●●●; ●●● zones near a reader boundary.
FLOORS = {"task": 0.85, "newest": 0.75, "pick": 0.85, "switches": 0.80, "zones": 0.85}


def share(hits: int, total: int) -> str:
    """`hits/total (pct)`; `-` for no total.

    >>> share(3, 4), share(0, 0)
    ('3/4 (75%)', '-')
    """
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


@dataclass(frozen=True, slots=True)
class Measured:
    """One side with the reader: its replays three ways and its label figures both ways."""

    source: Source
    replays: reader_replay.Side
    scores: reader.Scores
    labelled: dict[str, Labelled]
    left_out: reader.Scores | None = None  # calibration: keepd's points refitted per project
    alone_left_out: tuple[replay.Replayed, ...] = ()  # calibration: keepd alone, refitted so

    @property
    def role(self) -> str:
        return "held out" if self.source.held_out else "calibration"

    def asks(self) -> str:
        """How often the daemon would ask, and how often its exact request has an answer."""
        runs = self.replays.exact
        asks = [(ask, run) for run in runs for ask in run.asks]
        hits = sum(ask.recorded for ask, _ in asks)
        last = sum(ask.recorded and ask.row == run.prompts - 1 for ask, run in asks)
        decided = sum(
            1 for run in runs for sent in run.notices if sent.after_prompt in run.answered
        )
        return (
            f"the daemon would ask the reader {len(asks)} times; {hits} of those exact requests "
            f"have a recorded answer ({last} at a session's last turn); {decided} notices were "
            "decided on one"
        )

    def rows(self) -> list[list[str]]:
        """figure | keepd alone | with the recorded answers | hindsight bound | floor ("near":
        within one stop)."""
        way = self.replays
        runs = [way.alone, [r.as_replay() for r in way.exact], [r.as_replay() for r in way.bound]]
        notices = [_notices(found, self.labelled) for found in runs]
        alone, merged = _labels(self.scores.local), _labels(self.scores.reader)
        return [
            ["notices sent", *(n[0] for n in notices), "-"],
            ["notices at a reader's task boundary", *(n[1] for n in notices), _floor("task")],
            ["notices at the newest task so far", *(n[2] for n in notices), _floor("newest")],
            [
                "notices where a reader marks a task by then (the most at one)",
                *(n[3] for n in notices),
                "-",
            ],
            ["break notices at a task boundary", *(n[4] for n in notices), "-"],
            [URGENT_ROW, *(n[5] for n in notices), "-"],
            *([label, *(n[6 + k] for n in notices), "-"] for k, label in enumerate(SURENESS_ROWS)),
            ["pick within one of the readers' newest", alone[0], merged[0], "-", _floor("pick")],
            ["task switches with ●●● within one", alone[1], merged[1], "-", _floor("switches")],
            ["●●● zones near a reader boundary", alone[2], merged[2], "-", _floor("zones")],
            *self._left_out(),
        ]

    def _left_out(self) -> list[list[str]]:
        if self.left_out is None:
            return []
        notices = []
        if self.alone_left_out:
            at_task = _notices(list(self.alone_left_out), self.labelled)[1]
            row = [f"notices at a reader's task boundary, {LEFT_OUT}", at_task, "-", "-"]
            notices = [[*row, _floor("task")]]
        alone, merged = _labels(self.left_out.local), _labels(self.left_out.reader)
        names = ("pick within one", "task switches with ●●●", "●●● zones near a boundary")
        floors = ("pick", "switches", "zones")
        return notices + [
            [f"{name}, {LEFT_OUT}", a, m, "-", _floor(f)]
            for name, a, m, f in zip(names, alone, merged, floors, strict=True)
        ]


LEFT_OUT = "keepd's points left one project out"
URGENT_ROW = "urgent notices at a task boundary; sent before any task is marked"
SURENESS_ROWS = (  # by `replay.SURENESS`
    "saying fairly sure: at a task boundary",
    "saying less sure: at a task boundary",
    "saying neither (not ●●●): at a task boundary",
)


HEADERS = ["", "keepd alone", "with the recorded answers", "hindsight bound", "issue 28's floor"]


def _floor(name: str) -> str:
    return f"{FLOORS[name]:.0%}"


def measure(
    source: Source,
    cases: list[Labelled],
    shared: Path,
    runs: Mapping[str, replay.Replayed] | None = None,
    every: list[Labelled] | None = None,
    *,
    alone_left_out: Sequence[replay.Replayed] = (),
) -> Measured:
    """One side's cases with a recorded answer, replayed and scored with and without it; on
    calibration also with keepd's points refitted on the other projects of `every` (default:
    `cases`), and keepd alone's notices so refitted (`alone_left_out`, those of `cases` with an
    answer counted)."""
    labelled = {case.name: case for case in cases}
    found = reader_replay.side(cases, runs=runs)
    chosen = {n: v for n, v in side_labels(shared, source.held_out).items() if n in labelled}
    sessions = shared / "corpus" / "sessions"
    scores = reader.score(sessions, chosen)
    fit_on = every if every is not None else cases
    left_out = None if source.held_out else reader.score_left_out(sessions, chosen, fit_on)
    answered = {run.session for run in found.exact}
    kept = tuple(run for run in alone_left_out if run.session in answered)
    return Measured(source, found, scores, labelled, left_out, kept)


def _notices(runs: list[replay.Replayed], labelled: dict[str, Labelled]) -> tuple[str, ...]:
    """sent, at a task boundary, at the newest task, where one can be, the break and the
    urgent notices at a task boundary, then at a task boundary of those saying each of
    `replay.SURENESS`."""
    s = replay.summarise(runs, labelled)
    n = s.notices()
    breaks, urgent = sum(s.breaks.values()), sum(s.urgent.values())
    sent = f"{n} ({breaks} break, {urgent} urgent)"
    at_task, newest = share(s.at(replay.NEWEST, replay.TASK), n), share(s.at(replay.NEWEST), n)
    kinds = [_at_task(s.breaks), _at_task(s.urgent)]
    kinds[1] += f"; {s.urgent_taskless}" if urgent else ""
    said = [share(*counts) for counts in replay.by_sureness(runs, labelled).values()]
    return sent, at_task, newest, share(n - s.taskless, n), *kinds, *said


def _at_task(by_mark: dict[str, int]) -> str:
    """How many of one kind's notices are at a task boundary, of how many.

    >>> _at_task({replay.NEWEST: 2, replay.TASK: 1, replay.STEP: 3, replay.NEITHER: 0})
    '3/6 (50%)'
    """
    return share(*replay.at_task_of(by_mark))


def _labels(t: Tally) -> tuple[str, str, str]:
    return (
        share(t.pick_near, t.picks),
        share(t.switches_clear, t.switches),
        share(t.clear_near, t.clear_zones),
    )


def side_lines(found: Measured) -> list[str]:
    """One side as text: each figure's row, and the asks."""
    head = (
        f"{found.role} ({found.source.title}, {len(found.replays.exact)} sessions with a "
        f"recorded answer): {' | '.join(HEADERS[1:])}"
    )
    body = [f"  {row[0]}: {' | '.join(row[1:])}" for row in found.rows()]
    return [head, *body, f"  {found.asks()}"]


NOTE = (
    "An answer is recorded for every request the daemon would send, turn by turn, and for "
    "each session's whole history (evaluation/data/reader/README.md). The hindsight bound cuts the "
    "whole-history answer to the prompts so far at every ask: that answer saw later prompts, "
    "so it is not what the daemon would do. The label figures read the whole history, as the "
    "labels do. The reader fits nothing: its answers are scored as recorded on both sides; the "
    "rules that take them (the merge, a break notice waiting for a task start) were chosen on "
    "calibration's answers. "
    "keepd's constants are as shipped (chosen on calibration), except in the calibration rows "
    f'marked "{LEFT_OUT}": there the cues\' points and the ●●● total are fitted on the other '
    "projects' sessions (evaluation/fit_points.py), the newest-work model as shipped."
)


def headline(
    read: dict[Source, list[Labelled]],
    shared: Path,
    runs: Mapping[str, replay.Replayed] | None = None,
    alone_left_out: Sequence[replay.Replayed] = (),
) -> str:
    """Both sides' reader figures, with how they were measured (`alone_left_out`: calibration's
    notices with keepd's points refitted on the other projects)."""
    parts = ["with the reader's recorded answers (issue 28), beside keepd alone\n", NOTE, ""]
    for source, cases in read.items():
        parts += side_lines(measure(source, cases, shared, runs, alone_left_out=alone_left_out))
        parts.append("")
    return "\n".join(parts)
