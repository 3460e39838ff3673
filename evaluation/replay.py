"""Replays corpus sessions through the daemon's notice policy, turn by turn, and lists the notices.

Each session file is fed to a compact session state as the daemon follows it, one turn at a
time: after each prompt's turn (just before the next prompt is written, when the session is
quiet) the daemon's own `decide` runs with default settings and a clock set to the newest
entry's time; a notice sent is remembered, as the daemon does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from evaluation.labels import Labelled, Reader, Source
from keepd.config import NotifyConfig
from keepd.core import sure, sureness
from keepd.core.analysis import Analysis, analyse_state
from keepd.core.grade import DEFAULT_TUNING, Tuning
from keepd.core.listed import is_prompt
from keepd.core.session import SessionState, read_current
from keepd.core.sureness import said_sure
from keepd.core.tree import Scope
from keepd.daemon.policy import decide
from keepd.ops.memory import Memory


@dataclass(frozen=True, slots=True)
class Sent:
    """One notice the replay sent."""

    session: str
    after_prompt: int  # the prompt whose turn had just ended (0-based, in file order)
    share: float  # the context share of the window at that moment
    kind: str  # "break" or "urgent"
    uuid: str  # the stop it names
    stop: int  # its position among the stops of the current context
    below: int  # picker entries below it (0: the newest stop)
    grade: str | None
    reasons: tuple[str, ...]
    quote: str
    prompt: str = ""  # the uuid of the prompt whose turn had just ended
    sure: str | None = None  # how sure it says it is (`said_sure`), None at a stop not ●●●


@dataclass(frozen=True, slots=True)
class Replayed:
    session: str
    prompts: int
    notices: list[Sent]


# The cues found to carry across projects (issue 27) that say the work before is done or the
# prompt turns to the next thing: a variant of the policy sends a break notice only with one;
# a ●●● notice naming one says it is fairly sure (keepd/core/sureness.py `how_sure`).
CARRYING = sure.CARRYING


def replay(
    path: Path,
    config: NotifyConfig | None = None,
    needs: frozenset[str] = frozenset(),
    tuning: Tuning = DEFAULT_TUNING,
    rule: Callable[[tuple[str, ...]], bool] | None = None,
) -> Replayed:
    """The notices the daemon would send following `path` as it was written; with `needs`, a
    variant of the policy: a break notice whose stop names none of those reasons is not sent
    (nor remembered); with `rule`, one whose stop's reasons it refuses is not sent either;
    `tuning`: the grading's constants (keepd's own by default)."""
    config = config or NotifyConfig()
    data = path.read_bytes()
    ends = _turn_ends(data)
    memory = Memory()
    state = SessionState(Scope.CURRENT, detail=False, compact=True)
    fed = 0
    sent: list[Sent] = []
    for turn, (end, clock, prompt) in enumerate(ends):
        state.feed(data[:end], fed)
        fed = end
        analysis = analyse_state(state, path=str(path), tuning=tuning, every_stop=False)
        if state.stale:  # the branch changed under the compact state: read it again
            state = read_current(data[:end], detail=False, compact=True, at_rest=False)
            analysis = analyse_state(state, path=str(path), tuning=tuning, every_stop=False)
        notice = decide(analysis, analysis.session_id or path.name, config, memory, clock)
        if notice is None:
            continue
        found = _sent(path.name, turn, analysis, notice.stop, notice.urgent, prompt=prompt)
        if needs and not notice.urgent and not needs & set(found.reasons):
            continue
        if rule is not None and not notice.urgent and not rule(found.reasons):
            continue
        memory.remember(notice.session_id, notice.key)
        sent.append(found)
    return Replayed(path.name, len(ends), sent)


def _sent(
    session: str, turn: int, analysis: Analysis, uuid: str, urgent: bool, *, prompt: str
) -> Sent:
    stop = analysis.stop(uuid)
    below = stop.below if stop is not None else -1
    return Sent(
        session=session,
        after_prompt=turn,
        share=float(analysis.context.get("share") or 0.0),
        kind="urgent" if urgent else "break",
        uuid=uuid,
        stop=analysis.stop_count - 1 - below,
        below=below,
        grade=stop.grade if stop is not None else None,
        reasons=tuple(stop.reasons or ()) if stop is not None else (),
        quote=stop.quote if stop is not None else "",
        prompt=prompt,
        sure=said_sure(analysis, stop) if stop is not None else None,
    )


def _turn_ends(data: bytes) -> list[tuple[int, float, str]]:
    """Byte offsets where each prompt's turn ends (the next prompt's line, or the file's end),
    with the time of the newest entry before it (seconds since the epoch) and the prompt's
    uuid."""
    ends: list[tuple[int, float, str]] = []
    offset, clock, prompt = 0, 0.0, None
    for line in data.splitlines(keepends=True):
        entry = _entry(line)
        if entry is not None and is_prompt(entry):
            if prompt is not None:
                ends.append((offset, clock, prompt))
            prompt = str(entry.get("uuid") or "")
        offset += len(line)
        if entry is not None:
            clock = _seconds(entry.get("timestamp")) or clock
    if prompt is not None:
        ends.append((offset, clock, prompt))
    return ends


def _entry(line: bytes) -> dict[str, object] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _seconds(stamp: object) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return None


NEWEST = "the newest task so far"
TASK = "a reader's task boundary"
STEP = "a step"
NEITHER = "neither"
MARKS = (NEWEST, TASK, STEP, NEITHER)


def mark(sent: Sent, labelled: Labelled | None) -> str | None:
    """Where a notice's stop lies against the readers' boundaries (None: no labels): within one
    stop of where either reader's newest task so far begins (the newest task a reader marked
    at or before the prompt whose turn had just ended), else of either reader's task boundary,
    else of either reader's step, else neither."""
    if labelled is None:
        return None
    uuids = labelled.prepared.uuids
    if sent.uuid not in uuids:
        return NEITHER
    k = uuids.index(sent.uuid)
    now = turn_ended_at(sent, labelled)
    newest = {
        max(so_far) for r in labelled.readers if (so_far := [j for j in r.tasks() if j <= now])
    }
    tasks = {j for r in labelled.readers for j in r.tasks()}
    steps = {j for r in labelled.readers for j, kind in r.kinds.items() if kind != "task"}
    for found, stops in ((NEWEST, newest), (TASK, tasks), (STEP, steps)):
        if any(abs(k - j) <= 1 for j in stops):
            return found
    return NEITHER


def turn_ended_at(sent: Sent, labelled: Labelled) -> int:
    """The stop of the prompt whose turn had just ended when the notice went out (the last
    stop if the labels do not list it)."""
    uuids = labelled.prepared.uuids
    return uuids.index(sent.prompt) if sent.prompt in uuids else len(uuids) - 1


def task_by_then(sent: Sent, labelled: Labelled) -> bool:
    """Whether a notice could be at a task boundary (`task_within_reach`, at the prompt whose
    turn had just ended)."""
    return task_within_reach(turn_ended_at(sent, labelled), labelled.readers)


def task_within_reach(now: int, readers: Sequence[Reader]) -> bool:
    """Whether a reader marks a task at or before the stop after prompt `now`: a task later
    than that is not within one of any stop a notice then can name. Where none does, the
    newest work is still the session's first task, and a notice (an urgent one must come) can
    name only a step or neither.

    >>> task_within_reach(4, [Reader({3: "step", 9: "task"}, 9), Reader({5: "task"}, 5)])
    True
    >>> task_within_reach(3, [Reader({3: "step", 9: "task"}, 9), Reader({5: "task"}, 5)])
    False
    """
    return any(j <= now + 1 for reader in readers for j in reader.tasks())


def at_task(sent: Sent, labelled: Labelled | None) -> bool | None:
    """Whether a notice names a stop within one of a reader's task boundary (None: no labels)."""
    found = mark(sent, labelled)
    return None if found is None else found in (NEWEST, TASK)


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    """The notices of one side's labelled sessions, by kind and by mark."""

    sessions: int
    breaks: dict[str, int]  # by mark
    urgent: dict[str, int]
    taskless: int = 0  # notices sent where no reader marks a task yet (`task_by_then`)
    urgent_taskless: int = 0  # of them urgent

    def notices(self) -> int:
        return sum(self.breaks.values()) + sum(self.urgent.values())

    def at(self, *marks: str) -> int:
        return sum(self.breaks.get(m, 0) + self.urgent.get(m, 0) for m in marks)


def at_task_of(by_mark: dict[str, int]) -> tuple[int, int]:
    """Of one kind's notices by mark, how many are at a task boundary, and how many there are.

    >>> at_task_of({NEWEST: 2, TASK: 1, STEP: 3, NEITHER: 0})
    (3, 6)
    """
    return by_mark[NEWEST] + by_mark[TASK], sum(by_mark.values())


def summarise(runs: Sequence[Replayed], labelled: dict[str, Labelled]) -> ReplaySummary:
    """The notices of the runs whose session `labelled` holds."""
    breaks = dict.fromkeys(MARKS, 0)
    urgent = dict.fromkeys(MARKS, 0)
    judged = [run for run in runs if run.session in labelled]
    taskless = urgent_taskless = 0
    for run in judged:
        for sent in run.notices:
            found = mark(sent, labelled[run.session]) or NEITHER
            (urgent if sent.kind == "urgent" else breaks)[found] += 1
            none_yet = not task_by_then(sent, labelled[run.session])
            taskless += none_yet
            urgent_taskless += none_yet and sent.kind == "urgent"
    return ReplaySummary(len(judged), breaks, urgent, taskless, urgent_taskless)


def rows(runs: Sequence[Replayed], labelled: dict[str, Labelled]) -> list[list[object]]:
    """One row per notice: session, after which prompt, context share, kind, stop, grade,
    why, where it lies against the readers' boundaries, the quote."""
    out: list[list[object]] = []
    for run in runs:
        for sent in run.notices:
            found = mark(sent, labelled.get(run.session))
            quote = " ".join(sent.quote.split())
            out.append(
                [
                    run.session,
                    sent.after_prompt,
                    f"{sent.share:.0%}",
                    sent.kind,
                    f"{sent.stop} (below~{sent.below})",
                    sent.grade or "-",
                    ", ".join(sent.reasons) or "-",
                    found or "-",
                    (quote[:60] + "…") if len(quote) > 60 else quote,
                ]
            )
    return out


ROW_HEADERS = [
    "session",
    "after prompt",
    "context",
    "notice",
    "stop",
    "grade",
    "why",
    "at",
    "quote",
]


def line(s: ReplaySummary) -> str:
    """The notices a person would get, by where they lie against the readers' boundaries."""
    n = max(s.notices(), 1)
    task = s.at(NEWEST, TASK)
    parts = [
        f"{s.notices()} notices in {s.sessions} sessions ({sum(s.breaks.values())} break, "
        f"{sum(s.urgent.values())} urgent)",
        f"at a reader's task boundary (within one) {task} ({task / n:.0%}), of them at the "
        f"newest task so far {s.at(NEWEST)} ({s.at(NEWEST) / n:.0%})",
        f"at a step {s.at(STEP)} ({s.at(STEP) / n:.0%})",
        f"at neither {s.at(NEITHER)} ({s.at(NEITHER) / n:.0%})",
    ]
    kinds = [
        f"{kind} ({counts[NEWEST] + counts[TASK]}/{sum(counts.values())} at a task boundary): "
        + ", ".join(f"{counts[m]} at {m}" for m in MARKS)
        for kind, counts in (("break", s.breaks), ("urgent", s.urgent))
    ]
    return "; ".join(parts) + "\n" + "; ".join(kinds) + "\n" + taskless_line(s)


def taskless_line(s: ReplaySummary) -> str:
    """How many notices came where no reader marks a task yet, and the share at a task
    boundary of the others: what the share could reach were every notice that can be at one
    at one."""
    could = s.notices() - s.taskless
    task = s.at(NEWEST, TASK)
    best = f"{could}/{s.notices()} ({could / max(s.notices(), 1):.0%})"
    return (
        f"{s.taskless} came where neither reader marks a task yet ({s.urgent_taskless} of them "
        "urgent; the newest work is still the "
        f"session's first task: no stop is within one of a task boundary); of the other "
        f"{could}, {task} at a task boundary ({task / max(could, 1):.0%}); the share could "
        f"reach {best}"
    )


SURENESS = ("fairly sure", "less sure", "no ●●●")  # what a notice says (`said_sure`)
_OPENINGS = {sureness.FAIRLY: SURENESS[0], sureness.LESS: SURENESS[1]}


def by_sureness(
    runs: Sequence[Replayed], labelled: dict[str, Labelled]
) -> dict[str, tuple[int, int]]:
    """The notices by how sure they say they are (`Sent.sure`; "no ●●●" for a stop of another
    grade): how many are within one stop of a reader's task boundary, of how many."""
    counts = {kind: [0, 0] for kind in SURENESS}
    for run in runs:
        for sent in run.notices if run.session in labelled else ():
            opening = (sent.sure or "").partition(":")[0]
            kind = _OPENINGS.get(opening, SURENESS[2])
            counts[kind][0] += bool(at_task(sent, labelled[run.session]))
            counts[kind][1] += 1
    return {kind: (good, n) for kind, (good, n) in counts.items()}


def sureness_line(runs: Sequence[Replayed], labelled: dict[str, Labelled]) -> str:
    """The notices by what they say, each with how many are at a task boundary: what backs
    the notice's words."""
    return "notices by what they say: " + "; ".join(
        f"{kind} {good}/{n} at a task boundary ({good / max(n, 1):.0%})"
        for kind, (good, n) in by_sureness(runs, labelled).items()
    )


def headline(
    read: dict[Source, list[Labelled]],
    runs: dict[str, Replayed],
    left_out: Sequence[Replayed] = (),
) -> str:
    """The notices a person would get, per side, replayed turn by turn through the daemon's
    policy and marked against the readers' boundaries; `left_out`: calibration's sessions
    replayed with keepd's points and ●●● total fitted on the other projects."""
    parts = ["notices a person would get (replayed through keepd.daemon.policy.decide)\n"]
    for source, found in read.items():
        by_name = {case.name: case for case in found}
        judged = [runs[name] for name in by_name if name in runs]
        role = "held out" if source.held_out else "calibration"
        parts.append(f"{role} ({source.title}): {line(summarise(judged, by_name))}")
        if left_out and not source.held_out:
            lopo = summarise([run for run in left_out if run.session in by_name], by_name)
            hits, sent = lopo.at(NEWEST, TASK), lopo.notices()
            breaks, urgent = at_task_of(lopo.breaks), at_task_of(lopo.urgent)
            parts.append(
                f"{role}, keepd's points and ●●● total fitted on the other projects (left one "
                f"project out): {hits}/{sent} at a task boundary ({hits / max(sent, 1):.0%}); "
                f"break {breaks[0]}/{breaks[1]}, urgent {urgent[0]}/{urgent[1]}"
            )
        parts.append(f"{role}, {sureness_line(judged, by_name)}")
        sure = [
            replay(case.prepared.case.path, needs=CARRYING)
            for name, case in by_name.items()
            if name in runs
        ]
        parts.append(
            f"{role}, were a break notice to need work finished, a git branch, a prompt that "
            f"turns to the next thing or one after a prompt that closed the work: "
            f"{line(summarise(sure, by_name))}"
        )
    return "\n".join(parts) + "\n"
