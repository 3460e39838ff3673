"""The checks of `keepd doctor` that ask something live: the bus, the service, the daemon."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from keepd.errors import KeepdError
from keepd.login.checks import FAIL, OK, SKIP, WARN, Check

NOTIFICATIONS = "org.freedesktop.Notifications"
BUS_SECONDS = 3.0
NO_SERVER_FIX = (
    "start your desktop's notification server, or install one (dunst, mako, or "
    "notification-daemon) and log in again"
)


def check_bus() -> Check:
    """Linux: the session bus (as the daemon finds it) and a notification server on it."""
    if not sys.platform.startswith("linux"):
        return Check("notifications", SKIP, "not Linux (no D-Bus notifications)")
    from keepd.daemon.notify import ensure_bus_address

    environ = dict(os.environ)
    address = ensure_bus_address(environ)
    if not address:
        fix = (
            "log into a desktop session; under systemd run "
            "`dbus-update-activation-environment --systemd DBUS_SESSION_BUS_ADDRESS`"
        )
        return Check("notifications", FAIL, "no D-Bus session bus: notices cannot be shown", fix)
    try:
        owned, activatable = asyncio.run(asyncio.wait_for(_ask_bus(address), BUS_SECONDS))
    except Exception as error:  # dbus-fast raises many kinds; each means no usable bus
        summary = f"the session bus {address} does not answer: {error or type(error).__name__}"
        return Check("notifications", FAIL, summary, "log into a desktop session", {"bus": address})
    data = {"bus": address, "server": owned, "activatable": activatable}
    if owned:
        return Check("notifications", OK, f"a notification server answers on {address}", data=data)
    if activatable:
        summary = "no notification server runs, but the bus starts one on the first notice"
        return Check("notifications", OK, summary, data=data)
    return Check("notifications", FAIL, f"no notification server on {address}", NO_SERVER_FIX, data)


async def _ask_bus(address: str) -> tuple[bool, bool]:
    from dbus_fast import Message
    from dbus_fast.aio import MessageBus

    bus = await MessageBus(bus_address=address).connect()
    try:
        owned = await _call(bus, Message, "NameHasOwner", "s", [NOTIFICATIONS])
        names = await _call(bus, Message, "ListActivatableNames", "", [])
    finally:
        bus.disconnect()
    return bool(owned), NOTIFICATIONS in (names or [])


async def _call(bus: Any, message: Any, member: str, signature: str, body: list[Any]) -> Any:
    reply = await bus.call(
        message(
            destination="org.freedesktop.DBus",
            path="/org/freedesktop/DBus",
            interface="org.freedesktop.DBus",
            member=member,
            signature=signature,
            body=body,
        )
    )
    return reply.body[0] if reply is not None and reply.body else None


def check_test_notice() -> Check:
    """Sends a real notification through the daemon's own notifier."""
    from keepd.daemon.notify import ensure_bus_address, make_sender
    from keepd.daemon.policy import Notice

    ensure_bus_address(os.environ)
    notice = Notice(
        session_id="keepd-doctor",
        path="",
        key="doctor",
        urgent=False,
        title="keepd doctor",
        body="A test notice: keepd can reach your desktop.",
        stop="",
        quote="",
    )
    sender = make_sender(lambda _notice: None, lambda _notice: None)
    try:
        sent = asyncio.run(sender.send(notice))
    except Exception as error:  # a sender never should raise; say so if one does
        return Check("test notice", FAIL, f"sending failed: {error!r}", NO_SERVER_FIX)
    if sent:
        return Check("test notice", OK, f"sent ({sender.describe()}): look for it on screen")
    return Check("test notice", FAIL, f"not shown: {sender.describe()}", NO_SERVER_FIX)


def check_service(manager: Any = None) -> tuple[Check, Any]:
    """The login service's state, as its manager (this platform's by default) reports it."""
    from keepd.login.actions import Runner
    from keepd.login.control import make_manager, platform_manager

    try:
        manager = manager or make_manager(platform_manager(), Runner())
    except KeepdError as error:
        return Check("service", SKIP, error.message), None
    state = manager.status()
    return _judged(manager.name, state), state


def _judged(name: str, state: Any) -> Check:
    data = state.to_dict()
    install = "`keepd service install`"
    if not state.reachable:
        summary = f"{state.state}: {state.detail}"
        fix = (
            "log in with a systemd user session, or `keepd service install --manager autostart` "
            "(an XDG autostart entry), or run `keepd run` under your session's own supervisor"
        )
        return Check("service", FAIL, summary, fix, data)
    if not state.installed:
        return Check("service", FAIL, f"not installed in {name}", install, data)
    summary = f"{name}: {state.state}" + (f", pid {state.pid}" if state.pid else "")
    summary += f"; {state.detail}" if state.detail else ""
    if not state.running:
        fix = "see `keepd service logs`; then `keepd service install` again"
        return Check("service", FAIL, summary, fix, data)
    if not state.enabled:
        fix = "`keepd service install` (to start it at login)"
        return Check("service", WARN, summary + "; not started at login", fix, data)
    twice = _autostart_beside(name)
    if twice is not None:
        summary += f"; {twice} also starts keepd at login (the second daemon exits at once)"
        fix = "`keepd service uninstall --manager autostart` (keep one login path)"
        return Check("service", WARN, summary, fix, data)
    return Check("service", OK, summary, data=data)


def _autostart_beside(manager: str) -> Path | None:
    """keepd's XDG autostart entry where another manager runs keepd at login."""
    from keepd.login.autostart import desktop_path

    path = desktop_path()
    return path if manager != "autostart" and path.exists() else None


def check_command(state: Any) -> Check:
    """The command the installed service runs is this keepd."""
    from keepd._version import __version__
    from keepd.login.command import resolve_command

    here = resolve_command()
    data = {"this": list(here.argv), "version": __version__}
    installed = list(getattr(state, "command", []) or [])
    if not installed:
        return Check("command", OK, f"keepd {__version__} at {' '.join(here.argv)}", data=data)
    data["service"] = installed
    if not Path(installed[0]).exists():
        summary = f"the service runs {installed[0]}, which no longer exists"
        return Check("command", FAIL, summary, "`keepd service install`", data)
    from keepd.login.advice import install_keepd
    from keepd.login.command import Command, shared_tmp_warning

    warning = shared_tmp_warning(Command(tuple(installed), "installed"))
    if warning is not None:
        fix = f"install keepd outside /tmp ({install_keepd()}), then its `keepd service install`"
        return Check("command", WARN, f"the service runs {installed[0]}: {warning}", fix, data)
    if installed[: len(here.argv)] == list(here.argv):
        return Check("command", OK, f"the service runs {' '.join(here.argv)}", data=data)
    summary = f"the service runs {' '.join(installed)}, not this keepd ({' '.join(here.argv)})"
    fix = "`keepd service install` (to run this one), or ignore if intended"
    return Check("command", WARN, summary, fix, data)


def check_socket() -> Check:
    """The daemon answers a ping on its socket."""
    from keepd.errors import DaemonUnavailableError
    from keepd.ops.client import Client
    from keepd.paths import socket_path

    path = socket_path()
    try:
        reply = Client(timeout=3.0).call("ping")
    except DaemonUnavailableError as error:
        fix = "`keepd service install`, or `systemctl --user start keepd` if it is installed"
        summary = f"no daemon answers: {error.message}"
        return Check("socket", FAIL, summary, fix, {"path": str(path)})
    except KeepdError as error:
        fix = "restart it: systemctl --user restart keepd (or launchctl kickstart -k)"
        summary = f"the daemon answered badly: {error}"
        return Check("socket", FAIL, summary, fix, {"path": str(path)})
    version = reply.get("version", "?") if isinstance(reply, dict) else "?"
    data = {"path": str(path), "reply": reply}
    return Check("socket", OK, f"keepd {version} answers on {path}", data=data)
