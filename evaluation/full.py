"""`python -m evaluation.full`: runs the whole evaluation and writes docs/EVALUATION.md.

Everything comes from `../shared/corpus` (read there, never copied) with fixed seeds, so a
re-run gives the same figures (times aside). `--tiny` runs every part on a few cases.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from evaluation import (
    dialogue,
    fit_points,
    labels,
    load,
    picks,
    ranks,
    replay,
    speed,
    sweep,
    with_reader,
    zones,
)
from evaluation.cases import (
    CALIBRATION,
    HELD_OUT,
    TAILS,
    corpus_sessions,
    forget_transcripts,
    labelled_cases,
    shared_or_none,
)
from evaluation.cases import single_cases as unstitched_cases
from evaluation.document import Run, write
from evaluation.score import Prepared, prepare
from evaluation.sessions import GroupCases


@dataclass(frozen=True, slots=True)
class Scale:
    """How much of each part runs: everything, or a few cases of each (`--tiny`)."""

    count: int = 150  # cross-project joins of two per seed; other groups in proportion
    dialogues: int | None = None  # per split; None: all
    tiling_sample: int = 6  # cases per held-out group timed with TextTiling (seconds each)
    labelled_tiling: int = 6
    simulated: int = 2000
    shuffles: int = 40  # shuffled orders of each unstitched session
    append_sizes: tuple[int, ...] = speed.APPEND_SIZES
    probes: int = 300
    cold_runs: int = 5
    daemon: bool = True
    tiny: bool = False


TINY = Scale(3, 6, 1, 0, 40, 2, (1_000,), 20, 1, daemon=False, tiny=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.full", description=__doc__)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--out", type=Path, help="folder for EVALUATION.md and its figures")
    parser.add_argument("--tiny", action="store_true", help="a few cases of every part")
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "evaluation.full")
    if shared is None:
        return 2
    out = args.out or Path(__file__).resolve().parents[1] / "docs"
    out.mkdir(parents=True, exist_ok=True)
    _warn_if_busy()
    started = time.perf_counter()
    run = collect(shared.resolve(), TINY if args.tiny else Scale(), out)
    run = dataclasses.replace(run, seconds=time.perf_counter() - started)
    path = write(run, out)
    print(f"wrote {path} in {run.seconds:.0f} s")
    return 0


def collect(shared: Path, scale: Scale, out: Path) -> Run:
    # Speed first, in a process that holds nothing yet: later, hundreds of prepared cases
    # make the garbage collector's passes longer and the timings with them.
    _log("speed")
    # The load of jobs that just ended fades first (a tiny run, the tests', times nothing).
    before = load.now() if scale.tiny else load.settled()
    cold = speed.cold_corpus(shared, scale.cold_runs)
    appends = speed.per_append(scale.append_sizes, scale.probes)
    root = Path(__file__).resolve().parents[1]
    daemon = speed.daemon_bench(root) if scale.daemon else "skipped (--tiny)."
    measured = load.Load(before, load.now(), load.cores())
    if measured.loaded:
        print(f"evaluation.full: warning: {measured.others:.1f} of {measured.cores} cores were "
              "busy with other processes while keepd was timed; the document says so",
              file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="keepd-eval-") as folder:
        groups = _groups(shared, Path(folder), scale)
        labelled = [prepare(case) for case in labelled_cases(shared)]
        singles = [prepare(case) for case in unstitched_cases(shared)]
        if scale.tiny:
            labelled, singles = _smallest(labelled, 2), _smallest(singles, 3)
        _log("dialogue segmentation")
        segmentation = [
            dialogue.run_dataset(shared, label, relative, splits, scale.dialogues)
            for label, relative, splits in dialogue.DATASETS
        ]
        _log("methods on sessions")
        method_rows = _methods(groups, labelled, singles)
        timed = picks.timed_sample(_tiling_sample(groups, labelled, scale))
        _log("tail size, zones")
        stitched = [case for group in groups for case in group.cases]
        rank_study = ranks.study([*stitched, *labelled, *singles])
        example = ranks.example(_example_case(groups))
        multiples = zones.collect(stitched, singles, scale.simulated, scale.shuffles)
        _log("robustness sweep")
        sweeps = _sweep(groups, labelled)
        _log("readers' labels, replayed notices")
        readers = {source: labels.load(shared, source.path) for source in labels.sources(shared)}
        paths = corpus_sessions(shared)
        replayed = [replay.replay(path) for path in (paths[:3] if scale.tiny else paths)]
        calibration = next((found for s, found in readers.items() if not s.held_out), [])
        names = {run.session for run in replayed}
        left_out = fit_points.replayed_left_out(calibration, names)
        _log("the reader's recorded answers, replayed")
        by_name = {run.session: run for run in replayed}
        reader = [
            with_reader.measure(
                source,
                cases[:2] if scale.tiny else cases,
                shared,
                by_name,
                cases,
                alone_left_out=left_out,
            )
            for source, cases in readers.items()
        ]
        return Run(
            shared=shared,
            tiny=scale.tiny,
            machine=speed.machine(),
            load=measured,
            segmentation=segmentation,
            groups=groups,
            labelled=labelled,
            singles=singles,
            methods=method_rows,
            timed=timed,
            rank_study=rank_study,
            example=example,
            multiples=multiples,
            sweeps=sweeps,
            combinations=sweep.grid(),
            cold=cold,
            appends=appends,
            daemon=daemon,
            seconds=0.0,
            readers=readers,
            replayed=replayed,
            replayed_left_out=left_out,
            reader=reader,
        )


_STARTED = time.perf_counter()


def _warn_if_busy() -> None:
    """Says at the start, while there is time to stop, that the speed rows would run loaded."""
    reading = load.now()
    if load.Load(reading, reading, load.cores()).loaded:
        print(f"evaluation.full: warning: the load average is {reading:.2f} on {load.cores()} "
              "cores; if it stays so, the speed rows are a loaded machine's (the document says so)",
              file=sys.stderr, flush=True)


def _log(step: str) -> None:
    elapsed = time.perf_counter() - _STARTED
    print(f"evaluation.full: {elapsed:5.0f} s  {step}", file=sys.stderr, flush=True)


def _groups(shared: Path, folder: Path, scale: Scale) -> list[GroupCases]:
    _log("stitching and preparing sessions")
    groups = [
        GroupCases(
            group.title,
            group.held_out,
            [prepare(case) for case in group.cases(shared, folder, scale.count)],
            group.independent,
        )
        for group in [*CALIBRATION, *HELD_OUT, *TAILS]
    ]
    forget_transcripts(shared)
    return groups


def _smallest(cases: list[Prepared], n: int) -> list[Prepared]:
    return sorted(cases, key=lambda c: int(c.curve.kept[0]) if len(c.curve) else 0)[:n]


def _example_case(groups: list[GroupCases]) -> Prepared:
    held = next(group for group in groups if group.held_out)
    return held.cases[0]


def _tiling_sample(
    groups: list[GroupCases], labelled: list[Prepared], scale: Scale
) -> list[Prepared]:
    """The first cases of each held-out group of tails 8-15, and the labelled sessions."""
    titles = {group.title for group in HELD_OUT}
    held = [group.cases for group in groups if group.held_out and group.title in titles]
    if scale.tiny:
        return _smallest([case for cases in held for case in cases], 1)
    chosen = [case for cases in held for case in cases[: scale.tiling_sample]]
    return chosen + _smallest(labelled, scale.labelled_tiling)


def _methods(
    groups: list[GroupCases], labelled: list[Prepared], singles: list[Prepared]
) -> picks.MethodRows:
    calibration = [case for group in groups if not group.held_out for case in group.cases]
    penalty = picks.calibrate_pelt(calibration)
    kinds = _kinds(groups)
    kinds["labelled"] = labelled
    kinds["unstitched"] = singles
    methods = picks.cheap_methods(penalty)
    choices = {
        m.method: {kind: [picks.choose(m, case) for case in cases] for kind, cases in kinds.items()}
        for m in methods
    }
    settings = {m.method: m.setting for m in methods}
    independent = [group.title for group in groups if group.held_out and group.independent]
    return picks.MethodRows(penalty, kinds, choices, settings, independent)


def _kinds(groups: list[GroupCases]) -> dict[str, list[Prepared]]:
    return {group.title: group.cases for group in groups if group.held_out}


def _sweep(groups: list[GroupCases], labelled: list[Prepared]) -> list[sweep.CaseSweep]:
    combos = sweep.grid()
    out = []
    for title, role, cases in [
        *((g.label, "held out" if g.held_out else "calibration", g.cases) for g in groups),
        ("labelled", "labelled", labelled),
    ]:
        for case in cases:
            versions = {
                name: case if name == "default" else prepare(case.case, policy)
                for name, policy in sweep.POLICIES.items()
            }
            out.append(sweep.sweep_case(versions, combos, title, role))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
