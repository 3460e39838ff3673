"""`python -m evaluation.probes.reader_pick`: where the pick goes with the reader's answer (its
newest task start, its newest row when that is a step, no pick when it names no task start),
each aim scored on the calibration sessions' whole-history answers and the aim chosen left one
project out; the sessions whose pick misses the readers' newest are listed.

Every aim moves the pick only where `keepd.core.reader.takes` takes the stop it aims at (a
task start unless the curve measures a lean, a step where safe), else the local pick stays, as
`merged` does; "no pick" needs no stop. Scored as evaluation/reader.py scores the pick: within
one stop of both readers' newest where they agree within one (a newest of 0, one piece, is
found by no pick or one at the start). For each project left out, the aim with the most picks
within one on the other projects (ties: the earlier in `AIMS`, today's first) is applied to the
project left out. Calibration only (boundaries.json); nothing held out is read.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from evaluation.cases import project, shared_or_none, side_labels
from evaluation.labels import pick_near, reader_of
from evaluation.reader import ANSWERS
from keepd.core.analysis import Analysis
from keepd.core.reader import STEP, TASK, Answer, Row, parse_answer, request_sha256, takes
from keepd.ops.reader import load_record, read_for_reader

Aim = Callable[[Analysis, dict[int, str], Answer], str | None]  # the pick's uuid, or None


def _taken(analysis: Analysis, uuid: str, kind: str) -> bool:
    stop = analysis.stop(uuid)
    return stop is not None and takes(stop, analysis, kind)


def _task_rows(answer: Answer) -> list[int]:
    return [row for row, kind in answer.starts if kind == TASK and row <= answer.newest]


def today(analysis: Analysis, uuid_of: dict[int, str], answer: Answer) -> str | None:
    """The newest task start at or before the answer's newest (its newest where none)."""
    row = max(_task_rows(answer), default=answer.newest)
    kind = TASK if row != answer.newest or answer.newest_kind == TASK else STEP
    return uuid_of[row] if _taken(analysis, uuid_of[row], kind) else analysis.pick


def _no_task_no_pick(analysis: Analysis, uuid_of: dict[int, str], answer: Answer) -> str | None:
    return today(analysis, uuid_of, answer) if _task_rows(answer) else None


def _newest_step(analysis: Analysis, uuid_of: dict[int, str], answer: Answer) -> str | None:
    newest = uuid_of[answer.newest]
    if answer.newest_kind == STEP and _taken(analysis, newest, STEP):
        return newest
    return today(analysis, uuid_of, answer)


def _newest_as_task(analysis: Analysis, uuid_of: dict[int, str], answer: Answer) -> str | None:
    newest = uuid_of[answer.newest]
    return newest if _taken(analysis, newest, TASK) else today(analysis, uuid_of, answer)


def _newest_blind(analysis: Analysis, uuid_of: dict[int, str], answer: Answer) -> str | None:
    return uuid_of[answer.newest]


def _no_task_step(analysis: Analysis, uuid_of: dict[int, str], answer: Answer) -> str | None:
    if _task_rows(answer):
        return today(analysis, uuid_of, answer)
    newest = uuid_of[answer.newest]
    return newest if _taken(analysis, newest, STEP) else None


AIMS: dict[str, Aim] = {
    "today's (its newest task start, else its newest)": today,
    "no task start named: no pick": _no_task_no_pick,
    "its newest row where a safe step, else today's": _newest_step,
    "its newest row taken as a task start, else today's": _newest_as_task,
    "its newest row, blindly": _newest_blind,
    "no task start named: its newest step where safe, else no pick": _no_task_step,
}


def scored(
    shared: Path, answers: Path = ANSWERS, held_out: bool = False
) -> dict[str, tuple[dict[str, bool], str]]:
    """Each calibration (or held-out) session whose readers' newest agree, with a recorded
    whole-history answer in `answers`: whether each aim's pick is within one, and a line on
    what the answer said."""
    sessions = shared / "corpus" / "sessions"
    out = {}
    for name, label in sorted(side_labels(shared, held_out).items()):
        if not (sessions / name).is_file():
            continue
        read = read_for_reader(sessions / name, whole=True)
        sha = request_sha256(read.request)
        record = answers / f"{sha}.json"
        if not record.is_file():
            continue
        answer = parse_answer(str(load_record(record, sha)["answer"]), read.rows)
        if answer is None:
            continue
        at: dict[str | None, int] = {s.uuid: k for k, s in enumerate(read.analysis.stops)}
        readers = label.get("readers", {})
        a, b = (reader_of(readers.get(r) or {}, at).newest for r in "ab")
        if a is None or b is None or abs(a - b) > 1:
            continue
        uuid_of = {row.number: row.uuid for row in read.rows}
        hits = {
            title: bool(pick_near((a, b), at.get(aim(read.analysis, uuid_of, answer) or "")))
            for title, aim in AIMS.items()
        }
        out[name] = (hits, _said(read.rows, answer, at, (a, b), read.analysis.pick))
    return out


def _said(
    rows: list[Row],
    answer: Answer,
    at: dict[str | None, int],
    newest: tuple[int, int],
    pick: str | None,
) -> str:
    pos = {row.number: at.get(row.uuid, -1) for row in rows}
    starts = " ".join(f"{pos[row]}{kind[0]}" for row, kind in answer.starts)
    return (
        f"readers' newest {newest}; answer starts [{starts}] newest {pos[answer.newest]}"
        f"{answer.newest_kind[0]}; local pick {at.get(pick)}"
    )


def against(
    first: dict[str, tuple[dict[str, bool], str]],
    second: dict[str, tuple[dict[str, bool], str]],
    aim: str,
) -> str:
    """The aim `aim` with two answers to each request: the sessions each gets within one, both
    get, either gets, and the misses of each with what its answer said.

    >>> one = {"a": ({"t": True}, "x"), "b": ({"t": False}, "y"), "c": ({"t": True}, "z")}
    >>> two = {"a": ({"t": True}, "x"), "b": ({"t": True}, "y2"), "c": ({"t": False}, "z2")}
    >>> against(one, two, "t").splitlines()[0].split(": ")[1]
    "the first answer's pick within one in 2, the second's in 2, both in 1, either in 3"
    """
    names = sorted(set(first) & set(second))
    hit = {n: (first[n][0][aim], second[n][0][aim]) for n in names}
    lines = [
        f"{len(names)} sessions answered twice: the first answer's pick within one in "
        f"{sum(a for a, _ in hit.values())}, the second's in {sum(b for _, b in hit.values())}, "
        f"both in {sum(a and b for a, b in hit.values())}, either in "
        f"{sum(a or b for a, b in hit.values())}"
    ]
    for name in names:
        if not all(hit[name]):
            lines.append(f"{name}: first {first[name][1]}; second {second[name][1]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.probes.reader_pick")
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument(
        "--answers", type=Path, default=ANSWERS, metavar="DIR", help="the answers to score"
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="another answer to each request (the same requests recorded again): how often "
        "today's aim hits with each, both and either",
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="with --against: the held-out sessions (this chooses nothing)",
    )
    args = parser.parse_args(argv)
    shared = shared_or_none(args.shared, "reader_pick")
    if shared is None:
        return 2
    if args.against is not None:
        once = scored(shared, args.answers, args.held_out)
        print(against(once, scored(shared, args.against, args.held_out), next(iter(AIMS))))
        return 0
    found = scored(shared, args.answers)
    first = next(iter(AIMS))
    for name, (hits, said) in found.items():
        if not hits[first]:
            print(f"{name}: misses; {said}")
    for title in AIMS:
        print(f"{title}: {sum(h[title] for h, _ in found.values())}/{len(found)}")
    order = list(AIMS)
    total, chosen = 0, dict.fromkeys(AIMS, 0)
    for left in sorted({project(name) for name in found}):
        rest = [h for name, (h, _) in found.items() if project(name) != left]
        best = max(order, key=lambda t: (sum(h[t] for h in rest), -order.index(t)))
        chosen[best] += 1
        total += sum(h[best] for name, (h, _) in found.items() if project(name) == left)
    by = ", ".join(f"{t} {n}" for t, n in chosen.items() if n)
    print(f"the aim chosen left one project out: {total}/{len(found)} (chosen: {by})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
