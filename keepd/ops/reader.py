"""The reader of meaning asked for one session: its request built, its answer taken from a
recorded file, the cache or the person's own `claude -p`, and merged into the analysis.

An answer, or the failure to get one, is cached by the request's sha256 (the rows, so the
session and its prompt count): a session is asked at most once per prompt count. A failure
leaves the local grade in place and logs one line.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from keepd.config import ReaderConfig
from keepd.core.analysis import Analysis, ReaderInfo
from keepd.core.reader import SYSTEM, Row, merged, parse_answer, request_sha256, request_text
from keepd.errors import AnswerError
from keepd.system.claude_ask import Asked, ask_claude

if TYPE_CHECKING:
    from keepd.core.grade import Tuning
    from keepd.core.session import SessionState

log = logging.getLogger(__name__)
RECORDED, CACHED, ASKED = "recorded answer", "cache", "claude -p"
Asker = Callable[..., Asked]


@dataclass(frozen=True, slots=True)
class Read:
    """An analysis of every stop, with the rows the reader would be shown."""

    analysis: Analysis
    rows: list[Row]
    state: SessionState | None = None  # for the guidance at a pick the reader moved

    @property
    def request(self) -> str:
        return request_text(self.rows)


def read_for_reader(
    path: Path, *, whole: bool = False, window: int | None = None, tuning: Tuning | None = None
) -> Read:
    """The analysis of the session at `path` (its window and trigger as `keepd report` finds
    them; `tuning`: grading's constants, default keepd's) and its picker's rows."""
    from keepd.api import load_state
    from keepd.core.analysis import analyse_state
    from keepd.core.reader import rows_of
    from keepd.core.tree import Scope
    from keepd.errors import NotASessionError

    state = load_state(path, Scope.WHOLE if whole else Scope.CURRENT)
    if not state.tree.nodes or state.tree.leaf() is None:
        raise NotASessionError(str(path))
    from keepd.core.grade import DEFAULT_TUNING
    from keepd.ops.memory import told_setup

    setup = told_setup(path, window)
    tuning = tuning or DEFAULT_TUNING
    analysis = analyse_state(state, path=str(path), window=window, setup=setup, tuning=tuning)
    return Read(analysis, rows_of(analysis, state.branch()), state)


def with_reader(
    read: Read,
    config: ReaderConfig,
    *,
    answer_file: Path | None = None,
    cache: Path | None = None,
    memo: dict[str, dict[str, Any]] | None = None,
    asker: Asker = ask_claude,
) -> Analysis:
    """The analysis with the reader's answer merged in, or with why there is none.

    An answer is looked for in `memo` (a daemon's memory), then in the `cache` folder, and
    only then asked for; what is asked is kept in both.
    """
    request = read.request
    sha = request_sha256(request)
    if not request:
        return _failed(read.analysis, ASKED, sha, "no prompt to read")
    if answer_file is not None:
        record, source = load_record(answer_file, sha), RECORDED
    else:
        cached = memo.get(sha) if memo is not None else None
        cached = cached if cached is not None else _cached(cache, sha)
        record, source = (cached, CACHED) if cached is not None else ({}, ASKED)
        if cached is None:
            asked = asker(
                request, model=config.model, system=SYSTEM, timeout=config.timeout_seconds
            )
            record = _record(sha, asked)
            _save(cache, sha, record)
        if memo is not None:
            memo[sha] = record
    failure = record.get("failure")
    if failure:
        return _failed(read.analysis, source, sha, str(failure))
    answer = parse_answer(str(record.get("answer", "")), read.rows)
    if answer is None:
        return _failed(read.analysis, source, sha, "the answer is not the JSON object asked for")
    return _guided(read, merged(read.analysis, read.rows, answer, source, sha))


def _guided(read: Read, analysis: Analysis) -> Analysis:
    """The six blocks and the borrowed words at the pick, when the reader moved it."""
    stop = analysis.target_stop()
    if read.state is None or stop is None or analysis.pick == read.analysis.pick:
        return analysis
    if not read.state.index.detail:
        return analysis
    from keepd.core.analysis import guidance_at

    blocks, words = guidance_at(read.state, stop.index)
    return replace(analysis, blocks=blocks, borrowed_words=words)


def _failed(analysis: Analysis, source: str, sha: str, failure: str) -> Analysis:
    level = logging.DEBUG if source == CACHED else logging.WARNING  # said once, when it failed
    log.log(level, "reader (%s) for %s: %s; the local grade stands", source, analysis.path, failure)
    return replace(analysis, reader=ReaderInfo(source, sha, failure=failure))


def _record(sha: str, asked: Asked) -> dict[str, Any]:
    return {
        "request_sha256": sha,
        "model": asked.model,
        "answer": asked.text,
        "failure": asked.failure or None,
    }


def record_text(sha: str, answer: str, model: str) -> bytes:
    """A recorded answer's file: the answer to the request of hash `sha`, and its model."""
    data = {"request_sha256": sha, "model": model, "answer": answer, "failure": None}
    return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8") + b"\n"


def load_record(path: Path, sha: str) -> dict[str, Any]:
    """A recorded answer for the request of hash `sha`; any other file is an error."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise AnswerError(f"{path}: {getattr(error, 'strerror', None) or error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("answer"), str):
        raise AnswerError(f'{path}: not a recorded answer (a JSON object with "answer")')
    if data.get("request_sha256") != sha:
        raise AnswerError(
            f"{path} answers another request (sha256 {str(data.get('request_sha256'))[:12]}…, "
            f"this one is {sha[:12]}…): record a new answer to `keepd ask --print`"
        )
    return data


def _cached(cache: Path | None, sha: str) -> dict[str, Any] | None:
    if cache is None:
        return None
    try:
        data = json.loads((cache / f"{sha}.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("request_sha256") == sha else None


def _save(cache: Path | None, sha: str, record: dict[str, Any]) -> None:
    if cache is None:
        return
    from keepd.system.atomic import replace_file

    try:
        replace_file(cache / f"{sha}.json", json.dumps(record, ensure_ascii=False).encode())
    except OSError as error:
        log.warning("the reader's answer could not be cached: %s", error.strerror or error)
