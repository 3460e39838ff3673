"""A stand-in desktop notification server on the session bus, for tests, as platform.md describes.

Implements `org.freedesktop.Notifications` (Notify, GetCapabilities, GetServerInformation,
CloseNotification, the NotificationClosed and ActionInvoked signals) with dbus-fast, logs every
call as a JSON line, and adds `org.keepd.Test.Invoke(id, action)` so a test can press a button.

  python tests/integration/notify_server.py LOG_FILE    (prints "ready" once the name is owned)
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any

from dbus_fast import BusType
from dbus_fast.aio import MessageBus
from dbus_fast.annotations import DBusDict, DBusInt32, DBusSignature, DBusStr, DBusUInt32
from dbus_fast.service import ServiceInterface, dbus_method, dbus_signal

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
DBusStrings = Annotated[list[str], DBusSignature("as")]
Nothing = Annotated[None, DBusSignature("")]
CLOSED_BY_CALL = 3


class Notifications(ServiceInterface):
    def __init__(self, log: Path) -> None:
        super().__init__(NAME)
        self.log = log
        self.next_id = 1

    def record(self, call: str, **fields: Any) -> None:
        with self.log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"call": call, **fields}) + "\n")

    @dbus_method()
    def Notify(  # noqa: PLR0917 - the D-Bus method's eight arguments
        self,
        app_name: DBusStr,
        replaces_id: DBusUInt32,
        app_icon: DBusStr,
        summary: DBusStr,
        body: DBusStr,
        actions: DBusStrings,
        hints: DBusDict,
        expire_timeout: DBusInt32,
    ) -> DBusUInt32:
        nid = self.next_id
        self.next_id += 1
        urgency = hints.get("urgency")
        self.record(
            "Notify",
            id=nid,
            app=app_name,
            summary=summary,
            body=body,
            actions=actions,
            urgency=urgency.value if urgency is not None else None,
        )
        return nid

    @dbus_method()
    def GetCapabilities(self) -> DBusStrings:
        return ["actions", "body"]

    @dbus_method()
    def GetServerInformation(
        self,
    ) -> Annotated[list[str], DBusSignature("ssss")]:
        return ["keepd-test", "keepd", "1", "1.2"]

    @dbus_method()
    def CloseNotification(self, nid: DBusUInt32) -> Nothing:
        self.record("CloseNotification", id=nid)
        self.NotificationClosed(nid, CLOSED_BY_CALL)

    @dbus_signal()
    def NotificationClosed(
        self, nid: DBusUInt32, reason: DBusUInt32
    ) -> Annotated[list[int], DBusSignature("uu")]:
        return [nid, reason]

    @dbus_signal()
    def ActionInvoked(
        self, nid: DBusUInt32, action: DBusStr
    ) -> Annotated[list[Any], DBusSignature("us")]:
        return [nid, action]


class Control(ServiceInterface):
    """What a test uses to press a notification's button."""

    def __init__(self, server: Notifications) -> None:
        super().__init__("org.keepd.Test")
        self.server = server

    @dbus_method()
    def Invoke(self, nid: DBusUInt32, action: DBusStr) -> Nothing:
        self.server.record("Invoke", id=nid, action=action)
        self.server.ActionInvoked(nid, action)


async def serve(log: Path) -> None:
    bus = await MessageBus(bus_type=BusType.SESSION).connect()
    server = Notifications(log)
    bus.export(PATH, server)
    bus.export(PATH, Control(server))
    await bus.request_name(NAME)
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(Path(sys.argv[1])))
