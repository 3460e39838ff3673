"""Replays corpus sessions through the daemon's notice policy, turn by turn, and lists the notices.

Each session file is fed to a compact session state as the daemon follows it, one turn at a
time: after each prompt's turn (just before the next prompt is written, when the session is
quiet) the daemon's own `decide` runs with default settings and a clock set to the newest
entry's time; a notice sent is remembered, as the daemon does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import orjson

from evaluation.labels import Labelled
from keepd.config import NotifyConfig
from keepd.core.analysis import Analysis, analyse_state
from keepd.core.messages import is_prompt
from keepd.core.session import SessionState, read_current
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


@dataclass(frozen=True, slots=True)
class Replayed:
    session: str
    prompts: int
    notices: list[Sent]


def replay(path: Path, config: NotifyConfig | None = None) -> Replayed:
    """The notices the daemon would send following `path` as it was written."""
    config = config or NotifyConfig()
    data = path.read_bytes()
    ends = _turn_ends(data)
    memory = Memory()
    state = SessionState(Scope.CURRENT, detail=False, compact=True)
    fed = 0
    sent: list[Sent] = []
    for turn, (end, clock) in enumerate(ends):
        state.feed(data[:end], fed)
        fed = end
        analysis = analyse_state(state, path=str(path), every_stop=False)
        if state.stale:  # the branch changed under the compact state: read it again
            state = read_current(data[:end], detail=False, compact=True, at_rest=False)
            analysis = analyse_state(state, path=str(path), every_stop=False)
        notice = decide(analysis, analysis.session_id or path.name, config, memory, clock)
        if notice is None:
            continue
        memory.remember(notice.session_id, notice.key)
        sent.append(_sent(path.name, turn, analysis, notice.stop, notice.urgent))
    return Replayed(path.name, len(ends), sent)


def _sent(session: str, turn: int, analysis: Analysis, uuid: str, urgent: bool) -> Sent:
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
    )


def _turn_ends(data: bytes) -> list[tuple[int, float]]:
    """Byte offsets where each prompt's turn ends (the next prompt's line, or the file's end),
    with the time of the newest entry before it (seconds since the epoch)."""
    ends: list[tuple[int, float]] = []
    offset, clock, started = 0, 0.0, False
    for line in data.splitlines(keepends=True):
        entry = _entry(line)
        if entry is not None and is_prompt(entry):
            if started:
                ends.append((offset, clock))
            started = True
        offset += len(line)
        if entry is not None:
            clock = _seconds(entry.get("timestamp")) or clock
    if started:
        ends.append((offset, clock))
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


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    sessions: int
    breaks: int
    urgent: int
    at_the_end: int  # notices naming one of the last two stops
    labelled_breaks: int  # break notices in labelled sessions
    at_task: int  # of those, at (within one stop of) a stop either reader calls a task


def at_task(sent: Sent, labelled: Labelled | None) -> bool | None:
    """Whether a notice names a stop within one of a reader's task boundary (None: no labels)."""
    if labelled is None:
        return None
    uuids = labelled.prepared.uuids
    if sent.uuid not in uuids:
        return False
    k = uuids.index(sent.uuid)
    tasks = {j for reader in labelled.readers for j, kind in reader.kinds.items() if kind == "task"}
    return any(abs(k - j) <= 1 for j in tasks)


def summarise(runs: Sequence[Replayed], labelled: dict[str, Labelled]) -> ReplaySummary:
    notices = [sent for run in runs for sent in run.notices]
    breaks = [sent for sent in notices if sent.kind == "break"]
    judged = [at_task(sent, labelled.get(sent.session)) for sent in breaks]
    return ReplaySummary(
        sessions=len(runs),
        breaks=len(breaks),
        urgent=len(notices) - len(breaks),
        at_the_end=sum(1 for sent in notices if 0 <= sent.below <= 1),
        labelled_breaks=sum(1 for verdict in judged if verdict is not None),
        at_task=sum(1 for verdict in judged if verdict),
    )


def rows(runs: Sequence[Replayed], labelled: dict[str, Labelled]) -> list[list[object]]:
    """One row per notice: session, after which prompt, context share, kind, stop, grade,
    why, whether a reader calls it a task, the quote."""
    out: list[list[object]] = []
    for run in runs:
        for sent in run.notices:
            verdict = at_task(sent, labelled.get(sent.session))
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
                    {True: "yes", False: "no", None: "-"}[verdict],
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
    "at a task",
    "quote",
]


def line(s: ReplaySummary) -> str:
    return (
        f"{s.sessions} sessions replayed: {s.breaks} break and {s.urgent} urgent notices; "
        f"{s.at_the_end} name one of the last two stops; break notices in labelled sessions "
        f"at a reader's task boundary (within one): {s.at_task}/{s.labelled_breaks}"
    )
