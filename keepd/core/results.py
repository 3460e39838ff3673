"""The analysis's dataclasses, what the core hands every front end: the stops, the zones, the
blocks and borrowed words before the pick, the reader's part, and the analysis with its
`--json` form."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from keepd.core.steps import as_json

SCHEMA_VERSION = 1


@dataclass(slots=True)  # not frozen: a session has thousands, built on every refresh
class Stop:
    """One place the picker lets you stop, and what stopping there would do."""

    uuid: str
    index: int
    below: int
    in_picker: bool
    frees: float
    sc: float | None
    kept: int
    borrowed: int
    grade: str | None
    shape: str | None
    multiple: float | None
    quote: str
    timestamp: str
    eligible: bool = True  # above the floors: the pick and the trade come from these
    event: str | None = None  # a break the session records before it (core/events.py)
    reasons: list[str] | None = None  # a zone's: what graded it (words, then cues)
    quote_raw: str = ""  # the prompt's text with its tags; `quote` is the picker's row
    code_changed: bool = False  # its rewind menu offers to restore code (core/steps.py)
    after: int | None = None  # the context's tokens after a cut there (core/aftercut.py)


@dataclass(frozen=True, slots=True)
class ZoneInfo:
    """A graded zone by the uuids of its first, best and last stops."""

    first: str
    best: str
    last: str
    grade: str
    shape: str
    multiple: float
    event: str | None = None  # the event that made it the pick, when no zone reached ●●
    reasons: list[str] = field(default_factory=list)  # what graded it (words, then cues)


@dataclass(frozen=True, slots=True)
class BlockInfo:
    """A sixth of the part before the pick and how much the kept part borrows from it."""

    first: int
    last: int
    first_uuid: str | None
    borrowed: int
    share: float
    side_trip: bool
    quote: str


@dataclass(frozen=True, slots=True)
class WordInfo:
    """A borrowed word, its uses in the kept part, and the message that introduced it."""

    word: str
    uses: int
    first: int
    first_uuid: str | None


@dataclass(frozen=True, slots=True)
class ReaderInfo:
    """What the reader of meaning (`claude -p`, core/reader.py) said, and what keepd made of it."""

    source: str  # "claude -p", "recorded answer", "cache"
    request_sha256: str
    newest: str | None = None  # uuid of the stop where the newest piece began
    newest_kind: str | None = None  # "task" or "step"
    starts: list[tuple[str, str]] = field(default_factory=list)  # (uuid, kind), oldest first
    moved: bool = False  # the pick is at the reader's newest piece (moved there, or was)
    flag: str | None = None  # why the pick did not move there (the kept part leans on the past)
    failure: str | None = None  # why there is no answer (the local grade stands)


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything a front end shows about one session; `to_dict` is the `--json` form."""

    session_id: str | None
    path: str | None
    project: str | None
    scope: str
    messages: int
    skipped_lines: int
    context: dict[str, Any]
    tokens_estimated: bool
    wiggle: float | None
    stops: list[Stop]
    zones: list[ZoneInfo]
    pick: str | None
    trade: list[str]
    blocks: list[BlockInfo] = field(default_factory=list)
    borrowed_words: list[WordInfo] = field(default_factory=list)
    sidechain_only: bool = False
    schema: int = SCHEMA_VERSION
    stops_total: int | None = None  # set when `stops` holds only the marked ones
    reader: ReaderInfo | None = None  # set when the reader was asked (core/reader.py)
    compacted_at: str | None = None  # the compact boundary the current part starts at (uuid)

    @property
    def stop_count(self) -> int:
        """How many stops the picker lists, including those `stops` may leave out."""
        return self.stops_total if self.stops_total is not None else len(self.stops)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["stops_total"]
        if self.reader is None:
            del data["reader"]  # the reader is off: the JSON form stays as it was
        data["stop_count"] = self.stop_count
        target = self.target_stop()
        data["steps"] = as_json(target)
        if data["steps"] is not None and target is not None:
            from keepd.core.sureness import said_sure  # it reads the reader's kinds

            data["steps"]["sure"] = said_sure(self, target)
        return data

    def stop(self, uuid: str | None) -> Stop | None:
        return next((stop for stop in self.stops if stop.uuid == uuid), None)

    @property
    def target(self) -> str | None:
        """The stop to recommend: the pick, else the middle of the trade (None: neither)."""
        return self.pick or (self.trade[len(self.trade) // 2] if self.trade else None)

    def target_stop(self) -> Stop | None:
        return self.stop(self.target)
