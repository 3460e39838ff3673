"""What the daemon remembers across restarts: the notices sent, mutes, the pause, and the window
each session's status line named.

Written atomically (a temporary file renamed over the old one) with mode 0600; a file that
cannot be parsed is set aside and the daemon starts with an empty memory. A save that fails (a
full disk) is tried again until one succeeds.
"""

from __future__ import annotations

import contextlib
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from keepd.core.limits import Setup, Told
from keepd.errors import UsageError
from keepd.system.atomic import replace_file

log = logging.getLogger(__name__)
FORMAT = 1
MAX_SESSIONS = 5000
MAX_MINUTES = 10 * 365 * 24 * 60


@dataclass(slots=True)
class Memory:
    """Notices sent per session (`kind:stop uuid` keys), mutes (None: until unmuted), pause."""

    notified: dict[str, list[str]] = field(default_factory=dict)
    mutes: dict[str, float | None] = field(default_factory=dict)
    paused: bool = False
    paused_until: float | None = None
    told: dict[str, Told] = field(default_factory=dict)  # what each status line said

    def tell(self, session_id: str, told: Told) -> bool:
        """Keeps what a session's status line said; True when its window is news (worth a
        save: the share changes with every repaint, the window hardly ever)."""
        before = self.told.pop(session_id, None)
        self.told[session_id] = told
        while len(self.told) > MAX_SESSIONS:
            del self.told[next(iter(self.told))]
        return before is None or before.window != told.window

    def was_notified(self, session_id: str, key: str) -> bool:
        return key in self.notified.get(session_id, ())

    def notified_kind(self, session_id: str, kind: str, ending: str = "") -> bool:
        """Whether any notice of `kind` ("break", "urgent") was sent for the session (with
        `ending`: only keys that end so).

        >>> memory = Memory()
        >>> memory.remember("s1", "urgent:a@p1")
        >>> memory.notified_kind("s1", "urgent"), memory.notified_kind("s1", "break")
        (True, False)
        >>> memory.notified_kind("s1", "urgent", "@p1"), memory.notified_kind("s1", "urgent", "@p2")
        (True, False)
        """
        return any(
            key.startswith(f"{kind}:") and key.endswith(ending)
            for key in self.notified.get(session_id, ())
        )

    def sent(self) -> int:
        """How many notices were sent, by this daemon and every one before it (the count
        `keepd status` shows, with a daemon running or without one).

        >>> memory = Memory()
        >>> memory.remember("s1", "break:a"); memory.remember("s2", "urgent:b")
        >>> memory.sent()
        2
        """
        return sum(len(keys) for keys in self.notified.values())

    def remember(self, session_id: str, key: str) -> None:
        keys = self.notified.setdefault(session_id, [])
        if key not in keys:
            keys.append(key)
        while len(self.notified) > MAX_SESSIONS:
            del self.notified[next(iter(self.notified))]

    def forget(self, session_id: str, key: str) -> None:
        """Takes back `remember` (the notice it recorded was not sent after all)."""
        keys = self.notified.get(session_id, [])
        if key in keys:
            keys.remove(key)
        if not keys:
            self.notified.pop(session_id, None)

    def muted(self, session_id: str, now: float) -> bool:
        if session_id not in self.mutes:
            return False
        until = self.mutes[session_id]
        return until is None or until > now

    def is_paused(self, now: float) -> bool:
        return self.paused and (self.paused_until is None or self.paused_until > now)

    def expire(self, now: float) -> None:
        """Drops mutes and the pause whose time is over."""
        for session_id, until in list(self.mutes.items()):
            if until is not None and until <= now:
                del self.mutes[session_id]
        if self.paused and self.paused_until is not None and self.paused_until <= now:
            self.paused, self.paused_until = False, None

    def mute(self, session_id: str, until: float | None) -> None:
        self.mutes[session_id] = until

    def unmute(self, session_id: str) -> bool:
        return self.mutes.pop(session_id, 0.0) != 0.0

    def pause(self, until: float | None) -> None:
        self.paused, self.paused_until = True, until

    def resume(self) -> None:
        self.paused, self.paused_until = False, None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "notified": self.notified,
            "mutes": self.mutes,
            "paused": self.paused,
            "paused_until": self.paused_until,
            "told": {
                key: {"window": t.window, "share": t.share, "at": t.at}
                for key, t in self.told.items()
            },
        }


def until(minutes: float | None, now: float) -> float | None:
    """The end of a mute or pause `minutes` from now (None: until lifted); at most ten years,
    so that a huge number is an error rather than "until lifted" in disguise.

    >>> until(None, 100.0), until(2, 100.0)
    (None, 220.0)
    >>> until(True, 100.0)
    Traceback (most recent call last):
    ...
    keepd.errors.UsageError: usage: minutes must be a number, not True
    >>> until(1e300, 100.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    keepd.errors.UsageError: usage: minutes must be at most 5,256,000 (ten years), not 1e+300...
    """
    if minutes is None:
        return None
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise UsageError(f"minutes must be a number, not {minutes!r}")
    if not math.isfinite(minutes) or minutes <= 0:
        raise UsageError(f"minutes must be a positive number, not {minutes!r}")
    if minutes > MAX_MINUTES:
        raise UsageError(
            f"minutes must be at most {MAX_MINUTES:,} (ten years), not {minutes!r}; "
            'leave it out for "until lifted"'
        )
    return now + 60.0 * minutes


def load_memory(path: Path) -> Memory:
    """The memory in `path`; missing means empty, unreadable or corrupt is set aside."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Memory()
    except OSError as error:
        log.warning("cannot read %s (%s); starting with an empty memory", path, error)
        return Memory()
    try:
        return _parse(orjson.loads(raw))
    except (orjson.JSONDecodeError, TypeError, ValueError) as error:
        aside = path.with_name(path.name + ".bad")
        log.warning("%s is corrupt (%s); moved to %s", path, error, aside)
        with contextlib.suppress(OSError):
            path.replace(aside)
        return Memory()


def told_setup(session: Path, window: int | None = None) -> Setup:
    """A session file's setup with what its status line last told the daemon (its state file)."""
    from keepd.paths import daemon_state_file
    from keepd.system.settings import setup_for

    told = load_memory(daemon_state_file()).told.get(session.stem)
    return setup_for(session, window, told)


def save_memory(path: Path, memory: Memory) -> None:
    """Writes the memory atomically, private to the user."""
    replace_file(path, orjson.dumps(memory.to_dict()), mode=0o600)


class StateFile:
    """The memory and the file it is saved to; a failed save leaves it `unsaved` for `retry`."""

    def __init__(self, path: Path, memory: Memory) -> None:
        self.path = path
        self.memory = memory
        self.unsaved = False
        self.failures = 0

    def save(self) -> bool:
        """Writes the memory; False (logged) when it could not be written."""
        try:
            save_memory(self.path, self.memory)
        except OSError as error:
            self.failures += 1
            self.unsaved = True
            level = logging.ERROR if self.failures == 1 else logging.DEBUG
            log.log(level, "cannot save %s: %s; trying again", self.path, error)
            return False
        if self.failures:
            log.info("saved %s after %d failed tries", self.path, self.failures)
        self.unsaved, self.failures = False, 0
        return True

    def retry(self) -> None:
        """Saves again if the last save failed."""
        if self.unsaved:
            self.save()


def _parse(data: Any) -> Memory:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError("not a keepd daemon state file")
    notified = data.get("notified") or {}
    mutes = data.get("mutes") or {}
    if not isinstance(notified, dict) or not isinstance(mutes, dict):
        raise ValueError("bad notified or mutes")
    memory = Memory(
        notified={str(k): [str(x) for x in v] for k, v in notified.items() if isinstance(v, list)},
        mutes={str(k): _time(v) for k, v in mutes.items()},
        paused=data.get("paused") is True,
        paused_until=_time(data.get("paused_until")),
        told=_told(data.get("told")),
    )
    return memory


def _told(data: Any) -> dict[str, Told]:
    """The status lines' words that can be read (a bad one is dropped, not the memory)."""
    out: dict[str, Told] = {}
    for key, value in (data if isinstance(data, dict) else {}).items():
        window = value.get("window") if isinstance(value, dict) else None
        if isinstance(window, int) and not isinstance(window, bool) and window > 0:
            share, at = value.get("share"), value.get("at")
            share = float(share) if _number(share) and 0 <= share <= 1 else None
            out[str(key)] = Told(window, share, float(at) if _number(at) else None)
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _time(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"not a time: {value!r}")
