"""`python -m evaluation.probes.turn_probe`: measures whether what the assistant does in the
turn right after a stop (a fresh plan, exploring, a big turn, other files than just before)
adds to the cues' points and to the newest-work model on the calibration labels.

A reader of the whole transcript sees new work begin in the assistant's behaviour: it writes a
new todo list or enters plan mode, it reads and searches before it edits, the turn is far bigger
than the session's usual one, it touches other files than the turns just before. Each stop gets
these from its own turn (the prompt and every message up to the next stop, on the branch keepd
reads), computed from the tool calls' names and inputs in the session file:
- a fresh plan: a TodoWrite whose items are mostly not in the list before, a TaskCreate, or
  EnterPlanMode / ExitPlanMode; plan mode alone too;
- exploring: of three or more tool calls, most read or search (Read, Grep, Glob, a sub-agent,
  WebFetch / WebSearch, a Bash `ls`, `cat`, `git log`, ...); two or more reads of files the
  session never touched before;
- a big turn: three times the session's median tool calls a turn (and five or more), or three
  times its median output tokens;
- other files: files touched in the stop's turn and the two after share at most a fifth with
  those of the three turns before (Jaccard; `new files` instead asks for files no earlier turn
  touched at all).
Two checks, both left one project out on calibration data only (held-out labels are never read):
- the points table (as fit_points fits it: ridge 1, rounded to halves, the ●●● total chosen by
  its rule) with each signal added: task switches with ●●● within one and ●●● at a reader
  boundary, paired against the table as it is fitted today, session by session; and the pick
  as today's newest-work model makes it on the new total, and as that model refitted on it does;
- the newest-work model (fit_newest's chosen setting) with each signal as a named feature: the
  pick within one of the readers' newest and the calibration joins' picks, paired likewise.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from evaluation import fit_newest, labels, stop_score
from evaluation.cases import same_projects
from evaluation.fit_points import TOTALS, share
from evaluation.labels import SessionScore
from evaluation.markdown import table
from evaluation.score import Prepared
from evaluation.texts import branch_entries
from keepd.core.cued import usable_stops
from keepd.core.grade import DEFAULT_TUNING
from keepd.core.newest import DEFAULT_NEWEST, Column, Newest
from keepd.core.newest_pick import columns as newest_columns
from keepd.core.points import Scored

FloatArray = npt.NDArray[np.float64]
SIGNALS = (
    "fresh plan",
    "plan mode",
    "explores",
    "reads unseen files",
    "big turn (tool calls)",
    "big turn (output)",
    "other files than before",
)
# Two families at once, which a step inside a piece of work might do less often than one.
BOTH = ("explores or reads, other files", "plans, other files", "plans, explores or reads")
NAMES = (*SIGNALS, *BOTH)  # every column the probe adds
SEARCHING = frozenset(
    {"Read", "Grep", "Glob", "Task", "Agent", "WebFetch", "WebSearch", "LS", "NotebookRead"}
)
_LOOKING = re.compile(
    r"\s*(?:cd\s+\S+\s*&&\s*)?(?:ls|cat|head|tail|find|grep|rg|wc|tree|pwd|"
    r"git\s+(?:-C\s+\S+\s+)?(?:log|show|diff|status|blame|branch)|sed\s+-n)\b"
)
PLANNING = frozenset({"EnterPlanMode", "ExitPlanMode"})
WINDOW = 3  # turns on each side of a stop whose files are compared
# What each check adds: every signal alone, each family, all; the last row was chosen after
# the families' rows were seen (the turn's size added nothing alone), so it is no clean test.
SETS: list[tuple[str, tuple[str, ...]]] = [
    *((name, (name,)) for name in SIGNALS),
    *((name, (name,)) for name in BOTH),
    ("a plan (both)", SIGNALS[:2]),
    ("exploring (both)", SIGNALS[2:4]),
    ("the turn's size (both)", SIGNALS[4:6]),
    ("every signal", SIGNALS),
    ("every signal but the turn's size (chosen after)", (*SIGNALS[:4], SIGNALS[6])),
]


@dataclass(slots=True)
class Turn:
    """What the assistant did in one stop's turn."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # Output tokens by response id: a response's lines share it and repeat its usage.
    output: dict[str, int] = field(default_factory=dict)
    files: set[str] = field(default_factory=set)


def turns_of(prepared: Prepared) -> list[Turn]:
    """Each stop's turn on the branch keepd reads, its tool calls read from the session file."""
    entries, branch = branch_entries(prepared)
    ends = [*branch.stops[1:], len(branch.messages)]
    out = []
    for start, end in zip(branch.stops, ends, strict=True):
        turn = Turn()
        for node in branch.messages[start:end]:
            turn.files.update(node.files)
            if node.kind != "assistant":
                continue
            turn.output[node.msg_id or node.uuid or ""] = node.output_tokens
            turn.calls += _calls(entries.get(node.uuid or ""))
        out.append(turn)
    return out


def _calls(entry: Any) -> list[tuple[str, dict[str, Any]]]:
    message = entry.get("message") if isinstance(entry, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    blocks = content if isinstance(content, list) else []
    return [
        (str(block.get("name")), block["input"])
        for block in blocks
        if isinstance(block, dict)
        and block.get("type") == "tool_use"
        and isinstance(block.get("input"), dict)
    ]


def searches(name: str, value: dict[str, Any]) -> bool:
    """Whether a tool call reads or searches rather than edits or runs.

    >>> searches("Grep", {}), searches("Bash", {"command": "git log -5"})
    (True, True)
    >>> searches("Bash", {"command": "pytest -q"}), searches("Edit", {"file_path": "a"})
    (False, False)
    """
    if name == "Bash":
        command = value.get("command")
        return isinstance(command, str) and _LOOKING.match(command) is not None
    return name in SEARCHING


def columns(prepared: Prepared) -> list[Column]:
    """Every stop's behaviour signals, 0 or 1, by name (`NAMES`)."""
    turns = turns_of(prepared)
    stops = len(turns)
    values = {name: np.zeros(stops) for name in SIGNALS}
    calls = [len(t.calls) for t in turns]
    outputs = [sum(t.output.values()) for t in turns]
    median_calls = max(statistics.median(calls), 1.0) if calls else 1.0
    median_output = max(statistics.median(outputs), 1.0) if outputs else 1.0
    todo: set[str] = set()
    seen: set[str] = set()
    for k, turn in enumerate(turns):
        fresh_plan, todo = _plans(turn, todo)
        values["fresh plan"][k] = fresh_plan
        values["plan mode"][k] = any(name in PLANNING for name, _ in turn.calls)
        looks = [searches(name, value) for name, value in turn.calls]
        values["explores"][k] = len(looks) >= 3 and sum(looks) > len(looks) / 2
        unseen = {
            value.get("file_path")
            for name, value in turn.calls
            if name == "Read" and value.get("file_path") not in seen
        }
        values["reads unseen files"][k] = len(unseen) >= 2
        values["big turn (tool calls)"][k] = calls[k] >= max(3 * median_calls, 5)
        values["big turn (output)"][k] = outputs[k] >= 3 * median_output
        seen |= turn.files
        values["other files than before"][k] = _other_files(turns, k)
    return [*values.items(), *_both(values)]


def _both(values: dict[str, FloatArray]) -> list[Column]:
    """The stops where two families' signals are present (`BOTH`)."""
    looks = np.maximum(values["explores"], values["reads unseen files"])
    plans = np.maximum(values["fresh plan"], values["plan mode"])
    other = values["other files than before"]
    return list(zip(BOTH, (looks * other, plans * other, plans * looks), strict=True))


def _plans(turn: Turn, todo: set[str]) -> tuple[bool, set[str]]:
    """Whether the turn makes a fresh plan, and the todo list after it."""
    fresh = any(name in PLANNING or name == "TaskCreate" for name, _ in turn.calls)
    for name, value in turn.calls:
        items = value.get("todos") if name == "TodoWrite" else None
        if not isinstance(items, list):
            continue
        listed = {str(i.get("content")) for i in items if isinstance(i, dict)}
        fresh |= len(listed) >= 2 and len(listed - todo) > len(listed) / 2
        todo = listed
    return fresh, todo


def _other_files(turns: Sequence[Turn], k: int) -> bool:
    """Whether the files of turn k and the next ones share at most a fifth with the turns
    before (some files after, some before)."""
    after = set().union(*(t.files for t in turns[k : k + WINDOW]))
    before = set().union(*(t.files for t in turns[max(k - WINDOW, 0) : k]))
    if not after or not before:
        return False
    return len(after & before) <= 0.2 * len(after | before)


def labelled_sessions(data: fit_newest.Data) -> list[stop_score.Session]:
    """The labelled sessions as stop_score scores them, the signals as extra columns."""
    return [
        stop_score.session_of(item, _extra(data.cases[item.name].columns)) for item in data.labelled
    ]


def points_level(sessions: Sequence[stop_score.Session], joins: Sequence[Rowed]) -> str:
    """The points table refitted with each signal added, left one project out, each paired
    against the table refitted as today; the pick as today's newest-work model makes it on the
    new total, and as the model refitted on it makes it."""
    variants = [
        stop_score.Variant(
            f"+ {name}" if name else "points, rounded (today)", added, rounded=True, grid=TOTALS
        )
        for name, added in [("", ()), *SETS]
    ]
    outcomes = [stop_score.cross_validated(sessions, v, NAMES) for v in variants]
    refitted = [refitted_picks(sessions, joins, v) for v in variants]
    stops = sum(int(s.fitted.sum()) for s in sessions)
    return "\n\n".join(
        [
            presence(sessions),
            stop_score.summary(outcomes, stops),
            "the pick: today's newest-work model reading the refitted points' total, and the"
            " model refitted on it too (fit_newest's chosen setting, without the session left"
            " out and the joins holding it):",
            table(
                [
                    "score",
                    "pick within one, today's model",
                    "against the first row",
                    "pick within one, the model refitted",
                    "against the first row",
                ],
                [
                    [o.variant.name, *picks(o.held, outcomes[0].held), *picks(r, refitted[0])]
                    for o, r in zip(outcomes, refitted, strict=True)
                ],
            ),
        ]
    )


def presence(sessions: Sequence[stop_score.Session]) -> str:
    """Where each signal is present, and its weight in a fit with every signal."""
    stops = sum(int(s.fitted.sum()) for s in sessions)
    weights = in_sample(sessions)
    fits = dict(zip(SIGNALS, weights[-len(SIGNALS) :], strict=True))
    new_files = weights[[s.field for s in sessions[0].signals].index("new_files")]
    present = [
        [
            name,
            str(int(sum(s.extra[:, i].sum() for s in sessions))),
            str(int(sum(s.extra[s.fitted & s.task, i].sum() for s in sessions))),
            str(int(sum(s.extra[s.fitted & ~s.task, i].sum() for s in sessions))),
            f"{fits[name]:.2f}" if name in fits else "-",
        ]
        for i, name in enumerate(NAMES)
    ]
    tasks = sum(int((s.fitted & s.task).sum()) for s in sessions)
    headers = [
        "signal",
        "stops",
        f"of the {tasks} fitted task switches",
        f"of the {stops - tasks} fitted counter-examples",
        "fit with every signal (not BOTH's), every calibration session",
    ]
    return f"{table(headers, present)}\n\n(new files, in that fit: {new_files:.2f})"


def in_sample(sessions: Sequence[stop_score.Session]) -> FloatArray:
    """The weights of the points' fit with every signal (the cues', then the signals'), on all
    the sessions."""
    every = stop_score.Variant("every signal", SIGNALS)
    x = np.vstack([stop_score.design(s, every, NAMES)[s.fitted] for s in sessions])
    y = np.concatenate([s.task[s.fitted] for s in sessions])
    _, weights = stop_score.raw_weights(x, y, every.ridge, rounded=False)
    return weights


def picks(found: Sequence[SessionScore], base: Sequence[SessionScore]) -> list[str]:
    """Picks within one of the readers' newest, and the change from `base`'s, session by
    session, with its standard error."""
    pairs = [
        (float(a.pick_near), float(b.pick_near))
        for a, b in zip(found, base, strict=True)
        if a.pick_near is not None and b.pick_near is not None
    ]
    diff = np.array([a - b for a, b in pairs])
    error = float(np.std(diff, ddof=1)) * math.sqrt(len(diff))
    hits = int(sum(a for a, _ in pairs))
    return [share(hits, len(pairs)), f"{int(diff.sum()):+d} ± {error:.1f}"]


@dataclass(frozen=True, slots=True)
class Rowed:
    """A labelled session or a calibration join as the newest-work model's rows read it."""

    session: stop_score.Session
    sessions: frozenset[str]  # the labelled sessions it is made of
    usable: npt.NDArray[np.bool_]
    target: npt.NDArray[np.bool_]  # at its usable stops: a task both readers mark, a junction


def joined(prepared: Prepared, found: list[Column], uuids: set[str]) -> Rowed:
    """A join's rows (`found` its signals): it enters as a session no reader marked, its
    targets its junctions and the stops both readers call a task in the sessions it is made of."""
    nobody = labels.Reader({}, None)
    session = stop_score.session_of(labels.Labelled(prepared, (nobody, nobody)), _extra(found))
    usable = usable_stops(prepared.curve, prepared.frees, DEFAULT_TUNING)
    junctions = set(prepared.case.junctions)
    target = np.array([u in uuids or u in junctions for u in prepared.uuids], dtype=bool)
    return Rowed(session, frozenset(prepared.case.pieces), usable, target[usable])


def _extra(found: list[Column]) -> FloatArray:
    named = dict(found)
    return np.column_stack([np.asarray(named[name], dtype=np.float64) for name in NAMES])


def refitted_picks(
    labelled: Sequence[stop_score.Session], joins: Sequence[Rowed], variant: stop_score.Variant
) -> list[SessionScore]:
    """Each labelled session's pick when the points and then the newest-work model (fit_newest's
    chosen setting, on the points' new total) are fitted without its project's sessions (and the
    joins holding one)."""
    names = fit_newest.FEATURE_SETS[fit_newest.CHOSEN.features]([])
    out = []
    for held in labelled:
        gone = same_projects([held.case.name], [s.case.name for s in labelled])
        rest = [s for s in labelled if s.case.name not in gone]
        _, model = stop_score.fit(rest, variant, NAMES)
        clear = variant.grid[stop_score.chosen(stop_score.sweep(rest, model, variant.grid))]
        uuids = fit_newest.marked([s.case for s in rest], fit_newest.CHOSEN.target)
        cases = [rowed_labelled(s, uuids) for s in rest]
        cases += [j for j in joins if not gone & j.sessions]
        x = np.vstack([_matrix(c.session, model(c.session), clear, names)[c.usable] for c in cases])
        y = np.concatenate([c.target for c in cases]).astype(np.float64)
        intercept, weights = fit_newest.fit(x, y, fit_newest.CHOSEN.ridge, np.ones(len(y)))
        newest = Newest(
            intercept,
            tuple(zip(names, (float(w) for w in weights), strict=True)),
            floor=fit_newest.CHOSEN_FLOOR,
        )
        out.append(stop_score.graded(held, model(held), clear, newest))
    return out


def rowed_labelled(session: stop_score.Session, uuids: set[str]) -> Rowed:
    p = session.case.prepared
    usable = usable_stops(p.curve, p.frees, DEFAULT_TUNING)
    target = np.array([u in uuids for u in p.uuids], dtype=bool)
    return Rowed(session, frozenset({session.case.name}), usable, target[usable])


def _matrix(
    session: stop_score.Session, totals: FloatArray, clear: float, names: Sequence[str]
) -> FloatArray:
    """The newest-work model's named features of every stop, with `totals` as the points."""
    p = session.case.prepared
    zones = stop_score.cued_zones(session, totals, clear)
    found = newest_columns(
        Scored(totals, session.signals),
        zones,
        session.heights,
        p.events,
        DEFAULT_NEWEST.height_cap,
    )
    by_name = {name: np.asarray(values, dtype=np.float64) for name, values in found}
    return np.column_stack([by_name[name] for name in names])


def main(argv: list[str] | None = None) -> int:
    prepared: list[tuple[Prepared, list[Column]]] = []

    def kept(p: Prepared) -> list[Column]:
        found = columns(p)
        if p.case.pieces:  # a join's stitched file is gone once loaded
            prepared.append((p, found))
        return found

    data = fit_newest.data_from_args("probes.turn_probe", __doc__, argv, kept)
    if data is None:
        return 2
    uuids = fit_newest.marked(data.labelled, fit_newest.CHOSEN.target)
    joins = [joined(p, found, uuids) for p, found in prepared]
    print("the points table with each signal, one project out:\n")
    print(points_level(labelled_sessions(data), joins))
    print("\nthe newest-work model with each signal, one project out:\n")
    sets = {"fit_newest's chosen features": (), **{f"+ {n}": added for n, added in SETS}}
    print(fit_newest.with_extra(data, sets))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
