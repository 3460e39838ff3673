"""`keepd run`: the foreground daemon. One asyncio loop owns the watcher bridge, the scheduler,
the notifier and the socket server; SIGTERM/SIGINT stop it and SIGHUP reloads the configuration.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import socket
import sys
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from keepd.config import Config, load_config
from keepd.daemon import systemd
from keepd.daemon.alerts import Alerts
from keepd.daemon.descriptors import raise_limit
from keepd.daemon.follow import Follower
from keepd.daemon.glance import GlanceCache
from keepd.daemon.live import Live, Where
from keepd.daemon.methods import Methods
from keepd.daemon.notify import ensure_bus_address, make_sender, open_path
from keepd.daemon.policy import Notice
from keepd.daemon.reading import Reading
from keepd.daemon.registry import Registry
from keepd.daemon.server import Server, bind_socket
from keepd.daemon.watch import Want, Watcher
from keepd.errors import AlreadyRunningError, ConfigError, DaemonError, KeepdError
from keepd.ops.memory import StateFile, load_memory, until
from keepd.ops.operations import Operations
from keepd.paths import claude_roots, config_file, daemon_state_file, lock_path, socket_path
from keepd.system.atomic import make_folder

log = logging.getLogger(__name__)
HEAP_SECONDS = 10.0
APSCHEDULER_RUNS = "apscheduler.executors.default"
SOCKET_PATH_LIMIT = 104  # sun_path: 108 bytes on Linux, 104 on macOS


def run_daemon(
    config_path: Path | None = None, *, verbose: bool = False, log_file: Path | None = None
) -> int:
    """Runs the daemon in the foreground until a signal stops it; returns the exit code.
    `log_file` (`keepd run --log-file`) is written beside stderr, over `log.file`."""
    if sys.platform == "win32" or not hasattr(socket, "AF_UNIX"):
        raise DaemonError("keepd run needs Linux or macOS (a Unix socket)")
    config = load_config(config_path)
    from keepd.daemon.logs import setup_logging

    if log_file is not None:
        config = replace(config, log=replace(config.log, file=str(log_file)))
    setup_logging(config.log, verbose=verbose)
    raise_limit()
    return asyncio.run(Daemon(config, config_path).main())


def acquire_lock(path: Path) -> IO[bytes]:
    """One daemon per user: an exclusive lock held for the daemon's life."""
    import fcntl

    make_folder(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
    handle = os.fdopen(os.open(path, flags, 0o600), "ab")
    os.fchmod(handle.fileno(), 0o600)  # one left by an older keepd was 0644
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        handle.close()
        raise AlreadyRunningError(f"another keepd daemon holds {path}") from error
    return handle


def watch_list(roots: list[Path]) -> list[Want]:
    """Each root (for folders that appear), its `projects` tree and its `sessions` folder."""
    wanted = []
    for root in roots:
        wanted += [Want(root, False), Want(root / "projects", True), Want(root / "sessions", False)]
    return wanted


class Daemon:
    """The parts and their lifetime; nothing happens before `main` runs."""

    def __init__(self, config: Config, config_path: Path | None) -> None:
        self.config = config
        self.config_path = config_path
        self._stop = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = contextlib.AsyncExitStack()

    async def main(self) -> int:
        lock = acquire_lock(lock_path())
        self._closing.callback(lock.close)
        try:
            await self._start()
            systemd.notify("READY=1\nSTATUS=" + self._status_line())
            log.info("keepd daemon ready (pid %d) on %s", os.getpid(), socket_path())
            await self._stop.wait()
            systemd.notify("STOPPING=1")
        finally:
            for task in list(self._tasks):
                task.cancel()
            await self._closing.aclose()
            log.info("keepd daemon stopped")
        return 0

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        config = self.config
        ensure_bus_address(os.environ)
        self.state_file = daemon_state_file()
        self.state = StateFile(self.state_file, load_memory(self.state_file))
        memory = self.state.memory
        window = config.watch.window or None
        self.registry = Registry(
            claude_roots, active_seconds=60.0 * config.watch.active_minutes, window=window
        )
        self.registry.told = memory.told
        self.alerts = Alerts(config.notify, memory, self.state.save)
        self.glances = GlanceCache(lambda: self.alerts.config)
        self.registry.on_analysed = self.glances.write
        self._closing.callback(self.state.save)
        if config.notify.enabled:
            self.alerts.sender = make_sender(self._on_open, self._on_not_now)
        self.follower = Follower(self.registry, self.alerts, config.watch, config.notify, loop)
        self._closing.callback(self.follower.close)
        self.follower.reading = Reading(config.reader, loop)
        self._closing.callback(self.follower.reading.close)
        self.watcher = Watcher(
            loop, self.follower.on_path, self.follower.rescan_soon, polling=config.watch.polling
        )
        self.watcher.start()
        self._closing.callback(self.watcher.stop)
        self.follower.before_rescan = lambda: self.watcher.ensure(watch_list(claude_roots()))
        self.follower.on_boundary = self._on_compaction
        config_path = self.config_path or config_file()
        where = Where(str(socket_path()), str(config_path), str(self.state_file))
        self.live = Live(
            self.registry, self.follower, self.alerts, where, watcher=lambda: self.watcher.mode
        )
        self.operations = Operations(live=self.live)
        await self._serve()
        self.follower.rescan()
        self._signals(loop)
        self._schedule(loop)

    async def _serve(self) -> None:
        limits = self.config.socket
        self.server = Server(
            Methods(self.operations),
            request_bytes=limits.request_bytes,
            request_seconds=limits.request_seconds,
            max_clients=limits.max_clients,
            quick=Methods.QUICK,
        )
        sock = systemd.listening_socket()
        if sock is None:
            path = socket_path()
            if len(os.fsencode(path)) >= SOCKET_PATH_LIMIT:
                raise DaemonError(f"{path}: too long for a socket; set a shorter XDG_RUNTIME_DIR")
            sock = bind_socket(path)
            self._closing.callback(_unlink, path)
        await self.server.start(sock)
        self._closing.push_async_callback(self.server.close)

    def _signals(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.set_exception_handler(_loop_error)
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, self._stop.set)
        loop.add_signal_handler(signal.SIGHUP, self.reload)

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        from apscheduler.schedulers.asyncio import (  # type: ignore[import-untyped]
            AsyncIOScheduler,
        )

        self.scheduler = AsyncIOScheduler(event_loop=loop)
        self._jobs()
        self.scheduler.start()
        self._closing.callback(self.scheduler.shutdown, wait=False)
        # Runs first: a job cancelled by the shutdown (a retry under way) is no error to log.
        self._closing.callback(logging.getLogger(APSCHEDULER_RUNS).setLevel, logging.CRITICAL)

    def _jobs(self) -> None:
        every = {"coalesce": True, "max_instances": 1, "replace_existing": True}
        watch, notify = self.config.watch, self.config.notify
        self.scheduler.add_job(
            self._rescan_job, "interval", seconds=watch.rescan_seconds, id="rescan", **every
        )
        self.scheduler.add_job(
            self._retry_job, "interval", seconds=notify.retry_seconds, id="retry", **every
        )
        self.scheduler.add_job(self._heap_job, "interval", seconds=HEAP_SECONDS, id="heap", **every)
        beat = systemd.watchdog_seconds()
        if beat is not None:
            self.scheduler.add_job(self._beat_job, "interval", seconds=beat, id="beat", **every)

    async def _rescan_job(self) -> None:
        self.follower.rescan()
        known = {followed.session_id for followed in self.registry.sessions.values()}
        self.glances.prune(known)
        self.alerts.prune(known)
        self.alerts.memory.expire(self.alerts.clock())
        systemd.notify("STATUS=" + self._status_line())

    async def _heap_job(self) -> None:
        """Moves what survived into the permanent generation: with hundreds of sessions in
        memory a full collection would walk every node and pause the loop for 300 ms."""
        gc.collect(1)
        gc.freeze()

    async def _retry_job(self) -> None:
        self.state.retry()
        await self.alerts.flush()

    async def _beat_job(self) -> None:
        systemd.notify("WATCHDOG=1")

    def reload(self) -> None:
        """SIGHUP: reads the configuration again; a bad file keeps the old one."""
        try:
            config = load_config(self.config_path)
        except ConfigError as error:
            log.error("configuration not reloaded: %s", error)
            return
        self.config = config
        self.alerts.config = self.follower.notify = config.notify
        if self.follower.reading is not None:
            self.follower.reading.config = config.reader
        self.follower.watch = config.watch
        self.registry.active_seconds = 60.0 * config.watch.active_minutes
        self.registry.window = config.watch.window or None
        self.server.request_bytes = config.socket.request_bytes
        self.server.request_seconds = config.socket.request_seconds
        self.server.max_clients = config.socket.max_clients
        logging.getLogger().setLevel(config.log.level.upper())
        self._jobs()
        log.info("configuration reloaded (watch.polling and log.file apply at restart)")
        self.follower.reconsider()

    def _status_line(self) -> str:
        sessions = self.registry.sessions.values()
        active = sum(1 for followed in sessions if followed.state is not None)
        return f"following {len(sessions)} sessions, {active} in memory"

    def _on_compaction(self, path: Path, boundary_uuid: str) -> None:
        """A session gained a compact boundary: its messages go to the recall store (in a
        thread; `recall.compactions`; keepd's own cuts store theirs themselves)."""
        if self.config.recall.compactions:
            self._spawn(self._remember(path, boundary_uuid))

    async def _remember(self, path: Path, boundary_uuid: str) -> None:
        from keepd.ops.remember import remember_compaction

        await asyncio.to_thread(remember_compaction, path, boundary_uuid)

    def _on_open(self, notice: Notice) -> None:
        self._spawn(self._open_note(notice))

    async def _open_note(self, notice: Notice) -> None:
        try:
            result = await asyncio.to_thread(self.operations.note, notice.path)
        except (KeepdError, OSError) as error:
            log.warning("cannot write the note of %s: %s", notice.session_id, error)
            return
        await open_path(result.path, self.config.notify.open_command)

    def _on_not_now(self, notice: Notice) -> None:
        minutes = self.config.notify.snooze_minutes
        if minutes > 0:
            self.alerts.memory.mute(notice.session_id, until(minutes, self.alerts.clock()))
            self.state.save()
        log.info("%s muted for %s minutes (Not now)", notice.session_id, minutes)

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A broken connection left in a library's future (the D-Bus socket of a bus that went
    away) is one line in the log; anything else keeps asyncio's report with its traceback."""
    error = context.get("exception")
    if isinstance(error, OSError):
        log.warning("%s: %r", context.get("message", "asyncio"), error)
        return
    loop.default_exception_handler(context)


def _unlink(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
