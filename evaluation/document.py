"""Writes docs/EVALUATION.md (the guide: headline figures), docs/EVALUATION-reference.md (every
table behind them and the rest) and their figures from one run of the evaluation.

The section on keepd against the other methods is `methods_doc`'s; what the machine's load was
while keepd was timed, and the words for it, are `load`'s."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation import (
    guide_doc,
    load,
    methods_doc,
    plots,
    ranks,
    readers_doc,
    sessions,
    speed,
    sweep,
    with_reader,
    zones,
)
from evaluation.dialogue import DatasetResult, Row
from evaluation.labels import Labelled, Source
from evaluation.markdown import image, number, table
from evaluation.picks import MethodRows, Timed
from evaluation.replay import Replayed
from evaluation.score import Prepared
from evaluation.sessions import GroupCases
from keepd.core.grade import DEFAULT_TUNING

FIGURES = {
    "segmentation": "evaluation-segmentation.png",
    "picks": "evaluation-picks.png",
    "tail": "evaluation-tail.png",
    "zones": "evaluation-zones.png",
    "sweep": "evaluation-sweep.png",
}


@dataclass(frozen=True, slots=True)
class Run:
    """Everything one run measured."""

    shared: Path
    tiny: bool
    machine: str
    load: load.Load
    segmentation: list[DatasetResult]
    groups: list[GroupCases]
    labelled: list[Prepared]
    singles: list[Prepared]
    methods: MethodRows
    timed: list[Timed]
    rank_study: ranks.RankStudy
    example: ranks.Example
    multiples: zones.Multiples
    sweeps: list[sweep.CaseSweep]
    combinations: list[sweep.Combination]
    cold: speed.Cold
    appends: list[speed.Append]
    daemon: str
    seconds: float
    readers: dict[Source, list[Labelled]]
    replayed: list[Replayed]
    replayed_left_out: list[Replayed]  # calibration's, keepd's points fitted on other projects
    reader: list[with_reader.Measured]


def write(run: Run, out: Path) -> Path:
    """Writes both pages; returns the guide's path."""
    _figures(run, out)
    parts = [
        _header(
            run,
            "the reference",
            "The headline figures are in [the guide](EVALUATION.md)." + _loaded(run),
        ),
        readers_doc.headline(run.replayed, run.readers, run.replayed_left_out),
        _segmentation(run),
        _sessions(run),
        readers_doc.readers_section(run.readers, run.groups),
        readers_doc.replay_section(run.replayed, _every_label(run)),
        guide_doc.reference_section(run.reader),
        methods_doc.section(run.methods, run.timed, run.labelled, FIGURES["picks"]),
        _tail(run),
        _zones(run),
        _robustness(run),
        _speed(run),
    ]
    (out / guide_doc.REFERENCE).write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    path = out / "EVALUATION.md"
    header = _header(run, "the guide", _loaded(run))
    path.write_text(guide_doc.guide(header, run.reader, run.readers) + "\n", encoding="utf-8")
    return path


def _every_label(run: Run) -> list[Labelled]:
    return [case for found in run.readers.values() for case in found]


def _figures(run: Run, out: Path) -> None:
    plots.segmentation(
        {
            r.name: {_label(row): (row.totals.pk, row.totals.wd) for row in r.rows}
            for r in run.segmentation
        },
        out / FIGURES["segmentation"],
    )
    pooled = methods_doc.pooled_rates(run.methods)
    title = "held-out joins, each piece its own tail (pooled)"
    plots.picks(pooled, title, out / FIGURES["picks"])
    ex = run.example
    plots.tail_order(ex.series, ex.stops, ex.gold, run.rank_study.rho, out / FIGURES["tail"])
    thresholds = (DEFAULT_TUNING.faint, DEFAULT_TUNING.subtopic, DEFAULT_TUNING.clear)
    plots.multiples(run.multiples.kinds, thresholds, out / FIGURES["zones"])
    rates = {role: _combination_rates(run, role) for role in ("calibration", "held out")}
    plots.sweep(rates["calibration"], rates["held out"], out / FIGURES["sweep"])


def _label(row: Row) -> str:
    return f"{row.method} ({row.setting})" if "published" in row.setting else row.method


def _combination_rates(run: Run, role: str) -> list[float]:
    chosen = [s.near for s in run.sweeps if s.role == role]
    if not chosen:
        return []
    return [float(v) for v in np.asarray(chosen, dtype=bool).mean(axis=0)]


# sections --------------------------------------------------------------------------------


def _header(run: Run, page: str, more: str) -> str:
    return guide_doc.header(run.seconds, run.machine, run.tiny, page, more)


def _loaded(run: Run) -> str:
    """The warning that opens both pages when the machine was loaded while keepd was timed."""
    return f"\n\n{load.warning(run.load)}" if run.load.loaded else ""


def _segmentation(run: Run) -> str:
    parts = [
        """## Dialogue topic segmentation

Every utterance is a message and a stop, given to keepd as plain texts (`analyse_texts`).
**How keepd segments:** every zone of the curve whose height reaches a threshold starts a new
segment. Zones are the local maxima of the height (how far a stop's SC stands above the next
stops and, weighted, above the stops before it, in wiggles of its own curve); the floors that
keep the end of a session's curve out of the pick are off, since every utterance may start a
topic. The threshold, the windows and the rise weight are chosen on the calibration split
(minimum mean of Pk and WindowDiff), as every baseline's setting is; everything below is the
test split. Pk and WindowDiff are nltk's, with k = max(2, round(N / (B + 1) / 2)) and the
final utterance 0 (SuperDialseg); F1 is over exact boundary positions, pooled; "per dialogue"
is the number of boundaries predicted; time is the whole test split, one process."""
    ]
    for result in run.segmentation:
        rows = [
            [
                row.method,
                row.setting or "-",
                number(row.totals.pk),
                number(row.totals.wd),
                number(row.totals.f1),
                f"{row.totals.per_dialogue:.2f}",
                f"{row.seconds:.2f} s",
            ]
            for row in result.rows
        ]
        headers = [
            "method",
            "setting (chosen on calibration)",
            "Pk",
            "WindowDiff",
            "F1",
            "per dialogue",
            "time",
        ]
        parts.append(
            f"### {result.name}: test, {result.test} dialogues; "
            f"calibration on {result.calibration}\n\n"
            + table(headers, rows)
            + "\n\n"
            + _verdict(result)
        )
    parts.append(
        "Published on DialSeg711: TextTiling 0.470 / 0.492, C99 0.359 / 0.373 (Pk / WindowDiff); "
        "the supervised DialSTART reaches Pk 0.18, out of reach without training and not keepd's "
        "job. DialSeg711's dev split has only 7 dialogues, so its calibration is coarse.\n\n"
        + image(FIGURES["segmentation"], "Pk and WindowDiff of every method on both test sets")
    )
    return "\n\n".join(parts)


def _verdict(result: DatasetResult) -> str:
    keepd = next(row.totals for row in result.rows if row.method == "keepd")
    tilings = [row.totals for row in result.rows if row.method.startswith("TextTiling")]
    tiling = min(tilings, key=lambda t: t.loss)
    nothing = next(row.totals for row in result.rows if row.method == "no boundary")
    return (
        f"keepd: Pk {keepd.pk:.3f}, WindowDiff {keepd.wd:.3f}. On Pk it is "
        f"{_than(keepd.pk, tiling.pk)} the best TextTiling ({tiling.pk:.3f}) and "
        f"{_than(keepd.pk, nothing.pk)} no boundary at all ({nothing.pk:.3f}); on WindowDiff "
        f"{_than(keepd.wd, tiling.wd)} TextTiling ({tiling.wd:.3f}) and "
        f"{_than(keepd.wd, nothing.wd)} no boundary ({nothing.wd:.3f})."
    )


def _than(a: float, b: float) -> str:
    return "better than" if a < b else "no better than"


def _sessions(run: Run) -> str:
    groups = run.groups
    tails = "tails of 8-15 prompts per piece unless the title says otherwise"
    return f"""## Sessions: keepd's pick

Stitched sessions join real transcripts end to end with `../shared/tools/stitch.py` ({tails});
every curve covers the whole history. The joins of each side of the split draw their pieces
only from the sessions labelled on that side: calibration joins from the calibration sessions
(`boundaries.json`), held-out joins from the held-out ones (`held_out_labels.json`), so no
held-out join carries a session anything was tuned on, and every piece has readers. (A corpus
session labelled on neither side would go into no join; today there is none.) A draw of the
same pieces with the same tails as an earlier one is skipped, so a group that runs out of
distinct joins has fewer than asked for.

A join's *gold* is where a reader, given its pieces' labels, would say its newest task begins.
That is the *junction* (the first prompt of the last piece), unless the readers of the last
piece's own session marked a new task inside its tail: then the newest task begins there, and
a pick there is right for a person ("summarize up to the newest work"). Where both readers
call a stop of the tail a task (within one stop of each other), the newest such stop, mapped
into the join by the prompt's uuid, is the gold, either reader's stop counting as at it; a
later task only one reader marked counts beside it (or beside the junction). Steps do not move
the gold: they continue the task begun at the junction (`evaluation/piece_gold.py`).
"Gold moved" counts the joins whose gold is not the junction; the junction alone is kept as the
last columns, so a pick at the junction of a join whose last piece goes on to a new task is
visible as a hit there and a miss against the gold.

The held-out joins rest on few sessions: of the 17 held-out sessions, 6 (in 3 repositories)
have the 8 prompts a tail of 8-15 needs, so the held-out groups of tails 8-15 repeat the same
few last pieces; the groups of other tails use more of them.

{sessions.pick_table(groups)}

### Grades at the junction

How the zone at the junction (or one stop from it) is graded, and how the pick is graded.

{sessions.grade_table(groups)}

### The labelled sessions (the newest piece as a reader marked it)

Every session is scored with its own breaks (a git branch switch, a compaction, a pause of ten
minutes or more before a prompt): when no zone reaches ●●, the latest stop one of them precedes
is the pick (docs/measure.md, "Grading"). A stitched join keeps its pieces' breaks but none at a
junction: the stitcher hangs each piece a minute after the last, and pieces from other projects
differ in git branch there, which would give the junction away.

{sessions.labelled_table(run.labelled)}

{sessions.singles_line(run.singles)}

### Were events to outrank ●● zones

The variant the labelled sessions ask for: a ●●● zone still wins, but otherwise the later of
the ●● pick and the latest event stop is the pick. The gold is the labelled sessions' newest
piece and the joins' gold (the junction, or the newest task inside the last piece).

{sessions.outranking_table(groups, run.labelled)}"""


def _tail(run: Run) -> str:
    return f"""## Does the score rank stops by tail size?

The seed's similarity split score (TF-IDF vectors of each turn, since no embedding model is
available offline: the two halves least alike and each half most alike within) ranked the stops
of a labelled session exactly by tail size. Here, over the stops keepd could pick in each of
{run.rank_study.sessions} sessions (stitched, labelled and unstitched), each score's Spearman ρ
with the tail size (stops kept):

{ranks.rank_table(run.rank_study)}

{image(FIGURES["tail"], "One session's scores by stop, and ρ with tail size over all sessions")}

Left: `{run.example.name}`, each score scaled to 0-1, the junction dashed. Right: ρ per session."""


def _zones(run: Run) -> str:
    return f"""## Zone multiples: junctions, sub-topics, noise

What the grade thresholds (● {DEFAULT_TUNING.faint:g}, ●● {DEFAULT_TUNING.subtopic:g},
●●● {DEFAULT_TUNING.clear:g} wiggles) are chosen from. {zones.__doc__.split(chr(10), 2)[2].strip()}

{zones.zones_table(run.multiples)}

{image(FIGURES["zones"], "Distributions of zone multiples with the grade thresholds")}

Noise curves whose highest zone is under one wiggle count as 0 in the table and are left out of
the figure."""


def _robustness(run: Run) -> str:
    stitched = [s for s in run.sweeps if s.role != "labelled"]
    labelled = [s for s in run.sweeps if s.role == "labelled"]
    return f"""## Robustness: {len(run.combinations)} combinations of the constants

Text policies {", ".join(sweep.POLICIES)}; grade thresholds (●● / ●●●)
{", ".join(f"{a:g} / {b:g}" for a, b in sweep.THRESHOLDS)}; kept floors (share / uses)
{", ".join(f"{a:g} / {b}" for a, b in sweep.FLOORS)}; rise weights
{", ".join(f"{w:g}" for w in sweep.RISE_WEIGHTS)}; windows {", ".join(map(str, sweep.WINDOWS))}.
Every combination is applied to every case. "Inside the top zone" means the pick stays within one
stop of the default pick (or there is still no pick where the default makes none).

{sweep.group_table(stitched)}

Labelled sessions:

{sweep.case_table(labelled)}

Each value of each constant, averaged over the combinations that use it (within one stop of the
gold, stitched joins):

{sweep.constant_table(stitched, run.combinations)}

{image(FIGURES["sweep"], "Within-one rate of every combination, sorted")}"""


def _speed(run: Run) -> str:
    cold = run.cold
    rows = [
        [
            f"{a.size:,}",
            f"{a.median * 1e6:.0f} µs",
            f"{a.p99 * 1e6:.0f} µs",
            f"{a.refresh * 1000:.1f} ms",
        ]
        for a in run.appends
    ]
    return f"""## Speed

Machine: {run.machine}.

{load.describe(run.load)}

Cold analysis of the corpus ({cold.files} files, {cold.megabytes:.1f} MB, in the page cache; the
runs timed in turns, best of seven, in this process's CPU time): keepd
{cold.analyse * 1000:.0f} ms against {cold.parse * 1000:.0f} ms for orjson parsing alone,
**{cold.ratio:.2f}x**. The current context passes over what precedes a session's newest full
compaction; the whole history (`--whole`) reads every line: {cold.whole * 1000:.0f} ms,
{cold.whole_ratio:.2f}x.

One 40-word line appended to a session and its branch and index brought up to date (the daemon's
path), and a full analysis of the session at that size:

{table(["messages", "median per line", "p99", "full analysis"], rows)}

keepd against TextTiling on the same sessions: see "TextTiling, timed against keepd" above.

### The daemon (`scripts/bench_daemon.py`)

```
{run.daemon}
```"""
