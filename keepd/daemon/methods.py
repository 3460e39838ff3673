"""The socket's methods, each one call on `Operations`; file-bound work runs off the loop."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from keepd._version import __version__
from keepd.errors import ProtocolError
from keepd.ops.protocol import METHODS, VERSION

if TYPE_CHECKING:
    from keepd.ops.operations import Operations

Params = dict[str, Any]


class Methods:
    """`handler(method, params)` for the server; `protocol.decode_request` checked the params.

    Every method but `session` and `note` answers on the loop from memory (`QUICK`); those two
    may read a file, in a thread.
    """

    QUICK = frozenset(METHODS) - {"session", "note"}

    def __init__(self, operations: Operations) -> None:
        self.operations = operations
        self.table: dict[str, Callable[[Params], Awaitable[Any]]] = {
            "ping": self._ping,
            "status": self._status,
            "sessions": self._sessions,
            "session": self._session,
            "note": self._note,
            "mute": self._mute,
            "unmute": self._unmute,
            "pause": self._pause,
            "resume": self._resume,
            "rescan": self._rescan,
            "glance": self._glance,
        }
        assert set(self.table) == set(METHODS)

    async def __call__(self, method: str, params: Params) -> Any:
        work = self.table.get(method)
        if work is None:
            raise ProtocolError("unknown_method", f"no such method: {method[:64]!r}")
        return await work(params)

    async def _ping(self, params: Params) -> Any:
        return {"pong": True, "version": __version__, "protocol": VERSION}

    async def _status(self, params: Params) -> Any:
        return self.operations.status().to_dict()

    async def _sessions(self, params: Params) -> Any:
        return [info.to_dict() for info in self.operations.sessions(params.get("name"))]

    async def _session(self, params: Params) -> Any:
        """The live analysis (`detail`: a fresh full one of the file, blocks included); a file
        is read in a thread, so that a big one (or a FIFO refused) holds up no other client."""
        name = params["name"]
        if params.get("detail", False):
            result = await asyncio.to_thread(self.operations.report, name)
            return result.analysis.to_dict()
        analysis = self.operations.held(name)
        if analysis is None:
            analysis = await asyncio.to_thread(self.operations.read, name)
        return analysis.to_dict()

    async def _note(self, params: Params) -> Any:
        result = await asyncio.to_thread(self.operations.note, params["name"])
        return {"path": str(result.path), "uri": result.path.resolve().as_uri()}

    async def _mute(self, params: Params) -> Any:
        return self.operations.mute(params["name"], params.get("minutes")).to_dict()

    async def _unmute(self, params: Params) -> Any:
        return self.operations.unmute(params["name"]).to_dict()

    async def _pause(self, params: Params) -> Any:
        return self.operations.pause(params.get("minutes")).to_dict()

    async def _resume(self, params: Params) -> Any:
        return self.operations.resume().to_dict()

    async def _rescan(self, params: Params) -> Any:
        return self.operations.rescan().to_dict()

    async def _glance(self, params: Params) -> Any:
        """What the status line shows: never an analysis, only what the last one found."""
        from keepd.core.limits import Told

        window, share = params.get("window"), params.get("share")
        told = None
        if isinstance(window, int) and window > 0:
            fair = isinstance(share, int | float) and 0 <= share <= 1
            told = Told(window, float(share) if fair and share is not None else None, time.time())
        return self.operations.glance(params["session_id"], params.get("path"), told).to_dict()
