"""keepd's errors: each has a title, a one-line message and its own exit code."""

from __future__ import annotations


class KeepdError(Exception):
    """Base of every error keepd reports to a person."""

    title = "keepd error"
    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"{self.title}: {self.message}"


class SessionNotFoundError(KeepdError):
    title = "no such session"
    exit_code = 3


class UnreadableError(KeepdError):
    title = "cannot read session"
    exit_code = 4

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")


class NotASessionError(KeepdError):
    title = "not a session"
    exit_code = 5

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} holds no Claude Code conversation entries")


class AmbiguousSessionError(KeepdError):
    title = "ambiguous session"
    exit_code = 6


class NoSessionsError(KeepdError):
    title = "no sessions"
    exit_code = 7


class UsageError(KeepdError):
    title = "usage"
    exit_code = 2


class ConfigError(KeepdError):
    """A configuration file that cannot be used; the message names the key."""

    title = "bad configuration"
    exit_code = 78


class DaemonError(KeepdError):
    """The daemon cannot start or cannot be reached."""

    title = "daemon"
    exit_code = 75


class AlreadyRunningError(DaemonError):
    title = "already running"


class DaemonUnavailableError(DaemonError):
    """No daemon answers on the socket (the CLI then computes in-process)."""

    title = "no daemon"
    exit_code = 69


class ServiceError(KeepdError):
    """Installing, removing or asking the login service failed (systemd or launchd said no)."""

    title = "service"
    exit_code = 71


class ProtocolError(KeepdError):
    """A request or reply that breaks the socket protocol; `code` is sent on the wire."""

    title = "protocol error"
    exit_code = 76

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class RemoteError(KeepdError):
    """An error the daemon reported, carrying its title and exit code across the socket."""

    def __init__(self, title: str, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.title = title
        self.exit_code = exit_code


class SessionBusyError(KeepdError):
    """The session may be in use (running, held open, or just written): no cut or undo."""

    title = "session in use"
    exit_code = 8


class SessionChangedError(KeepdError):
    """The file is not what was analysed: it changed between the analysis and the write."""

    title = "session changed"
    exit_code = 9


class UnsafeCutError(KeepdError):
    """The messages to keep would break the context (missing, duplicated, split pairs)."""

    title = "unsafe cut"
    exit_code = 10


class CutNotVerifiedError(KeepdError):
    """The written file does not rebuild the intended context; the write was rolled back."""

    title = "cut not verified"
    exit_code = 11


class NoSuchStopError(KeepdError):
    title = "no such stop"
    exit_code = 12


class NothingToUndoError(KeepdError):
    title = "nothing to undo"
    exit_code = 13


class UndoRefusedError(KeepdError):
    """The file no longer matches the backup and the cut, so truncating could lose data."""

    title = "cannot undo"
    exit_code = 14


class LockedError(KeepdError):
    """Another keepd process is cutting or undoing the same session."""

    title = "locked"
    exit_code = 15


class SummaryError(KeepdError):
    """The summary text cannot be had (an unreadable or empty file, nothing on stdin)."""

    title = "summary"
    exit_code = 16


class WriteFailedError(KeepdError):
    """Writing the session file or its backup failed (the file is left as it was)."""

    title = "cannot write session"
    exit_code = 74


class RecallError(KeepdError):
    """The recall store cannot be used: no FTS5 in this Python's SQLite, unreadable, too new."""

    title = "recall"
    exit_code = 17


class RecallQueryError(KeepdError):
    """A recall query that cannot be searched for (no words, a bad limit)."""

    title = "bad query"
    exit_code = 18


class NotRecalledError(KeepdError):
    """No stored message, cut or session matches what was named."""

    title = "not in the recall store"
    exit_code = 19


class NothingStoredError(NotRecalledError):
    """The recall store has not been made yet: nothing was ever stored."""


class MissingExtraError(KeepdError):
    """An optional dependency a command needs is not installed."""

    title = "not installed"
    exit_code = 20


class AnswerError(KeepdError):
    """A recorded reader answer that cannot be used: unreadable, or recorded for another request."""

    title = "bad recorded answer"
    exit_code = 65
