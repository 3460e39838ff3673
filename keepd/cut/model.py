"""What a cut is made of, as it passes from planning to writing to the command line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

CUT_ID_CHARS = 8


def cut_id(boundary_uuid: str) -> str:
    """A cut's short id: the first characters of its boundary's uuid (so the file names it too).

    >>> cut_id("5f0c2a9e-4b1d-4c7e-9a51-0d2c3b4a5e6f")
    '5f0c2a9e'
    """
    return boundary_uuid[:CUT_ID_CHARS]


class Placement(StrEnum):
    """Where the summary goes in the new context (the seed's four shapes of a boundary)."""

    FIRST = "first"  # the summary is the anchor; the kept messages follow it
    LAST = "last"  # the boundary is the anchor; the summary follows the kept messages
    NONE = "none"  # the kept messages alone
    EMPTY = "empty"  # nothing at all

    @property
    def has_summary(self) -> bool:
        return self in (Placement.FIRST, Placement.LAST)


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The file as it was analysed: a write goes ahead only if it still is exactly this."""

    path: Path
    size: int
    mtime_ns: int
    inode: int
    sha256: str


@dataclass(frozen=True, slots=True)
class Turn:
    """One prompt and what followed it (or the messages before the first prompt), for prune."""

    number: int
    first: int  # message index on the branch
    last: int
    tokens: float
    score: float | None  # None for the recent turns kept whatever their score
    keep: bool
    recent: bool
    quote: str


@dataclass(frozen=True, slots=True)
class Written:
    """The lines to append and the context they must rebuild."""

    payload: bytes
    boundary_uuid: str
    summary_uuid: str | None
    intended: tuple[str, ...]  # uuids of the messages the model sees after the cut
    tail: str  # the entry the next turn will hang under


@dataclass(frozen=True, slots=True)
class Plan:
    """A cut or a prune, decided but not written."""

    kind: str  # "cut" or "prune"
    snapshot: Snapshot
    session_id: str
    project: str | None
    placement: Placement
    preserved: tuple[str, ...]
    dropped: int  # messages left out of the new context
    summary: str | None  # the summary or notes message's text
    summary_source: str
    stop_uuid: str | None
    stop_below: int | None
    stop_quote: str
    tokens_before: float
    tokens_kept: float
    tokens_summary: float
    window: int
    written: Written
    turns: tuple[Turn, ...] = ()
    session_ids: tuple[str, ...] = ()  # the file's name and the id its entries carry
    dropped_uuids: tuple[str, ...] = ()  # the messages left out, in context order

    @property
    def cut_id(self) -> str:
        """The id the recall store keeps the dropped messages under (and the summary names)."""
        return cut_id(self.written.boundary_uuid)

    @property
    def tokens_after(self) -> float:
        return self.tokens_kept + self.tokens_summary

    @property
    def share_after(self) -> float:
        return self.tokens_after / self.window if self.window else 0.0

    @property
    def share_before(self) -> float:
        return self.tokens_before / self.window if self.window else 0.0


@dataclass(frozen=True, slots=True)
class CutOutcome:
    """A plan and what became of it: written (with its backup) or only shown."""

    plan: Plan
    written: bool
    backup: Path | None = None
    rebuilt_directly: bool = False  # keepd's reader sees the new context before the next turn
    recalled: int = 0  # dropped messages stored in the recall store
    recall_warning: str | None = None  # why they could not be (the cut stands all the same)


@dataclass(frozen=True, slots=True)
class UndoOutcome:
    """An undone cut: the file is back to its bytes before it."""

    path: Path
    session_id: str
    size: int
    removed: int  # bytes truncated
    kept_after: Path | None  # turns written after the cut, saved before truncating (`--force`)
    cut_id: str = ""  # the undone cut's id in the recall store
    recall_forgotten: int = 0  # its stored messages removed from the recall store
    recall_warning: str | None = None  # why they could not be
