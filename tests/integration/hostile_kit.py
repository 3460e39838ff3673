"""Hostile clients of a real daemon, and the probe that times what a well-behaved one sees: a
`keepd.ops.client.Client` ping on a fresh connection, as `keepd status` or the status line makes."""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from keepd.errors import KeepdError
from keepd.ops.client import Client, connect


@dataclass
class Probe:
    """Pings the daemon every `interval` until stopped; each ping's wall time, or its error."""

    path: Path
    interval: float = 0.01
    times: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def run(self, stop: Callable[[], bool]) -> None:
        client = Client(self.path, timeout=10.0)
        while not stop():
            started = time.perf_counter()
            try:
                reply = client.call("ping")
                assert reply["pong"] is True
            except (KeepdError, OSError) as error:
                self.errors.append(repr(error))
            else:
                self.times.append(time.perf_counter() - started)
            time.sleep(self.interval)

    @property
    def worst(self) -> float:
        return max(self.times, default=float("inf"))

    def summary(self) -> str:
        ordered = sorted(self.times)
        if not ordered:
            return f"no ping answered; errors {self.errors[:3]}"
        median = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        return (
            f"{len(ordered)} pings: median {median:.1f} ms, p99 {p99:.1f} ms, "
            f"max {ordered[-1] * 1000:.1f} ms, {len(self.errors)} errors"
        )


ROOT = Path(__file__).resolve().parents[2]
PROBE = r"""
import json, select, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from tests.integration.hostile_kit import Probe
probe = Probe(Path(sys.argv[1]), float(sys.argv[2]))
def stopped():
    print("ready", flush=True) if len(probe.times) + len(probe.errors) == 1 else None
    return bool(select.select([sys.stdin], [], [], 0)[0])
probe.run(stopped)
print(json.dumps({"times": probe.times, "errors": probe.errors}), flush=True)
"""


@contextlib.contextmanager
def probing(path: Path, interval: float = 0.01) -> Iterator[Probe]:
    """A probe pinging from a process of its own for the duration of the block (as a real
    client: the test's own work does not hold it up), once it has taken its first ping."""
    probe = Probe(path, interval)
    process = subprocess.Popen(
        [sys.executable, "-c", PROBE, str(path), str(interval), str(ROOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        assert process.stdout.readline().strip() == "ready"
        yield probe
    finally:
        process.stdin.close()
        found = json.loads(process.stdout.readline() or "{}")
        probe.times, probe.errors = found.get("times", []), found.get("errors", ["no report"])
        process.wait(15)


def silent(path: Path, count: int, opening: bytes = b"") -> list[socket.socket]:
    """`count` connections that send `opening` (nothing, or half a request) and then wait."""
    held = []
    for _ in range(count):
        sock = connect(path, 10.0)
        if opening:
            sock.sendall(opening)
        held.append(sock)
    return held


FLOOD = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[4])
from tests.integration.hostile_kit import silent
held = silent(Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode())
print(len(held), flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def flood(path: Path, count: int, opening: bytes = b"") -> Iterator[subprocess.Popen[str]]:
    """Another process that opens `count` silent connections as fast as it can and holds
    them until the block ends (its own process: the probe's times are not its GIL's)."""
    process = subprocess.Popen(
        [sys.executable, "-c", FLOOD, str(path), str(count), opening.decode(), str(ROOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=descriptor_limit(count + 64, count + 64),  # noqa: PLW1509 - no threads
    )
    try:
        yield process
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(30)


def opened(process: subprocess.Popen[str]) -> int:
    """How many connections the flood opened (waits until it has opened them all)."""
    assert process.stdout is not None
    return int(process.stdout.readline())


def close_all(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.close()


def closed_by_peer(sock: socket.socket) -> bytes | None:
    """What the daemon sent before closing this connection, or None while it is still open."""
    sock.setblocking(False)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except BlockingIOError:
        return None
    except OSError:
        return data
    finally:
        sock.setblocking(True)
    return data


def descriptor_limit(soft: int, hard: int) -> Callable[[], None]:
    """A preexec function that starts a child with this RLIMIT_NOFILE."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return limit


def ensure_descriptors(wanted: int) -> bool:
    """Raises this process's soft limit to `wanted` if the hard limit allows it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return True
    if hard != resource.RLIM_INFINITY and hard < wanted:
        return False
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return True


def limits_of(pid: int) -> tuple[int, int]:
    """The (soft, hard) open files limit of a running process, from /proc."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError(f"no open files limit for {pid}")


def open_descriptors(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))
