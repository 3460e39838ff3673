"""keepd as a systemd user service: the unit files, `systemctl --user`, and the journal."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from keepd.login.actions import Action, Remove, Run, Runner, Write
from keepd.login.command import Command
from keepd.login.render import SERVICE, SOCKET, Extras, render_service, render_socket
from keepd.login.state import ServiceState
from keepd.paths import systemd_user_dir

SYSTEMCTL = ("systemctl", "--user")
UNITS = (SOCKET, SERVICE)
PROPERTIES = (
    "Id",
    "LoadState",
    "ActiveState",
    "SubState",
    "UnitFileState",
    "MainPID",
    "ExecMainStatus",
    "NRestarts",
    "StatusText",
    "FragmentPath",
)
BUS = "DBUS_SESSION_BUS_ADDRESS"
UPDATE_ENV = "dbus-update-activation-environment"


class Systemd:
    """The user's systemd instance, reached with `systemctl --user`."""

    name = "systemd"

    def __init__(self, runner: Runner, environ: Mapping[str, str] | None = None) -> None:
        self.runner = runner
        self.environ = os.environ if environ is None else environ

    def files(self, command: Command, extras: Extras, *, socket: bool) -> dict[Path, bytes]:
        folder = systemd_user_dir()
        found = {folder / SERVICE: render_service(command, extras).encode()}
        if socket:
            found[folder / SOCKET] = render_socket().encode()
        return found

    def install_actions(self, command: Command, extras: Extras, *, socket: bool) -> list[Action]:
        files = self.files(command, extras, socket=socket)
        changed = any(_differs(path, content) for path, content in files.items())
        actions: list[Action] = [Write(path, content) for path, content in files.items()]
        stale = systemd_user_dir() / SOCKET
        if not socket and stale.exists():
            actions += [Run((*SYSTEMCTL, "disable", "--now", SOCKET), required=False)]
            actions.append(Remove(stale))
        actions += self.bus_import()
        units = UNITS if socket else (SERVICE,)
        actions.append(Run((*SYSTEMCTL, "daemon-reload")))
        actions.append(Run((*SYSTEMCTL, "enable", "--now", *units)))
        if changed and self.status().running:
            actions.append(Run((*SYSTEMCTL, "restart", SERVICE)))
        return actions

    def bus_import(self) -> list[Action]:
        """Gives the user manager this session's bus address when the daemon could not find
        it by itself (it looks at `$XDG_RUNTIME_DIR/bus`) and the manager lacks one."""
        address = self.environ.get(BUS, "")
        if not address or _standard_bus(address, self.environ.get("XDG_RUNTIME_DIR", "")):
            return []
        shown = self.runner((*SYSTEMCTL, "show-environment"))
        if shown.code == 0 and any(line.startswith(BUS + "=") for line in shown.out.splitlines()):
            return []
        if shutil.which(UPDATE_ENV):
            return [Run((UPDATE_ENV, "--systemd", BUS), required=False)]
        return [Run((*SYSTEMCTL, "import-environment", BUS), required=False)]

    def uninstall_actions(self) -> list[Action]:
        folder = systemd_user_dir()
        ours = [folder / unit for unit in UNITS if (folder / unit).exists()]
        loaded = [unit for unit, info in zip(UNITS, self._show(), strict=False) if _loaded(info)]
        if not ours and not loaded:
            return []
        names = sorted({path.name for path in ours} | set(loaded))
        actions: list[Action] = [Run((*SYSTEMCTL, "disable", "--now", *names), required=False)]
        actions += [Remove(path) for path in ours]
        actions.append(Run((*SYSTEMCTL, "daemon-reload"), required=False))
        actions.append(Run((*SYSTEMCTL, "reset-failed", *names), required=False))
        return actions

    def status(self) -> ServiceState:
        done = self.runner((*SYSTEMCTL, "show", *UNITS, "--property=" + ",".join(PROPERTIES)))
        blocks = parse_show(done.out) if done.code == 0 else []
        if not blocks:
            reason = (done.err or done.out).strip() or "systemctl --user gave no answer"
            return ServiceState(
                self.name,
                installed=(systemd_user_dir() / SERVICE).exists(),
                enabled=False,
                running=False,
                state="the systemd user manager cannot be reached",
                detail=reason.splitlines()[-1],
                reachable=False,
            )
        service = blocks[-1]
        socket = blocks[0] if len(blocks) > 1 else {}
        return _state(self.name, service, socket)

    def _show(self) -> list[dict[str, str]]:
        argv = (*SYSTEMCTL, "show", *UNITS, "--property=" + ",".join(PROPERTIES))
        done = self.runner(argv)
        if done.code != 0:
            return []
        return parse_show(done.out)

    def logs_argv(self, lines: int, *, follow: bool) -> list[str]:
        argv = ["journalctl", "--user", "--unit", SERVICE, "--unit", SOCKET, "--no-pager"]
        argv += ["--lines", str(lines)]
        return [*argv, "--follow"] if follow else argv


def parse_show(text: str) -> list[dict[str, str]]:
    """`systemctl show` output for several units: one `Key=value` block each.

    >>> parse_show("Id=a\\nMainPID=0\\n\\nId=b\\n")
    [{'Id': 'a', 'MainPID': '0'}, {'Id': 'b'}]
    """
    blocks: list[dict[str, str]] = [{}]
    for line in text.splitlines():
        if not line.strip():
            if blocks[-1]:
                blocks.append({})
            continue
        key, _, value = line.partition("=")
        blocks[-1][key] = value
    return [block for block in blocks if block]


def _state(name: str, service: dict[str, str], socket: dict[str, str]) -> ServiceState:
    enabled_states = ("enabled", "enabled-runtime", "linked", "static")
    enabled = service.get("UnitFileState") in enabled_states[:3] or (
        socket.get("UnitFileState") in enabled_states[:3]
    )
    active = service.get("ActiveState", "")
    pid = int(service.get("MainPID", "0") or 0)
    files = [info["FragmentPath"] for info in (socket, service) if info.get("FragmentPath")]
    detail = service.get("StatusText", "")
    restarts = service.get("NRestarts", "0")
    if restarts not in ("", "0"):
        detail += f"{'; ' if detail else ''}restarted {restarts} times"
    if active == "failed":
        detail += f"{'; ' if detail else ''}last exit status {service.get('ExecMainStatus', '?')}"
    if socket.get("ActiveState") == "active":
        detail += f"{'; ' if detail else ''}keepd.socket listening"
    return ServiceState(
        name,
        installed=_loaded(service),
        enabled=enabled,
        running=active == "active",
        state=f"{active} ({service.get('SubState', '?')})" if _loaded(service) else "not installed",
        pid=pid or None,
        detail=detail,
        files=files,
        command=_exec_start(Path(files[-1])) if files else [],
    )


def _loaded(info: dict[str, str]) -> bool:
    return info.get("LoadState") == "loaded" and bool(info.get("FragmentPath"))


def _exec_start(unit: Path) -> list[str]:
    """The command of a unit file's ExecStart= line, split as systemd would for plain words."""
    try:
        lines = unit.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    for line in lines:
        if line.startswith("ExecStart="):
            try:
                return shlex.split(line.removeprefix("ExecStart=").replace("%%", "%"))
            except ValueError:
                return []
    return []


def _standard_bus(address: str, runtime: str) -> bool:
    """Whether `address` is `$XDG_RUNTIME_DIR/bus`, where the daemon looks by itself."""
    if not runtime:
        return False
    first = address.split(";", maxsplit=1)[0]
    return first.split(",", maxsplit=1)[0] == f"unix:path={Path(runtime) / 'bus'}"


def _differs(path: Path, content: bytes) -> bool:
    try:
        return path.read_bytes() != content
    except OSError:
        return True
