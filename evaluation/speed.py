"""Speed: cold analysis against orjson parsing alone, the cost of an append, and the machine.

`scripts/bench_core.py` prints these figures; `python -m evaluation.full` publishes them.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from itertools import pairwise
from pathlib import Path

import numpy as np
import orjson

from keepd.api import analyse_file
from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState
from keepd.core.skim import context_start

APPEND_SIZES = (1_000, 10_000, 100_000)


def parse_only(blobs: list[bytes]) -> int:
    count = 0
    for blob in blobs:
        for line in blob.split(b"\n"):
            if line:
                try:
                    orjson.loads(line)
                    count += 1
                except orjson.JSONDecodeError:
                    pass
    return count


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


@dataclass(frozen=True, slots=True)
class Cold:
    """The corpus read cold (files in the page cache): keepd's analysis against parsing alone."""

    files: int
    megabytes: float
    parse: float
    analyse: float  # the current context, as `keepd report` reads it
    whole: float  # the whole history (`--whole`): every line read

    @property
    def ratio(self) -> float:
        return self.analyse / self.parse

    @property
    def whole_ratio(self) -> float:
        return self.whole / self.parse


def cold_corpus(shared: Path, runs: int = 7) -> Cold:
    """The corpus's sessions, timed as `cold_files` times them."""
    return cold_files(sorted((shared / "corpus" / "sessions").glob("*.jsonl")), runs)


_LISTED = re.compile(r"`([^`]+\.jsonl)`")


def corpus_batches(shared: Path) -> dict[str, list[Path]]:
    """The corpus's sessions by batch: the first (`SOURCES.md`), the second and the third
    (the files `SOURCES-2.md` and `SOURCES-3.md` list), and all of them."""
    every = sorted((shared / "corpus" / "sessions").glob("*.jsonl"))
    corpus = shared / "corpus"
    second, third = (
        set(_LISTED.findall(source.read_text())) if source.is_file() else set()
        for source in (corpus / "SOURCES-2.md", corpus / "SOURCES-3.md")
    )
    return {
        "first": [path for path in every if path.name not in second | third],
        "second": [path for path in every if path.name in second],
        "third": [path for path in every if path.name in third],
        "all": every,
    }


def cold_files(
    paths: Sequence[Path], runs: int = 7, summary: Callable[[list[float]], float] = min
) -> Cold:
    """Parsing and analysis timed in turns, `runs` times in this process's CPU time, each
    side's times summed up by `summary` (the best of them, or their median).

    Taking turns and counting only this process's time keep another program's load on a shared
    machine from landing on one side of the ratio.
    """
    blobs = [path.read_bytes() for path in paths]
    parse, analyse, whole = [], [], []
    for _ in range(runs):
        parse.append(_cpu_seconds(lambda: parse_only(blobs)))
        analyse.append(_cpu_seconds(lambda: [analyse_file(path) for path in paths]))
        whole.append(_cpu_seconds(lambda: [analyse_file(path, whole=True) for path in paths]))
    megabytes = sum(map(len, blobs)) / 1e6
    return Cold(len(paths), megabytes, summary(parse), summary(analyse), summary(whole))


STAGES = (
    "reading",
    "finding the compaction",
    "skimming",
    "parsing and building",
    "branch and index",
    "analysis",
)


def cold_stages(
    paths: Sequence[Path], runs: int = 7, summary: Callable[[list[float]], float] = min
) -> dict[str, float]:
    """Where cold analysis of `paths` spends its CPU time, stage by stage, `runs` times
    summed up by `summary` for each: the steps `keepd.api.analyse_file` takes, timed one
    after another (no corpus file needs the whole-file fallback, so it is not timed)."""
    spent: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for _ in range(runs):
        run = dict.fromkeys(STAGES, 0.0)
        for path in paths:
            for stage, seconds in zip(STAGES, _staged(path), strict=True):
                run[stage] += seconds
        for stage in STAGES:
            spent[stage].append(run[stage])
    return {stage: summary(times) for stage, times in spent.items()}


def _staged(path: Path) -> list[float]:
    clock = time.process_time
    marks = [clock()]
    data = path.read_bytes()
    marks.append(clock())
    start = context_start(data)
    marks.append(clock())
    state = SessionState()
    if start.offset:
        state.skim(data, start)
    marks.append(clock())
    state.feed(data, start.offset)
    state.finish()
    marks.append(clock())
    state.branch()
    marks.append(clock())
    analyse_state(state, path=str(path))
    marks.append(clock())
    return [later - earlier for earlier, later in pairwise(marks)]


def _cpu_seconds(work: Callable[[], object]) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def _line(i: int, rng: np.random.Generator, vocabulary: list[str]) -> bytes:
    """One conversation line of a synthetic session: prompts and replies of 40 words."""
    words = " ".join(vocabulary[j] for j in rng.integers(0, len(vocabulary), 40))
    entry = {
        "type": "user" if i % 2 == 0 else "assistant",
        "uuid": f"u{i}",
        "parentUuid": f"u{i - 1}" if i else None,
        "sessionId": "bench",
        "message": {"role": "user" if i % 2 == 0 else "assistant", "content": words},
    }
    return orjson.dumps(entry) + b"\n"


@dataclass(frozen=True, slots=True)
class Append:
    """One 40-word line fed to a session of `size` messages: branch and index refreshed."""

    size: int
    median: float
    p99: float
    refresh: float  # a full analysis of the session at that size


def per_append(sizes: Sequence[int] = APPEND_SIZES, probes: int = 300) -> list[Append]:
    """Feeds one line at a time to a session already holding `size` messages."""
    rng = np.random.default_rng(3)
    vocabulary = [f"word{i}" for i in range(60_000)]
    out = []
    for size in sizes:
        state = SessionState(detail=False)
        state.feed(b"".join(_line(i, rng, vocabulary) for i in range(size)))
        state.branch()
        timings = []
        for line in [_line(size + i, rng, vocabulary) for i in range(probes)]:
            started = time.perf_counter()
            state.feed(line)
            state.branch()
            timings.append(time.perf_counter() - started)
        refresh = best_of(5, partial(analyse_state, state))
        p99 = sorted(timings)[int(probes * 0.99)]
        out.append(Append(size, statistics.median(timings), p99, refresh))
    return out


def machine() -> str:
    """CPU model, cores, Python, numpy and orjson versions."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}; "
        f"Python {platform.python_version()}, numpy {version('numpy')}, "
        f"orjson {version('orjson')}"
    )


def daemon_bench(root: Path, timeout: float = 420.0) -> str:
    """The output of `scripts/bench_daemon.py` when the checkout has it, else why not."""
    script = root / "scripts" / "bench_daemon.py"
    if not script.is_file():
        return "scripts/bench_daemon.py does not exist in this checkout yet: no daemon figures."
    try:
        done = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=root,
        )
    except subprocess.TimeoutExpired:
        return f"scripts/bench_daemon.py did not finish within {timeout:.0f} s."
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return f"scripts/bench_daemon.py failed (exit {done.returncode}): " + " / ".join(tail)
    return done.stdout.rstrip()
