"""Benchmarks the daemon: memory and CPU following many sessions, the delay from an appended line
to the socket's answer, and the cost per appended message as a session grows.

Run: `python scripts/bench_daemon.py [--sessions 200] [--messages 2000] [--samples 200]
[--rate 0.1 | --timing SESSION] [--seconds 10]`. Sessions are the bundled example transcript
repeated and re-chained (new uuids, one session id each). While the daemon's CPU is measured the
example's lines are appended in order, `--rate` lines a second to each session, or to each with
the gaps between the lines of a real session (`--timing`; `scripts/line_rate.py` measures real
sessions' rates). With
`--sessions 0` the daemon follows nothing: its memory and idle CPU alone. Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import orjson

from keepd.core.session import read_current
from keepd.daemon.registry import Registry
from keepd.ops.client import Client
from keepd.paths import example_session

TICK = os.sysconf("SC_CLK_TCK")
CONVERSATION = ("user", "assistant")


def entries() -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in example_session().read_bytes().splitlines()]


def session_lines(number: int, messages: int, source: list[dict[str, Any]]) -> Iterator[bytes]:
    """`messages` user/assistant entries (and the entries between them) in one parent chain."""
    session_id = f"{number:08x}-0000-4000-8000-000000000000"
    parent: str | None = None
    count = 0
    for lap in range(messages // 100 + 2):
        for k, entry in enumerate(source):
            if count >= messages:
                return
            line = dict(entry, sessionId=session_id, parentUuid=parent)
            line["uuid"] = parent = f"{number:08x}-{lap:04x}-4000-8000-{k:012x}"
            message = line.get("message")
            if isinstance(message, dict) and "id" in message:
                line["message"] = dict(message, id=f"{message['id']}-{lap}")
            count += line.get("type") in CONVERSATION
            yield orjson.dumps(line) + b"\n"


class Chains:
    """The newest uuid of each session, so that appended lines continue its branch."""

    def __init__(self, source: list[dict[str, Any]] | None = None) -> None:
        self.last: dict[Path, str] = {}
        self.lock = threading.Lock()
        self.source = source or []
        self.played: dict[Path, int] = {}

    def replay(self, path: Path, number: int) -> None:
        """Appends the example transcript's next line to `path` (prompts, replies, tool calls
        and bookkeeping as a session writes them), re-chained onto the session's branch."""
        with self.lock:
            if path not in self.last:
                self.last[path] = orjson.loads(path.read_bytes().splitlines()[-1])["uuid"]
            at = self.played.get(path, 0)
            self.played[path] = at + 1
            entry = self.source[at % len(self.source)]
            line = dict(entry)
            if "uuid" in entry:  # bookkeeping (a file-history snapshot) joins no chain
                line["sessionId"] = f"{number:08x}-0000-4000-8000-000000000000"
                line["parentUuid"] = self.last[path]
                line["uuid"] = self.last[path] = f"{number:08x}-eeee-4000-8000-{at:012x}"
            message = line.get("message")
            if isinstance(message, dict) and "id" in message:
                line["message"] = dict(message, id=f"{message['id']}-replay-{at}")
            with path.open("ab") as handle:
                handle.write(orjson.dumps(line) + b"\n")

    def append(self, path: Path, number: int, serial: int) -> int:
        """Appends a prompt to `path`; returns the file's new size."""
        with self.lock:
            if path not in self.last:
                self.last[path] = orjson.loads(path.read_bytes().splitlines()[-1])["uuid"]
            line = prompt(number, serial, self.last[path])
            with path.open("ab") as handle:
                handle.write(line)
            self.last[path] = orjson.loads(line)["uuid"]
            return path.stat().st_size


def prompt(number: int, serial: int, parent: str) -> bytes:
    """A new prompt for session `number`, unique words included."""
    entry = {
        "type": "user",
        "uuid": f"{number:08x}-ffff-4000-8000-{serial:012x}",
        "parentUuid": parent,
        "sessionId": f"{number:08x}-0000-4000-8000-000000000000",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": f"next step {serial} check word{serial} again"},
    }
    return orjson.dumps(entry) + b"\n"


class Process:
    """CPU seconds and memory of a process, from /proc (Linux)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def memory(self) -> tuple[float, float]:
        """(RSS, peak RSS) in MB."""
        status = dict(
            line.split(":", 1) for line in Path(f"/proc/{self.pid}/status").read_text().splitlines()
        )
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


def start_daemon(base: Path, root: Path) -> tuple[subprocess.Popen[bytes], Client]:
    runtime = Path(tempfile.mkdtemp(prefix="kb", dir="/tmp"))
    config = base / "keepd.toml"
    config.write_text(
        "[notify]\nenabled = false\n[watch]\nrescan_seconds = 3600\nactive_minutes = 0.1\n"
    )
    ready = runtime / "ready.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(ready))
    env = {
        **os.environ,
        "HOME": str(base),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_STATE_HOME": str(base / "state"),
        "CLAUDE_CONFIG_DIR": str(root),
        "NOTIFY_SOCKET": str(ready),
    }
    command = [sys.executable, "-m", "keepd", "run", "--config", str(config)]
    daemon = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    listener.settimeout(600)
    listener.recv(100)
    listener.close()
    return daemon, Client(runtime / "keepd" / "keepd.sock", timeout=120)


def settled(client: Client, paths: list[Path]) -> bool:
    sizes = {str(path): path.stat().st_size for path in paths}
    items = client.call("sessions")
    done = [item for item in items if item["analysed_offset"] == sizes.get(item["path"])]
    return len(done) == len(paths)


def follow_many(
    sessions: int,
    messages: int,
    samples: int,
    *,
    rate: float,
    seconds: float,
    timing: Path | None = None,
) -> None:
    base = Path(tempfile.mkdtemp(prefix="keepd-bench-"))
    root = base / "claude"
    source = entries()
    paths = []
    for number in range(sessions):
        folder = root / "projects" / f"-w-project{number % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{number:08x}-0000-4000-8000-000000000000.jsonl"
        path.write_bytes(b"".join(session_lines(number, messages, source)))
        paths.append(path)
    size = sum(path.stat().st_size for path in paths) / 1e6
    print(f"{sessions} sessions x {messages:,} messages ({size:,.0f} MB of transcripts)")
    for path in paths:
        os.utime(path)
    started = time.monotonic()
    daemon, client = start_daemon(base, root)
    process = Process(daemon.pid)
    try:
        while not settled(client, paths):
            time.sleep(0.2)
        loaded = time.monotonic() - started
        rss, peak = process.memory()
        print(f"  loaded and analysed all in {loaded:.1f} s, {process.cpu():.1f} s of CPU")
        print(f"  memory: {rss:,.0f} MB resident ({peak:,.0f} MB peak)")
        print(f"  idle CPU: {cpu_share(process, seconds):.2%} over {seconds:.0f} s")
        if not paths:
            return
        chains = Chains(source)
        gaps = real_gaps(timing) if timing is not None else None
        streaming(process, chains, paths, rate * len(paths), seconds=seconds, gaps=gaps)
        timed(client, chains, paths, samples)
        time.sleep(7.0)
        client.call("rescan")
        status = client.call("status")
        print(
            f"  idle for the active window (watch.active_minutes = 0.1 here), all evicted: "
            f"{process.memory()[0]:,.0f} MB resident, {status['in_memory']} in memory"
        )
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(60)
        shutil.rmtree(base, ignore_errors=True)


def cpu_share(process: Process, seconds: float) -> float:
    before = process.cpu()
    time.sleep(seconds)
    return (process.cpu() - before) / seconds


def streaming(
    process: Process,
    chains: Chains,
    paths: list[Path],
    rate: float,
    *,
    seconds: float,
    gaps: list[float] | None = None,
) -> None:
    """The daemon's CPU while lines are appended: to random sessions at `rate`, or to each
    session with the gaps between a real session's lines (`gaps`, from a random place on)."""
    stop = threading.Event()
    if gaps:
        writers = [
            threading.Thread(target=paced, args=(chains, path, number, gaps, stop))
            for number, path in enumerate(paths)
        ]
    else:
        writers = [threading.Thread(target=background, args=(chains, paths, rate, stop))]
    for writer in writers:
        writer.start()
    share = cpu_share(process, seconds)
    stop.set()
    for writer in writers:
        writer.join()
    written = sum(chains.played.values())
    print(
        f"  {written / seconds:.2f} lines/s appended ({written / seconds / len(paths):.3f} a "
        f"session{', with a real session' + chr(39) + 's gaps' if gaps else ''}): "
        f"daemon CPU {share:.2%} over {seconds:.0f} s"
    )


def paced(
    chains: Chains, path: Path, number: int, gaps: list[float], stop: threading.Event
) -> None:
    """The example's lines to one session, each after the next of `gaps` (seconds)."""
    at = random.randrange(len(gaps))
    while not stop.wait(gaps[at % len(gaps)]):
        chains.replay(path, number)
        at += 1


def real_gaps(path: Path, idle: float = 300.0) -> list[float]:
    """The seconds between a session's consecutive timestamped lines, each at most `idle`."""
    times = []
    for raw in path.read_bytes().splitlines():
        with contextlib.suppress(orjson.JSONDecodeError, ValueError, AttributeError):
            stamp = orjson.loads(raw).get("timestamp")
            if isinstance(stamp, str):
                times.append(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp())
    return [min(max(b - a, 0.0), idle) for a, b in pairwise(times)]


def timed(client: Client, chains: Chains, paths: list[Path], samples: int) -> None:
    """One prompt at a time, appended and polled for on the socket, with 5 lines/s besides."""
    stop = threading.Event()
    writer = threading.Thread(target=background, args=(chains, paths, 5.0, stop))
    writer.start()
    delays = [delay(client, chains, paths, serial) for serial in range(samples)]
    stop.set()
    writer.join()
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
    print(
        f"  appended line -> socket state: median {statistics.median(delays) * 1000:.0f} ms, "
        f"p99 {p99 * 1000:.0f} ms ({len(delays)} samples; the daemon gathers writes for "
        f"watch.analyse_seconds = 0.1 s first)"
    )


def background(chains: Chains, paths: list[Path], rate: float, stop: threading.Event) -> None:
    """The example transcript's lines, in its order, each to a random session, at `rate`."""
    while not stop.is_set():
        number = random.randrange(len(paths))
        chains.replay(paths[number], number)
        stop.wait(1.0 / rate)


def delay(client: Client, chains: Chains, paths: list[Path], serial: int) -> float:
    number = random.randrange(len(paths))
    path = paths[number]
    size = chains.append(path, number, serial)
    written = time.monotonic()
    while True:
        [item] = client.call("sessions", {"name": str(path)})
        if item["analysed_offset"] >= size:
            return time.monotonic() - written
        time.sleep(0.005)


def per_message(sizes: tuple[int, ...] = (1_000, 10_000, 100_000), burst: int = 10) -> None:
    """The daemon's own path in this process: `Registry.read`, which feeds and indexes (on
    each event), and `Registry.analyse` (once per burst of writes). Times are this process's
    CPU time (`time.process_time`), so that others' work on a shared machine counts less than
    in wall time; each is the median of 100 appends (10 analyses)."""
    print("per appended message (the daemon's read + analysis, in-process, CPU time):")
    source = entries()
    rows = [(messages, "") for messages in sizes]
    rows.insert(1, (million_tokens(source), " (1,000,000 tokens)"))
    for messages, label in rows:
        read, analyse = appended(source, messages, burst)
        print(
            f"  at {messages:>7,} messages{label}: read+index {read * 1e3:5.2f} ms, analysis "
            f"{analyse * 1e3:6.2f} ms, per message in bursts of {burst}: "
            f"{(read + analyse / burst) * 1e3:5.2f} ms"
        )


def million_tokens(source: list[dict[str, Any]], sample: int = 1_000) -> int:
    """How many messages of these sessions hold 1,000,000 tokens (keepd's own count)."""
    state = read_current(b"".join(session_lines(1, sample, source)), detail=False, compact=True)
    state.branch()
    return round(1_000_000 * sample / float(state.ledger.tokens.sum()))


def appended(source: list[dict[str, Any]], messages: int, burst: int) -> tuple[float, float]:
    """Median CPU seconds of one read after an appended prompt, and of one analysis."""
    base = Path(tempfile.mkdtemp(prefix="keepd-bench-"))
    path = base / "projects" / "-w" / "00000001-0000-4000-8000-000000000000.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(session_lines(1, messages, source)))
    registry = Registry(lambda base=base: [base], active_seconds=1e9)  # type: ignore[misc]
    registry.read(path, 1 << 40)
    registry.analyse(path)
    reads, analyses = [], []
    chains = Chains()
    for serial in range(100):
        chains.append(path, 1, serial)
        started = time.process_time()
        registry.read(path, 1 << 30)
        reads.append(time.process_time() - started)
        if serial % burst == burst - 1:
            started = time.process_time()
            registry.analyse(path)
            analyses.append(time.process_time() - started)
    shutil.rmtree(base, ignore_errors=True)
    return statistics.median(reads), statistics.median(analyses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--rate", type=float, default=0.1, help="lines/s appended per session")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long CPU is measured")
    parser.add_argument("--timing", type=Path, help="a session whose lines' gaps pace each one")
    parser.add_argument("--skip-daemon", action="store_true", help="only the per-message part")
    parser.add_argument("--skip-per-message", action="store_true", help="only the daemon part")
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    if not args.skip_daemon:
        follow_many(
            args.sessions,
            args.messages,
            args.samples,
            rate=args.rate,
            seconds=args.seconds,
            timing=args.timing,
        )
    if not args.skip_per_message:
        per_message()


if __name__ == "__main__":
    main()
