"""Sends notices as desktop notifications, and opens notes; every platform quirk decided here.

Linux: D-Bus through desktop-notifier, with the bus address taken from `$XDG_RUNTIME_DIR/bus`
when unset; a send that is not dispatched (no server, a restarted bus) drops the notifier so
the next try builds a new one. macOS outside an app bundle, where desktop-notifier drops
notifications silently, uses `osascript`. Windows: desktop-notifier's WinRT toasts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import stat
import sys
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any, Protocol

from keepd.daemon.policy import Notice

log = logging.getLogger(__name__)
SEND_SECONDS = 10.0
OPEN_NOTE = "open-note"
NOT_NOW = "not-now"
Callback = Callable[[Notice], None]


class Sender(Protocol):
    """Something that shows a notice and says whether it was dispatched."""

    async def send(self, notice: Notice) -> bool: ...

    def describe(self) -> str: ...


def ensure_bus_address(environ: MutableMapping[str, str]) -> str | None:
    """Sets `DBUS_SESSION_BUS_ADDRESS` from `$XDG_RUNTIME_DIR/bus` when unset (Linux)."""
    if not sys.platform.startswith("linux") or environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return environ.get("DBUS_SESSION_BUS_ADDRESS")
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    bus = Path(runtime) / "bus" if runtime else None
    with contextlib.suppress(OSError):
        if bus is not None and stat.S_ISSOCK(bus.stat().st_mode):
            environ["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={bus}"
            log.info("DBUS_SESSION_BUS_ADDRESS was unset; using %s", bus)
    return environ.get("DBUS_SESSION_BUS_ADDRESS")


def in_app_bundle(executable: str = sys.executable) -> bool:
    """Whether this Python runs inside a macOS app bundle (needed by Notification Center)."""
    return ".app/Contents/MacOS/" in str(Path(executable).resolve())


def make_sender(on_open: Callback, on_not_now: Callback) -> Sender:
    """The sender for this platform."""
    if sys.platform == "darwin" and not in_app_bundle():
        log.info("not inside an app bundle: notifications go through osascript (no buttons)")
        return OsascriptSender()
    return DesktopSender(on_open, on_not_now)


class _Reason(logging.Filter):
    """Keeps the reason desktop-notifier logs for a failed send, instead of its traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.last = ""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            self.last = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
            return False
        return True


class DesktopSender:
    """desktop-notifier on the daemon's loop, rebuilt whenever a send is not dispatched."""

    def __init__(self, on_open: Callback, on_not_now: Callback) -> None:
        self.on_open = on_open
        self.on_not_now = on_not_now
        self._notifier: Any = None
        self._state = "not used yet"
        self._reason = _Reason()

    def describe(self) -> str:
        return f"desktop-notifier: {self._state}"

    async def send(self, notice: Notice) -> bool:
        from desktop_notifier import Button, DesktopNotifier, Icon, Urgency

        from keepd.data.icons import png_icon

        if self._notifier is None:
            logging.getLogger("desktop_notifier.backends.base").addFilter(self._reason)
            # keepd's own icon: desktop-notifier's default is Python's logo.
            self._notifier = DesktopNotifier(app_name="keepd", app_icon=Icon(path=png_icon()))
        dispatched = asyncio.Event()
        buttons = [
            Button("Open note", on_pressed=lambda: self.on_open(notice), identifier=OPEN_NOTE),
            Button("Not now", on_pressed=lambda: self.on_not_now(notice), identifier=NOT_NOW),
        ]
        try:
            await asyncio.wait_for(
                self._notifier.send(
                    notice.title,
                    notice.body,
                    urgency=Urgency.Critical if notice.urgent else Urgency.Normal,
                    buttons=buttons,
                    on_clicked=lambda: self.on_open(notice),
                    on_dispatched=dispatched.set,
                ),
                SEND_SECONDS,
            )
        except Exception as error:  # the library logs most failures itself; never crash
            log.warning("notification failed: %r", error)
        if dispatched.is_set():
            self._state = "dispatched"
            return True
        self._state = f"not dispatched ({self._reason.last or 'no notification server?'})"
        self._drop()
        return False

    def _drop(self) -> None:
        """Forgets a notifier whose bus failed; closes its connection where one was made."""
        notifier, self._notifier = self._notifier, None
        bus = getattr(getattr(notifier, "_backend", None), "bus", None)
        with contextlib.suppress(Exception):
            if bus is not None:
                bus.disconnect()


class OsascriptSender:
    """macOS outside an app bundle: `display notification` (no buttons, no callbacks)."""

    def __init__(self) -> None:
        self._state = "osascript"

    def describe(self) -> str:
        return self._state

    async def send(self, notice: Notice) -> bool:
        script = f"display notification {_apple(notice.body)} with title {_apple(notice.title)}"
        try:
            process = await asyncio.create_subprocess_exec(
                "osascript", "-e", script, stdin=asyncio.subprocess.DEVNULL
            )
            code = await asyncio.wait_for(process.wait(), SEND_SECONDS)
        except (OSError, TimeoutError) as error:
            self._state = f"osascript failed: {error}"
            return False
        self._state = "osascript" if code == 0 else f"osascript exited {code}"
        return code == 0


def _apple(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def opener(
    path: Path, command: str = "", environ: Mapping[str, str] = os.environ
) -> list[str] | None:
    """The command that opens `path`: the configured one, else the platform's (None: Windows).

    Under systemd the daemon runs in a sandbox (read-only home, no network for what it
    starts), so the viewer is started outside it, as a transient unit of the user's manager.

    >>> opener(Path("/n/x.html"), "firefox --new-tab")
    ['firefox', '--new-tab', '/n/x.html']
    >>> opener(Path("/n/x.html"), environ={"INVOCATION_ID": "1"})[:4]
    ['systemd-run', '--user', '--collect', '--quiet']
    """
    if command.strip():
        return [*shlex.split(command), str(path)]
    if sys.platform == "darwin":
        return ["open", str(path)]
    if sys.platform == "win32":
        return None
    if environ.get("INVOCATION_ID"):
        return ["systemd-run", "--user", "--collect", "--quiet", "xdg-open", str(path)]
    return ["xdg-open", str(path)]


async def open_path(path: Path, command: str = "") -> None:
    """Opens the note without waiting for the viewer to exit; failures are logged."""
    argv = opener(path, command)
    try:
        if argv is None:
            os.startfile(path)  # type: ignore[attr-defined]  # Windows only
            return
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError as error:
        log.warning("cannot open %s: %s", path, error)
        return
    log.info("opened %s with %s", path, argv[0])
    await process.wait()
