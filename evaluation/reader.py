"""Scores recorded reader answers (keepd's reader of meaning, core/reader.py) on labelled sessions.

A recorded answer is `evaluation/data/reader/<sha256>.json`, written by `keepd ask SESSION
--record REPLY --model MODEL` from a model's reply to exactly `keepd ask --print SESSION`; its
name is the request's hash, so a changed request finds no answer and needs a new one. Each
labelled session with an answer is scored twice, with the local grade alone and with the answer
merged (on calibration also with keepd's points refitted left one project out), on the issue's
three figures: the pick within one stop of the readers' newest piece (where the two agree
within one stop; a newest of 0, one piece, is found by no pick or one at the start, as
evaluation/labels.py scores it), the readers' agreed task switches with ●●● within one stop,
and ●●● zones within one stop of a reader's boundary. The reader fits nothing: each answer is
scored as recorded. `python -m evaluation.reader [--held-out]`.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluation.labels import Labelled, pick_near, reader_of
from evaluation.piece_gold import agreed, reader_tasks
from keepd.config import ReaderConfig
from keepd.core.analysis import Analysis
from keepd.core.grade import DEFAULT_TUNING, Tuning
from keepd.core.reader import request_sha256
from keepd.ops.reader import read_for_reader, with_reader

ANSWERS = Path(__file__).resolve().parent / "data" / "reader"
CLEAR = "●●●"


@dataclass(slots=True)
class Tally:
    """Counts of one side (local, or with the reader's answers) over the scored sessions."""

    sessions: int = 0
    picks: int = 0  # sessions whose two readers' newest agree within one stop
    pick_near: int = 0
    switches: int = 0
    switches_clear: int = 0
    clear_zones: int = 0
    clear_near: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        return (
            f"pick within one of the newest {self.pick_near}/{self.picks}, "
            f"switches with ●●● {self.switches_clear}/{self.switches}, "
            f"●●● near a boundary {self.clear_near}/{self.clear_zones}"
        )


@dataclass(slots=True)
class Scores:
    """Both sides, and the sessions left unscored (no answer recorded for today's request)."""

    local: Tally = field(default_factory=Tally)
    reader: Tally = field(default_factory=Tally)
    unanswered: list[str] = field(default_factory=list)
    models: set[str] = field(default_factory=set)


def tally(analysis: Analysis, label: Mapping[str, Any]) -> Tally:
    """The three figures of one analysis against one session's two readers."""
    at: dict[str | None, int] = {stop.uuid: k for k, stop in enumerate(analysis.stops)}
    readers = label.get("readers", {})
    a, b = (reader_of(readers.get(r) or {}, at).newest for r in "ab")
    both = (a, b) if a is not None and b is not None and abs(a - b) <= 1 else None
    near = pick_near(both, at.get(analysis.pick or ""))
    tasks = [[at[u] for _, u in marks if u in at] for marks in reader_tasks(label)]
    switches = [max(pair) for pair in agreed(tasks[0], tasks[1])]
    clear = [at[z.best] for z in analysis.zones if z.grade == CLEAR and z.best in at]
    bounds = {
        at[str(mark.get("uuid"))]
        for r in "ab"
        for mark in (readers.get(r) or {}).get("boundaries") or []
        if str(mark.get("uuid")) in at
    }
    return Tally(
        sessions=1,
        picks=int(near is not None),
        pick_near=int(bool(near)),
        switches=len(switches),
        switches_clear=sum(1 for k in switches if any(abs(k - j) <= 1 for j in clear)),
        clear_zones=len(clear),
        clear_near=sum(1 for k in clear if any(abs(k - j) <= 1 for j in bounds)),
    )


def score(sessions: Path, labels: Mapping[str, Any], answers: Path = ANSWERS) -> Scores:
    """Every labelled session with a recorded answer, scored without and with it."""
    out = Scores()
    for name, label in sorted(labels.items()):
        _score_one(out, sessions / name, label, answers, DEFAULT_TUNING)
    return out


def score_left_out(
    sessions: Path,
    labels: Mapping[str, Any],
    cases: Sequence[Labelled],
    answers: Path = ANSWERS,
) -> Scores:
    """Calibration only: each project's sessions graded with the cues' points fitted and the
    ●●● total chosen on the other projects' sessions of `cases` (evaluation/fit_points.py, as
    `baselines.points_left_out`), then those `labels` names scored without and with the
    recorded answers."""
    from evaluation import fit_points

    tunings = fit_points.tunings_left_out(cases)
    out = Scores()
    for name, label in sorted(labels.items()):
        if name in tunings:
            _score_one(out, sessions / name, label, answers, tunings[name])
    return out


def _score_one(
    out: Scores, path: Path, label: Mapping[str, Any], answers: Path, tuning: Tuning
) -> None:
    """One session into `out`: both sides, or its name among the unanswered."""
    if not path.is_file():
        return
    read = read_for_reader(path, whole=True, tuning=tuning)  # the labels read the whole history
    record = answers / f"{request_sha256(read.request)}.json"
    if not record.is_file():
        out.unanswered.append(path.name)
        return
    merged = with_reader(read, ReaderConfig(), answer_file=record)
    if merged.reader is not None and merged.reader.failure:
        out.unanswered.append(path.name)
        return
    out.local.add(tally(read.analysis, label))
    out.reader.add(tally(merged, label))
    out.models.add(_model(record))


def write_requests(
    sessions: Path,
    labels: Mapping[str, Any],
    folder: Path,
    *,
    every_turn: bool = False,
    answers: Path = ANSWERS,
) -> int:
    """Each labelled session's whole-history request as `folder/<sha256>.txt` (and `index.tsv`:
    hash, name, and with `every_turn` the prompt after which the daemon would ask), for a model
    to answer with that text and nothing else; with `every_turn`, instead every request the
    daemon would send as the session was written (evaluation/reader_replay.py), the answers in
    `answers` applied where they exist."""
    from evaluation.reader_replay import daemon_requests

    folder.mkdir(parents=True, exist_ok=True)
    index = []
    for name in sorted(labels):
        path = sessions / name
        if not path.is_file():
            continue
        if every_turn:
            asked = [(f"\t{row}", text) for row, text in daemon_requests(path, answers)]
        else:
            asked = [("", read_for_reader(path, whole=True).request)]
        for where, request in asked:
            if not request:  # no prompt to read: the daemon asks nothing (ops.reader)
                continue
            sha = request_sha256(request)
            (folder / f"{sha}.txt").write_text(request, encoding="utf-8")
            index.append(f"{sha}\t{name}{where}\n")
    (folder / "index.tsv").write_text("".join(index), encoding="utf-8")
    return len(index)


def replayed(shared: Path, held_out: bool, answers: Path) -> str:
    """The notices of one side replayed as the daemon would send them with the reader's
    answers in `answers` (evaluation/reader_replay.py), and how many of its asks found one."""
    from evaluation import labels, reader_replay, replay
    from evaluation.cases import label_file

    cases = labels.load(shared, label_file(shared, held_out))
    answerer = reader_replay.recorded(answers)
    runs = [
        reader_replay.replay_with(path, answerer)
        for path, _cut in reader_replay.answered(cases, answers)
    ]
    asks = [ask for run in runs for ask in run.asks]
    found = replay.summarise([run.as_replay() for run in runs], {c.name: c for c in cases})
    answered = sum(ask.recorded for ask in asks)
    return f"replayed, {answered} of {len(asks)} asks answered: {replay.line(found)}"


def _model(record: Path) -> str:
    import json

    return str(json.loads(record.read_text(encoding="utf-8")).get("model") or "unnamed")


def main(argv: list[str] | None = None) -> int:
    from evaluation.cases import label_file, shared_or_none, side_labels

    parser = argparse.ArgumentParser(prog="python -m evaluation.reader", description=__doc__)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: found)")
    parser.add_argument("--held-out", action="store_true", help="the held-out labels")
    parser.add_argument(
        "--requests", type=Path, metavar="DIR", help="write each request to DIR/<sha256>.txt"
    )
    parser.add_argument(
        "--every-turn",
        action="store_true",
        help="with --requests: every request the daemon would send, turn by turn",
    )
    parser.add_argument(
        "--replay",
        action="store_true",
        help="also replay the sessions turn by turn as the daemon asks, with these answers",
    )
    parser.add_argument(
        "--answers",
        type=Path,
        default=ANSWERS,
        metavar="DIR",
        help="score the answers recorded in DIR (default: evaluation/data/reader)",
    )
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, parser.prog)
    if shared is None:
        return 1
    if args.requests is not None:
        written = write_requests(
            shared / "corpus" / "sessions",
            side_labels(shared, args.held_out),
            args.requests,
            every_turn=args.every_turn,
            answers=args.answers,
        )
        print(f"{written} requests written to {args.requests}")
        return 0
    scores = score(shared / "corpus" / "sessions", side_labels(shared, args.held_out), args.answers)
    side = "held out" if args.held_out else "calibration"
    print(
        f"{side}: {scores.local.sessions} sessions with a recorded answer "
        f"({', '.join(sorted(scores.models)) or 'none'}), {len(scores.unanswered)} without"
    )
    print(f"  local alone:      {scores.local.line()}")
    print(f"  with the reader:  {scores.reader.line()}")
    if args.replay:
        print(replayed(shared, args.held_out, args.answers))
    if not args.held_out:
        from evaluation import labels

        cases = labels.load(shared, label_file(shared, False))
        lopo = score_left_out(
            shared / "corpus" / "sessions", side_labels(shared, False), cases, args.answers
        )
        print("keepd's points and ●●● total fitted on the other projects (left one project out):")
        print(f"  local alone:      {lopo.local.line()}")
        print(f"  with the reader:  {lopo.reader.line()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
