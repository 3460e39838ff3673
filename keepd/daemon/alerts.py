"""Turns analyses into notices: decides, keeps what is not yet dispatched, retries, remembers.

A notice counts as sent only once the notification server took it; until then it waits in
`pending` (the newest per session) and is retried. Its key is saved to the memory file before
it is sent, so a restarted daemon does not repeat it: a notice whose record cannot be saved (a
full disk) waits too, and is sent once a save succeeds.

With the reader of meaning on, a break notice goes out only at a stop the reader's answer
calls the start of a task (or within one row of one), else it waits: the session's newest
answer is kept for the turns the reader is not asked. The urgent notice does not wait.
Without an answer (the reader off, or its newest ask failed) the local grade decides alone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from keepd.daemon.policy import Notice, decide, kind_due

if TYPE_CHECKING:
    from keepd.config import NotifyConfig
    from keepd.core.analysis import Analysis
    from keepd.daemon.notify import Sender
    from keepd.ops.memory import Memory

log = logging.getLogger(__name__)


class Alerts:
    """The notices of every session, and the one sender they go through."""

    def __init__(
        self,
        config: NotifyConfig,
        memory: Memory,
        save: Callable[[], bool],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.memory = memory
        self.save = save
        self.clock = clock
        self.sender: Sender | None = None
        self.pending: dict[str, Notice] = {}
        self.answers: dict[str, list[tuple[str, str]]] = {}  # the reader's newest starts
        self.failures = 0
        self._lock = asyncio.Lock()

    def consider(self, session_id: str, analysis: Analysis) -> bool:
        """Queues the notice `analysis` calls for; True when there is one."""
        notice = decide(analysis, session_id, self.config, self.memory, self.clock())
        if notice is None or not self._reader_allows(session_id, analysis, notice):
            return False
        self.pending[session_id] = notice
        return True

    def _reader_allows(self, session_id: str, analysis: Analysis, notice: Notice) -> bool:
        """Whether the reader's newest answer for the session lets this notice go: an urgent
        one always; a break one at a task start the answer names (no answer: always)."""
        read = analysis.reader
        if read is not None and read.failure is not None:
            self.answers.pop(session_id, None)  # it failed: the local grade decides alone
        elif read is not None and read.newest is not None:
            self.answers[session_id] = list(read.starts)
        starts = self.answers.get(session_id)
        if notice.urgent or starts is None:
            return True
        from keepd.core.sureness import confirms

        if confirms(analysis, notice.stop, starts):
            return True
        log.info("break notice for %s waits: the reader names no task start there", session_id)
        return False

    def prune(self, known: set[str]) -> int:
        """Forgets the reader's answers and the pending notices of sessions whose files are
        gone (a daemon that runs for months must not keep them all); returns how many."""
        gone = [s for s in set(self.answers) | set(self.pending) if s not in known]
        for session_id in gone:
            self.answers.pop(session_id, None)
            self.pending.pop(session_id, None)
        return len(gone)

    def may_notify(self, session_id: str, analysis: Analysis) -> bool:
        """Whether a notice of the kind the analysis calls for, as `decide` finds it, could
        still be sent to this session (on, not paused or muted, no break notice sent yet, or
        no urgent one in this filling of the context): the reader is asked only then."""
        now = self.clock()
        if not self.config.enabled or self.memory.is_paused(now):
            return False
        if self.memory.muted(session_id, now):
            return False
        due = kind_due(analysis, self.config)
        return due is not None and not self.memory.notified_kind(session_id, *due)

    async def flush(self) -> int:
        """Sends what is pending; stops at the first failure (the server is away, or the
        record of the notice cannot be saved)."""
        if self.sender is None or not self.pending:
            return 0
        sent = 0
        async with self._lock:
            for session_id, notice in list(self.pending.items()):
                if not self._still_wanted(notice):
                    self.pending.pop(session_id, None)
                    continue
                if not await self._send(notice):
                    break
                log.info("notified %s (%s)", session_id, notice.key)
                if self.pending.get(session_id) is notice:
                    del self.pending[session_id]
                sent += 1
        return sent

    async def _send(self, notice: Notice) -> bool:
        """Records the notice, saves the record, then sends it; takes the record back if
        the server does not take the notice."""
        assert self.sender is not None
        self.memory.remember(notice.session_id, notice.key)
        if not self.save():
            self.memory.forget(notice.session_id, notice.key)
            return False
        if await self.sender.send(notice):
            self.failures = 0
            return True
        self.memory.forget(notice.session_id, notice.key)
        self.save()
        self.failures += 1
        level = logging.WARNING if self.failures == 1 else logging.DEBUG
        log.log(
            level,
            "notice for %s not dispatched: %s; retrying",
            notice.session_id,
            self.sender.describe(),
        )
        return False

    def _still_wanted(self, notice: Notice) -> bool:
        now = self.clock()
        if not self.config.enabled or self.memory.is_paused(now):
            return False
        if self.memory.muted(notice.session_id, now):
            return False
        return not self.memory.was_notified(notice.session_id, notice.key)
