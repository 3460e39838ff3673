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
