"""Replays sessions through the daemon's notice policy with the reader's recorded answers
applied where the daemon would have asked it, beside keepd alone (evaluation/replay.py).

The daemon (keepd/daemon/reading.py, follow.py) asks the reader after a turn whose context
share reaches the notice threshold while a notice of that kind can still be sent, once per
prompt count (its cache is keyed by the request's hash), and decides on a fresh read of the
file with the answer merged, through `Alerts.consider` (a break notice waits for the answer to
name a task start at its stop). The replay builds, at each such turn, the exact request the
daemon would send (`keepd ask --print` of the file as it was then) and looks for a recorded
answer with that request's hash (evaluation/data/reader/README.md: recorded turn by turn). A
request without one counts as a failed ask: the local grade decides alone there, as it does in
the daemon when the reader fails.

The `hindsight` side is a bound, not the daemon: at every ask it cuts the whole-history answer
to the prompts written so far (its starts among them; its newest where shown, else its last
start so far). That answer saw the prompts that came later, which the daemon's reader never
does.

>>> [(a.row, a.recorded) for a in Replayed("s", 3, [], [Ask(2, True), Ask(3, False)]).asks]
[(2, True), (3, False)]
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evaluation import replay
from evaluation.labels import Labelled
from keepd.config import NotifyConfig, ReaderConfig
from keepd.core.analysis import Analysis, ReaderInfo, analyse_state
from keepd.core.reader import Answer, merged, parse_answer, request_sha256, shown_rows
from keepd.core.session import SessionState, read_current
from keepd.core.tree import Scope
from keepd.daemon.alerts import Alerts
from keepd.ops.memory import Memory
from keepd.ops.reader import Read, load_record, read_for_reader, with_reader

ANSWERS = Path(__file__).resolve().parent / "data" / "reader"
EXACT, HINDSIGHT = "recorded answers", "hindsight"


@dataclass(frozen=True, slots=True)
class Ask:
    """One question the daemon would put to the reader: after which prompt (0-based), and
    whether an answer to that exact request is recorded."""

    row: int
    recorded: bool


@dataclass(frozen=True, slots=True)
class Replayed:
    """The notices of one session with the reader, the questions asked, and the notices
    decided on an answer (their `after_prompt`)."""

    session: str
    prompts: int
    notices: list[replay.Sent]
    asks: list[Ask] = field(default_factory=list)
    answered: frozenset[int] = frozenset()

    def as_replay(self) -> replay.Replayed:
        return replay.Replayed(self.session, self.prompts, self.notices)


Answerer = Callable[[Read], Analysis | None]


def recorded(answers: Path = ANSWERS) -> Answerer:
    """The answer recorded for the read's exact request, merged (None: none recorded, or it
    does not check)."""

    def answer(read: Read) -> Analysis | None:
        record = answers / f"{request_sha256(read.request)}.json"
        if not read.request or not record.is_file():
            return None
        found = with_reader(read, ReaderConfig(), answer_file=record)
        return None if found.reader is None or found.reader.failure else found

    return answer


def hindsight(path: Path, answers: Path = ANSWERS) -> Answerer | None:
    """The whole-history answer of `path` cut to the prompts of each read (None: no answer
    recorded for its whole history). The answer saw later prompts: a bound, not the daemon."""
    whole = read_for_reader(path, whole=True)
    sha = request_sha256(whole.request)
    record = answers / f"{sha}.json"
    if not record.is_file():
        return None
    answer = parse_answer(str(load_record(record, sha).get("answer", "")), whole.rows)
    if answer is None:
        return None
    uuid_of = {row.number: row.uuid for row in whole.rows}
    starts = [(uuid_of[row], kind) for row, kind in answer.starts]
    newest = uuid_of[answer.newest]

    def cut(read: Read) -> Analysis | None:
        number = {row.uuid: row.number for row in shown_rows(read.rows)}
        if not number:
            return None
        kept = tuple((number[u], kind) for u, kind in starts if u in number)
        last = number.get(newest) or max((row for row, _ in kept), default=min(number.values()))
        return merged(read.analysis, read.rows, Answer(kept, last), HINDSIGHT, sha)

    return cut


def replay_with(path: Path, answerer: Answerer, config: NotifyConfig | None = None) -> Replayed:
    """The notices the daemon with the reader on would send following `path` as it was
    written, the reader's answers given by `answerer` (none: the local grade stands)."""
    config = config or NotifyConfig()
    data = path.read_bytes()
    memory = Memory()
    now = [0.0]
    alerts = Alerts(config, memory, lambda: True, clock=lambda: now[0])
    state = SessionState(Scope.CURRENT, detail=False, compact=True)
    ends = replay._turn_ends(data)
    fed = 0
    sent: list[replay.Sent] = []
    asks: list[Ask] = []
    answered: set[int] = set()
    with tempfile.TemporaryDirectory(prefix="keepd-replay-") as folder:
        prefix = Path(folder) / path.name
        for turn, (end, clock, prompt) in enumerate(ends):
            now[0] = clock
            state.feed(data[:end], fed)
            fed = end
            analysis = analyse_state(state, path=str(path), every_stop=False)
            if state.stale:
                state = read_current(data[:end], detail=False, compact=True, at_rest=False)
                analysis = analyse_state(state, path=str(path), every_stop=False)
            session_id = analysis.session_id or path.name
            if _asks(analysis, alerts, session_id):
                prefix.write_bytes(data[:end])
                read = read_for_reader(prefix)
                # No prompt to read: the daemon asks nothing (ops.reader.with_reader).
                found = answerer(read) if read.request else None
                if read.request:
                    asks.append(Ask(turn, found is not None))
                if found is not None:
                    analysis = found
                    answered.add(turn)
                elif read.request:  # as a failed reader: the local grade decides alone
                    sha = request_sha256(read.request)
                    info = ReaderInfo(EXACT, sha, failure="no recorded answer")
                    analysis = dataclasses.replace(analysis, reader=info)
            # As the daemon: Alerts.consider decides (the reader's answer may hold a break
            # notice back); a notice taken is remembered as sent.
            if not alerts.consider(session_id, analysis):
                continue
            notice = alerts.pending.pop(session_id)
            memory.remember(notice.session_id, notice.key)
            found_sent = replay._sent(
                path.name, turn, analysis, notice.stop, notice.urgent, prompt=prompt
            )
            sent.append(found_sent)
    return Replayed(path.name, len(ends), sent, asks, frozenset(answered))


def daemon_requests(path: Path, answers: Path = ANSWERS) -> list[tuple[int, str]]:
    """The requests the daemon would send following `path` (after which prompt, 0-based, and
    the text), the recorded answers applied where they exist: what to record answers for."""
    texts: list[str] = []
    answer = recorded(answers)

    def capture(read: Read) -> Analysis | None:
        texts.append(read.request)
        return answer(read)

    run = replay_with(path, capture)
    return [(ask.row, text) for ask, text in zip(run.asks, texts, strict=True)]


def _asks(analysis: Analysis, alerts: Alerts, session_id: str) -> bool:
    """Whether the daemon would ask the reader before deciding (follow.py `_ask_reader`)."""
    return alerts.may_notify(session_id, analysis)


@dataclass(frozen=True, slots=True)
class Side:
    """One side's replays: keepd alone, with the recorded answers, and the hindsight bound."""

    alone: list[replay.Replayed]
    exact: list[Replayed]
    bound: list[Replayed]


def side(
    cases: Sequence[Labelled],
    answers: Path = ANSWERS,
    runs: Mapping[str, replay.Replayed] | None = None,
) -> Side:
    """Each labelled session with a recorded whole-history answer, replayed three ways (keepd
    alone taken from `runs` where it was replayed already)."""
    alone: list[replay.Replayed] = []
    exact: list[Replayed] = []
    bound: list[Replayed] = []
    answerer = recorded(answers)
    for path, cut in answered(cases, answers):
        done = (runs or {}).get(path.name)
        alone.append(done if done is not None else replay.replay(path))
        exact.append(replay_with(path, answerer))
        bound.append(replay_with(path, cut))
    return Side(alone, exact, bound)


def answered(cases: Sequence[Labelled], answers: Path = ANSWERS) -> Iterator[tuple[Path, Answerer]]:
    """Each labelled session with a recorded whole-history answer: its path, and that answer
    cut to the prompts of each read (`hindsight`)."""
    for case in cases:
        path = case.prepared.case.path
        cut = hindsight(path, answers)
        if cut is not None:
            yield path, cut
