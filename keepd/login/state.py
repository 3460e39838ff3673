"""What a service manager says about keepd's service, in one shape for systemd and launchd."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from keepd.login.actions import Action, Runner
from keepd.login.command import Command
from keepd.login.render import Extras


@dataclass(frozen=True, slots=True)
class ServiceState:
    """Installed, enabled at login, running, and the manager's own words for it."""

    manager: str
    installed: bool
    enabled: bool
    running: bool
    state: str
    pid: int | None = None
    detail: str = ""
    files: list[str] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    reachable: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Manager(Protocol):
    """A service manager keepd can install itself into."""

    name: str
    runner: Runner

    def files(self, command: Command, extras: Extras, *, socket: bool) -> dict[Path, bytes]:
        """The files to write, by path."""
        ...

    def install_actions(
        self, command: Command, extras: Extras, *, socket: bool
    ) -> list[Action]: ...

    def uninstall_actions(self) -> list[Action]: ...

    def status(self) -> ServiceState: ...

    def logs_argv(self, lines: int, *, follow: bool) -> list[str]: ...
