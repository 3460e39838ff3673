"""`python -m evaluation.probes.urgent_misses`: the notices the daemon with the reader's recorded
answers sends on the calibration sessions, each beside the readers' boundaries and what the
answer it was decided on said, and rules for which stop an urgent notice decided on an answer
names, the rule chosen left one project out.

Each notice is replayed as evaluation/reader_replay.py does (`replay_with`, the recorded
answers); an urgent notice decided on an answer is named again under each rule in `RULES`
(what it names does not change what the replay does next: one urgent notice per filling of the
context). For each project left out, the rule with the most urgent notices within one stop of a
reader's task boundary on the other projects (ties: the earlier in `RULES`, today's first)
names that project's notices. Calibration only (boundaries.json); nothing held out is read.
Stops in the listing are positions among the session's whole-history stops (as the labels
count them); `-` where a stop is not among them, `t`/`s` a start's kind.

Measured on calibration (the daemon asking before every urgent notice it has due): urgent
notices at a task boundary 6/12 today, 7/12 naming the answer's newest task start taken or
flagged (one notice, yutakobayashidev__dotnix), 5/12 its newest row; left one project out 6/12
(that rule is chosen in 11 of 12 folds, but not in the one whose notice it gains): not
shipped. Five of the six misses are urgent notices where neither reader marks a task so far
and the answer names only steps: no stop named fixes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from evaluation import labels, reader_replay, replay
from evaluation.cases import project
from keepd.core.analysis import Analysis
from keepd.core.reader import TASK, Answer, parse_answer, request_sha256
from keepd.ops.reader import Read, load_record


@dataclass(frozen=True, slots=True)
class Asked:
    """What an answer said at the turn it was asked, and the analysis it was merged into."""

    answer: Answer
    uuid_of: dict[int, str]  # row number -> stop uuid
    merged: Analysis
    local_pick: str | None


# Which stop an urgent notice decided on an answer names (None: the one it named).
Naming = Callable[[Asked], str | None]


def _today(asked: Asked) -> str | None:
    return None


def _newest_task(asked: Asked) -> str | None:
    """The answer's newest task start (at or before its newest), taken or flagged."""
    info = asked.merged.reader
    if info is None or info.newest_kind != TASK or asked.merged.stop(info.newest) is None:
        return None
    return info.newest


def _newest_row(asked: Asked) -> str | None:
    """The answer's newest row, task or step."""
    return asked.uuid_of.get(asked.answer.newest)


def _task_else_row(asked: Asked) -> str | None:
    return _newest_task(asked) or _newest_row(asked)


RULES: dict[str, Naming] = {
    "today's (the merged pick, or a graded stop before the end)": _today,
    "the answer's newest task start, taken or flagged": _newest_task,
    "the answer's newest row, task or step": _newest_row,
    "its newest task start, else its newest row": _task_else_row,
}


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice replayed, where it lies under each rule, and what its answer said."""

    session: str
    sent: replay.Sent
    asked: Asked | None  # None: not decided on an answer
    marks: dict[str, str]  # rule -> mark (replay.mark)


def notices_of(case: labels.Labelled) -> list[Notice]:
    """The session's notices with the reader's recorded answers, each under every rule."""
    seen: dict[int, Asked] = {}
    count = [0]
    answer = reader_replay.recorded()

    def ask(read: Read) -> Analysis | None:
        count[0] += 1
        found = answer(read)
        if found is not None:
            sha = request_sha256(read.request)
            text = str(load_record(reader_replay.ANSWERS / f"{sha}.json", sha)["answer"])
            parsed = parse_answer(text, read.rows)
            if parsed is not None:
                uuid_of = {row.number: row.uuid for row in read.rows}
                seen[count[0]] = Asked(parsed, uuid_of, found, read.analysis.pick)
        return found

    run = reader_replay.replay_with(case.prepared.case.path, ask)
    by_turn = {run.asks[k - 1].row: asked for k, asked in seen.items()}
    out = []
    for sent in run.notices:
        asked = by_turn.get(sent.after_prompt) if sent.after_prompt in run.answered else None
        marks = {}
        for title, naming in RULES.items():
            other = naming(asked) if asked is not None and sent.kind == "urgent" else None
            named = dataclasses.replace(sent, uuid=other) if other else sent
            marks[title] = replay.mark(named, case) or replay.NEITHER
        out.append(Notice(case.name, sent, asked, marks))
    return out


def hit(mark: str) -> bool:
    return mark in (replay.NEWEST, replay.TASK)


def listing(case: labels.Labelled, notices: list[Notice]) -> list[str]:
    """Each notice that misses a task boundary under today's rule, or that a rule moves."""
    uuids = case.prepared.uuids

    def at(uuid: str | None) -> str:
        return str(uuids.index(uuid)) if uuid in uuids else "-"

    tasks = [r.tasks() for r in case.readers]
    today = next(iter(RULES))
    out = []
    for n in notices:
        if hit(n.marks[today]) and len(set(n.marks.values())) == 1:
            continue
        sent = n.sent
        now = uuids.index(sent.prompt) if sent.prompt in uuids else len(uuids) - 1
        so_far = [max((j for j in t if j <= now), default=None) for t in tasks]
        said = "not decided on an answer"
        if n.asked is not None:
            a = n.asked
            starts = " ".join(f"{at(a.uuid_of[r])}{k[0]}" for r, k in a.answer.starts)
            said = (
                f"starts [{starts}] newest {at(a.uuid_of[a.answer.newest])}"
                f"{a.answer.newest_kind[0]}; local pick {at(a.local_pick)}, merged pick "
                f"{at(a.merged.pick)}"
            )
        moved = ", ".join(f"{t[:24]}…: {m}" for t, m in n.marks.items() if m != n.marks[today])
        out.append(
            f"{n.session} after prompt {sent.after_prompt}: {sent.kind} at stop {at(sent.uuid)} "
            f"(below {sent.below}, {sent.grade}): {n.marks[today]}\n"
            f"    readers' tasks {tasks[0]} / {tasks[1]}, newest task so far {so_far} "
            f"(the turn's prompt at {now})\n    answer: {said}"
            + (f"\n    other rules: {moved}" if moved else "")
        )
    return out


def tally(notices: list[Notice], title: str, kind: str = "urgent") -> tuple[int, int]:
    mine = [n for n in notices if n.sent.kind == kind]
    return sum(hit(n.marks[title]) for n in mine), len(mine)


def left_out(notices: list[Notice]) -> tuple[int, int, dict[str, int]]:
    """Urgent notices at a task boundary, each project's named by the rule chosen on the
    others, and how often each rule was chosen."""
    order = list(RULES)
    hits = total = 0
    chosen = dict.fromkeys(RULES, 0)
    for name in sorted({project(n.session) for n in notices}):
        rest = [n for n in notices if project(n.session) != name]
        best = max(order, key=lambda t: (tally(rest, t)[0], -order.index(t)))
        chosen[best] += 1
        h, n = tally([n for n in notices if project(n.session) == name], best)
        hits, total = hits + h, total + n
    return hits, total, chosen


def main(argv: list[str] | None = None) -> int:
    calibration = labels.calibration_for("urgent_misses", argv)
    if calibration is None:
        return 2
    every: list[Notice] = []
    for case in calibration:
        if reader_replay.hindsight(case.prepared.case.path) is None:
            continue
        found = notices_of(case)
        every += found
        for line in listing(case, found):
            print(line, flush=True)
    breaks = tally(every, next(iter(RULES)), "break")
    print(f"break notices at a reader's task boundary: {breaks[0]}/{breaks[1]}")
    for title in RULES:
        h, n = tally(every, title)
        print(f"urgent notices at a reader's task boundary, {title}: {h}/{n}")
    h, n, chosen = left_out(every)
    by = ", ".join(f"{t} {c}" for t, c in chosen.items() if c)
    print(f"the rule chosen left one project out: {h}/{n} (chosen: {by})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
