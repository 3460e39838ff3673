"""`python -m evaluation`: builds stitched sessions from the corpus and prints the figures."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from evaluation import baselines, fit_points, labels, replay, variants, with_reader
from evaluation.cases import (
    CALIBRATION,
    HELD_OUT,
    Case,
    corpus_sessions,
    labelled_cases,
    shared_or_none,
    side_sessions,
    single_cases,
)
from evaluation.markdown import table
from evaluation.score import (
    Outcome,
    Prepared,
    clear_zone_count,
    grading_of,
    judge,
    judge_outranking,
    prepare,
    summarise,
)
from evaluation.sessions import JOIN_HEADERS, join_row
from keepd.core.grade import DEFAULT_TUNING, Grade


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation", description=__doc__)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--count", type=int, default=150, help="cross-project joins of two")
    parser.add_argument(
        "--calibration",
        action="store_true",
        help="calibration data only: nothing held out is read or printed (for tuning)",
    )
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "evaluation")
    if shared is None:
        return 2
    with tempfile.TemporaryDirectory(prefix="keepd-eval-") as folder:
        out = Path(folder)
        started = time.perf_counter()
        sources = [s for s in labels.sources(shared) if not (args.calibration and s.held_out)]
        read = {source: labels.load(shared, source.path) for source in sources}
        every_label = [case for found in read.values() for case in found]
        sides = [("calibration", CALIBRATION), ("held out", HELD_OUT)]
        sides = sides[:1] if args.calibration else sides
        runs = {path.name: replay.replay(path) for path in _replayable(shared, args.calibration)}
        calibration = next((f for s, f in read.items() if not s.held_out), [])
        left_out = fit_points.replayed_left_out(calibration)
        print(replay.headline(read, runs, left_out))
        print(with_reader.headline(read, shared, runs, left_out))
        stitched: dict[str, list[Prepared]] = {}
        for title, groups in sides:
            cases = {group.title: group.cases(shared, out, args.count) for group in groups}
            if title == "calibration":
                cases["labelled (--whole)"] = labelled_cases(shared)
            prepared = {name: [prepare(case) for case in found] for name, found in cases.items()}
            seeds = ", ".join(str(group.seed) for group in groups)
            side = next((f for s, f in read.items() if s.held_out == (title != "calibration")), [])
            print(f"{title} (seeds {seeds})\n")
            print(_table(prepared))
            print(f"\n{_outranking(prepared)}\n")
            for group in groups:
                misses = variants.join_misses(prepared[group.title], side)
                print(f"{group.title}: {misses}")
            print()
            joins = {group.title: prepared[group.title] for group in groups}
            if title == "calibration":
                stitched = joins
                print(variants.variant_table(side, joins), "\n")
                print(variants.cue_rates(side), "\n")
            else:
                print(f"checked once on held out:\n{variants.held_out_check(side, joins)}\n")
        print(_labelled(read, stitched))
        if not args.calibration:  # the replay and the singles read every corpus session
            print(_replayed(list(runs.values()), every_label))
            print(_singles(single_cases(shared)))
            print(_unjoined(shared))
        print(f"\n{time.perf_counter() - started:.1f} s; tails 8-15 prompts per piece; seeds fixed")
    return 0


def _stitched(cases: list[Prepared]) -> bool:
    return bool(cases) and all(case.case.pieces for case in cases)


def _table(groups: dict[str, list[Prepared]]) -> str:
    """The joins against their gold (from the labels of their side of the split) and the
    junction alone; the labelled sessions against their newest piece."""
    joins = [join_row(name, cases) for name, cases in groups.items() if _stitched(cases)]
    parts = [table(JOIN_HEADERS, joins)]
    for name, cases in groups.items():
        if not _stitched(cases):
            outcomes = [judge(case, DEFAULT_TUNING) for case in cases]
            s = summarise(outcomes)
            parts.append(
                f"\n{name}: {s.cases} sessions, pick at the newest {s.exact:.0%}, within one "
                f"{s.within_one:.0%}, graded ●●● there {s.clear_at_gold:.0%}\n\n"
                + table(_LABELLED_HEADERS, [_labelled_row(outcome) for outcome in outcomes])
            )
    return "\n".join(parts)


def _outranking(groups: dict[str, list[Prepared]]) -> str:
    """Within one stop, were session events to outrank ●● zones (docs/measure.md, "Grading")."""
    parts = []
    for name, cases in groups.items():
        variant = summarise([judge_outranking(case, DEFAULT_TUNING) for case in cases])
        parts.append(f"{name} {variant.within_one:.0%}")
    return "were events to outrank ●● zones, within one stop: " + "; ".join(parts)


_LABELLED_HEADERS = ["session", "newest", "pick", "within one", "pick grade"]


def _labelled_row(outcome: Outcome) -> list[object]:
    near = outcome.distance is not None and outcome.distance <= 1
    return [
        outcome.case.name,
        outcome.gold,
        outcome.pick,
        "yes" if near else "no",
        outcome.grade or "-",
    ]


def _labelled(
    read: dict[labels.Source, list[labels.Labelled]], joins: dict[str, list[Prepared]]
) -> str:
    """The readers' boundaries: task switches, ●●● zones, the newest piece; keepd beside the
    trivial picks and grades, and on calibration keepd's fits left one project out."""
    parts = []
    for source, found in read.items():
        scores = [labels.score_session(case) for case in found]
        words = [labels.score_words(case) for case in found]
        role = "held out" if source.held_out else "calibration"
        parts += [
            f"{role}: readers' boundaries ({source.title}, {len(found)} sessions)\n",
            table(labels.ROW_HEADERS, labels.session_rows(scores)),
            "",
            f"keepd: {labels.summarise(scores).line()}",
            f"words and events alone: {labels.summarise(words).line()}",
            "",
            f"{role}: keepd against trivial picks and grades\n",
            *baselines.against(found, scores, joins if not source.held_out else None),
            "",
        ]
    return "\n".join(parts)


def _replayable(shared: Path, calibration: bool) -> list[Path]:
    """The sessions to replay: on calibration only the calibration labels' sessions, else every
    corpus session."""
    if calibration:
        return side_sessions(shared, False)
    return corpus_sessions(shared)


def _replayed(runs: list[replay.Replayed], labelled: list[labels.Labelled]) -> str:
    """Every corpus session followed turn by turn through the daemon's notice policy."""
    by_name = {case.name: case for case in labelled}
    found = replay.rows(runs, by_name)
    summary = replay.line(replay.summarise(runs, by_name))
    return f"notices, replayed\n\n{table(replay.ROW_HEADERS, found)}\n\n{summary}\n"


def _unjoined(shared: Path) -> str:
    """The corpus sessions labelled on neither side: no join draws on them."""
    labelled = {*side_sessions(shared, False), *side_sessions(shared, True)}
    left = [path.name for path in corpus_sessions(shared) if path not in labelled]
    return f"corpus sessions labelled on neither side (in no join): {len(left)}" + "".join(
        f"\n  {name}" for name in left
    )


def _singles(cases: list[Case]) -> str:
    prepared = [prepare(case) for case in cases]
    counts = [clear_zone_count(p, DEFAULT_TUNING) for p in prepared]
    picks = [grading_of(p).pick for p in prepared]
    with_clear = sum(1 for n in counts if n)
    by_event = sum(1 for pick in picks if pick is not None and pick.event is not None)
    return (
        f"unstitched sessions: {len(cases)}; with a {Grade.CLEAR.value} zone: {with_clear}; "
        f"{Grade.CLEAR.value} zones in all: {sum(counts)}; with a pick: "
        f"{sum(1 for pick in picks if pick is not None)} ({by_event} made by an event)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
