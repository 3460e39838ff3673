"""What the daemon's integration tests share: a real daemon process, a private D-Bus with a
real notification server, transcripts appended to, and the check that nothing was lost."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from keepd.ops.client import Client
from keepd.ops.operations import Operations
from keepd.paths import example_session, project_slug

HERE = Path(__file__).resolve().parent
EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"
CURVE_KEYS = (
    "session_id",
    "project",
    "messages",
    "skipped_lines",
    "context",
    "tokens_estimated",
    "wiggle",
    "stops",
    "zones",
    "pick",
    "trade",
)
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""


def wait_until(check: Callable[[], Any], timeout: float = 15.0, step: float = 0.02) -> Any:
    """Polls `check` until it returns something true; fails the test after `timeout`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            last = check()
            if last:
                return last
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout}s; last value {last!r}")


SHORT_DIRS: list[Path] = []


def short_dir(prefix: str = "kd") -> Path:
    """A short private folder (Unix socket paths are limited to about 100 bytes), removed
    after the test by the `short_dirs` fixture."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    SHORT_DIRS.append(folder)
    return folder


def need(*binaries: str) -> None:
    missing = [name for name in binaries if shutil.which(name) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")


@dataclass
class Tree:
    """A temporary CLAUDE_CONFIG_DIR, HOME and runtime folder for one daemon."""

    base: Path
    home: Path
    root: Path
    runtime: Path
    config: Path
    opened: Path
    env: dict[str, str] = field(default_factory=dict)

    def session(self, session_id: str = EXAMPLE_ID, project: str = "/w/invoicer") -> Path:
        folder = self.root / "projects" / project_slug(project)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{session_id}.jsonl"

    def write_config(self, **sections: dict[str, Any]) -> None:
        lines = []
        for name, values in sections.items():
            lines.append(f"[{name}]")
            lines += [f"{key} = {json.dumps(value)}" for key, value in values.items()]
        self.config.write_text("\n".join(lines) + "\n")


def make_tree(tmp_path: Path, **overrides: dict[str, Any]) -> Tree:
    runtime = short_dir()
    runtime.chmod(0o700)
    tree = Tree(
        base=tmp_path,
        home=Path(os.environ["HOME"]),
        root=tmp_path / "claude",
        runtime=runtime,
        config=tmp_path / "keepd.toml",
        opened=tmp_path / "opened.txt",
    )
    (tree.root / "projects").mkdir(parents=True)
    opener = f'sh -c \'printf "%s\\n" "$0" >> {tree.opened}\''
    sections: dict[str, dict[str, Any]] = {
        "notify": {"debounce_seconds": 0.3, "retry_seconds": 0.5, "open_command": opener},
        "watch": {"analyse_seconds": 0.05, "rescan_seconds": 30},
    }
    for name, values in overrides.items():
        sections[name] = {**sections.get(name, {}), **values}
    tree.write_config(**sections)
    tree.env = {
        **os.environ,
        "CLAUDE_CONFIG_DIR": str(tree.root),
        "XDG_RUNTIME_DIR": str(runtime),
        "PYTHONUNBUFFERED": "1",
    }
    tree.env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    return tree


class Daemon:
    """`keepd run` as a child process; ready when it sends READY=1 to our NOTIFY_SOCKET."""

    def __init__(self, tree: Tree, preexec: Callable[[], None] | None = None) -> None:
        self.tree = tree
        self.preexec = preexec
        self.process: subprocess.Popen[bytes] | None = None
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.log = tree.base / f"daemon-{time.monotonic_ns()}.log"
        self.socket = tree.runtime / "keepd" / "keepd.sock"
        self.client = Client(self.socket, timeout=30.0)

    def start(self, timeout: float = 20.0) -> str:
        notify_path = self.tree.runtime / "notify.sock"
        with contextlib.suppress(FileNotFoundError):
            notify_path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(str(notify_path))
        listener.settimeout(timeout)
        env = {**self.tree.env, "NOTIFY_SOCKET": str(notify_path)}
        command = [sys.executable, "-m", "keepd", "-v", "run", "--config", str(self.tree.config)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                env=env,
                stdout=log,
                stderr=log,
                preexec_fn=self.preexec,  # noqa: PLW1509 - drops capabilities, no threads yet
            )
        self.listener = listener
        try:
            message = listener.recv(4096).decode()
        except TimeoutError:
            self.stop()
            raise AssertionError("no READY=1 from the daemon:\n" + self.output()) from None
        assert message.startswith("READY=1"), message
        return message

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.client.call(method, params)

    def stop(self) -> int:
        if self.process is None:
            return 0
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait(5)
        self.process = None
        self.listener.close()
        return code

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def entry(self, path: Path) -> dict[str, Any] | None:
        for item in self.call("sessions", {"name": str(path)}):
            if item["path"] == str(path):
                return dict(item)
        return None

    def settled(self, path: Path, timeout: float = 20.0) -> dict[str, Any]:
        """The session's entry once everything in the file was read and analysed."""

        def done() -> dict[str, Any] | None:
            size = path.stat().st_size
            item = self.entry(path)
            if item is None or item["state"] != "active":
                return None
            read = item["offset"] == size == item["size"]
            return item if read and item["analysed_offset"] == size else None

        return dict(wait_until(done, timeout))


def curve(analysis: dict[str, Any]) -> dict[str, Any]:
    return {key: analysis[key] for key in CURVE_KEYS}


def fresh_report(path: Path) -> dict[str, Any]:
    """What `keepd report --json PATH` prints, as data."""
    analysis = Operations().report(str(path)).analysis.to_dict()
    data: dict[str, Any] = orjson.loads(orjson.dumps(analysis, option=orjson.OPT_SERIALIZE_NUMPY))
    return data


def assert_nothing_lost(daemon: Daemon, path: Path, timeout: float = 20.0) -> dict[str, Any]:
    """The daemon read the whole file and its curve is a fresh report's."""
    entry = daemon.settled(path, timeout)
    live = daemon.call("session", {"name": str(path)})
    assert curve(live) == curve(fresh_report(path))
    return entry


def example_lines() -> list[bytes]:
    return example_session().read_bytes().splitlines(keepends=True)


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(data)


@contextlib.contextmanager
def running(tree: Tree, preexec: Callable[[], None] | None = None) -> Iterator[Daemon]:
    daemon = Daemon(tree, preexec)
    daemon.start()
    try:
        yield daemon
    finally:
        code = daemon.stop()
        assert code == 0, f"daemon exited {code}:\n{daemon.output()}"
        assert "Traceback" not in daemon.output(), daemon.output()


class PrivateBus:
    """A dbus-daemon of our own, with no service activation: nothing starts unless we start it."""

    def __init__(self) -> None:
        need("dbus-daemon")
        self.dir = short_dir("bus")
        self.config = self.dir / "bus.conf"
        self.config.write_text(BUS_CONFIG.format(path=self.dir / "bus"))
        self.process = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        process = subprocess.Popen(
            ["dbus-daemon", f"--config-file={self.config}", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE,
        )
        assert process.stdout is not None
        printed = process.stdout.readline().decode().strip()
        assert printed.startswith("unix:path="), printed
        self.address = printed.split(",")[0]  # no guid: as a login session's bus address
        return process

    def restart(self) -> None:
        """A new bus at the same address, as after a logout or a crash of the bus."""
        self.process.terminate()
        self.process.wait(5)
        with contextlib.suppress(FileNotFoundError):
            (self.dir / "bus").unlink()
        self.process = self._start()

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass(frozen=True)
class SessionBus:
    """A bus someone else runs (a user manager's), by its address."""

    address: str


class StandIn:
    """tests/integration/notify_server.py on a bus; `calls()` reads back what it was sent."""

    def __init__(self, bus: PrivateBus | SessionBus, log: Path) -> None:
        self.bus = bus
        self.log = log
        env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": bus.address}
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "notify_server.py"), str(log)],
            env=env,
            stdout=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == b"ready"

    def calls(self, name: str = "Notify") -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        rows = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [row for row in rows if row["call"] == name]

    def press(self, nid: int, action: str) -> None:
        """Presses a button (or, with "default", clicks the notification)."""
        subprocess.run(
            [
                "dbus-send",
                "--session",
                "--print-reply",
                "--dest=org.freedesktop.Notifications",
                "/org/freedesktop/Notifications",
                "org.keepd.Test.Invoke",
                f"uint32:{nid}",
                f"string:{action}",
            ],
            env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.bus.address},
            check=True,
            capture_output=True,
        )

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(5)


def run_cli(tree: Tree, *args: str) -> subprocess.CompletedProcess[bytes]:
    """The installed command run in `tree`'s environment, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "keepd", *args],
        env=tree.env,
        capture_output=True,
        timeout=60,
        check=False,
    )
