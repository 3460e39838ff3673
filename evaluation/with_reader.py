"""The reader's headline for `python -m evaluation`: the replayed notices and the label figures
with the reader's recorded answers beside keepd alone, per side, each next to issue 28's floor.

The reader fits nothing and the rule that takes its answer was chosen on no answer
(evaluation/probes/reader_merge.py measures others), so its answers are scored as recorded on
every side; keepd's own constants are as shipped, chosen on the calibration sessions (its
figures left one project out are in the labels' section).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from evaluation import reader, reader_replay, replay
from evaluation.cases import side_labels
from evaluation.labels import Labelled, Source
from evaluation.reader import Tally

# Issue 28's floors: notices at a task boundary, at the newest task so far; the pick; task
# switches with ●●●; ●●● zones near a reader boundary.
FLOORS = {"task": 0.85, "newest": 0.75, "pick": 0.85, "switches": 0.80, "zones": 0.85}


def share(hits: int, total: int) -> str:
    """`hits/total (pct)`; `-` for no total.

    >>> share(3, 4), share(0, 0)
    ('3/4 (75%)', '-')
    """
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def _notices(runs: list[replay.Replayed], labelled: dict[str, Labelled]) -> tuple[str, str]:
    s = replay.summarise(runs, labelled)
    n = s.notices()
    return share(s.at(replay.NEWEST, replay.TASK), n), share(s.at(replay.NEWEST), n)


def _labels(t: Tally) -> tuple[str, str, str]:
    return (
        share(t.pick_near, t.picks),
        share(t.switches_clear, t.switches),
        share(t.clear_near, t.clear_zones),
    )


def side_lines(
    source: Source,
    cases: list[Labelled],
    shared: Path,
    runs: Mapping[str, replay.Replayed] | None = None,
) -> list[str]:
    """One side: the notices three ways (alone, recorded answers, hindsight bound), the asks,
    and the three label figures alone and with the answers, each with its floor."""
    role = "held out" if source.held_out else "calibration"
    labelled = {case.name: case for case in cases}
    found = reader_replay.side(cases, runs=runs)
    exact = [run.as_replay() for run in found.exact]
    bound = [run.as_replay() for run in found.bound]
    sides = [_notices(runs, labelled) for runs in (found.alone, exact, bound)]
    scores = reader.score(shared / "corpus" / "sessions", side_labels(shared, source.held_out))
    alone, merged = _labels(scores.local), _labels(scores.reader)
    asks = [ask for run in found.exact for ask in run.asks]
    last = sum(
        ask.recorded and ask.row == run.prompts - 1 for run in found.exact for ask in run.asks
    )
    decided = sum(
        1 for run in found.exact for sent in run.notices if sent.after_prompt in run.answered
    )
    head = f"{role} ({source.title}, {len(found.exact)} sessions with a recorded answer)"
    return [
        f"{head}: keepd alone | with the recorded answers | hindsight bound [issue 28's floor]",
        f"  notices at a reader's task boundary: "
        f"{' | '.join(s[0] for s in sides)} [{FLOORS['task']:.0%}]",
        f"  notices at the newest task so far: "
        f"{' | '.join(s[1] for s in sides)} [{FLOORS['newest']:.0%}]",
        f"  the daemon would ask the reader {len(asks)} times; {sum(a.recorded for a in asks)} "
        f"of those exact requests have a recorded answer ({last} at a session's last turn); "
        f"{decided} notices were decided on one",
        f"  pick within one of the readers' newest: {alone[0]} | {merged[0]} "
        f"[{FLOORS['pick']:.0%}]",
        f"  task switches with ●●● within one: {alone[1]} | {merged[1]} [{FLOORS['switches']:.0%}]",
        f"  ●●● zones within one of a reader boundary: {alone[2]} | {merged[2]} "
        f"[{FLOORS['zones']:.0%}]",
    ]


def headline(
    read: dict[Source, list[Labelled]],
    shared: Path,
    runs: Mapping[str, replay.Replayed] | None = None,
) -> str:
    """Both sides' reader figures, with how they were measured."""
    parts = [
        "with the reader's recorded answers (issue 28), beside keepd alone\n",
        "Recorded answers exist for each session's whole history: the daemon's request at a "
        "session's last turn. At an earlier turn no answer to its exact request is recorded and "
        "the local grade stands, as when the reader fails. The hindsight bound cuts the "
        "whole-history answer to the prompts so far at every ask: that answer saw later "
        "prompts, so it is not what the daemon would do. The label figures read the whole "
        "history, as the labels do. The reader fits nothing: its answers are scored as "
        "recorded on both sides; keepd's constants are as shipped (chosen on calibration).\n",
    ]
    for source, cases in read.items():
        parts += side_lines(source, cases, shared, runs)
        parts.append("")
    return "\n".join(parts)
