"""Times `keepd statusline` as Claude Code runs it (the installed console script, a fresh process
each time, its JSON on stdin) beside a bare `python -c pass` of the same interpreter, with the
daemon up, down with its cache, and down with nothing cached.

    .venv/bin/python scripts/bench_statusline.py [--runs 50]

Each phase alternates one baseline run and one status line run, so both see the same load. It
uses a private Claude Code root (the example session), runtime folder and configuration, and
starts and stops its own daemon.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from keepd.ops.glance_io import ask_daemon
from keepd.paths import example_session, project_slug

EXAMPLE_ID = "2bcaea32-dfa9-5e36-a665-ace49ee0d851"


def installed_script() -> Path:
    script = Path(sys.executable).with_name("keepd")
    if not script.is_file():
        sys.exit(f"no installed keepd beside {sys.executable}: pip install -e . first")
    return script


def interpreter_of(script: Path) -> str:
    """The Python in the script's `#!` line: the baseline runs the same interpreter."""
    first = script.read_text().splitlines()[0]
    return first.removeprefix("#!").strip() if first.startswith("#!") else sys.executable


def make_env(base: Path) -> tuple[dict[str, str], Path, Path]:
    """A private HOME, Claude Code root with the example session, runtime folder and config."""
    root = base / "claude"
    folder = root / "projects" / project_slug("/w/invoicer")
    folder.mkdir(parents=True)
    transcript = folder / f"{EXAMPLE_ID}.jsonl"
    shutil.copyfile(example_session(), transcript)
    runtime = base / "run"
    runtime.mkdir(mode=0o700)
    config = base / "keepd.toml"
    config.write_text("[notify]\nenabled = false\n[watch]\nanalyse_seconds = 0.05\n")
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    env |= {"HOME": str(base), "CLAUDE_CONFIG_DIR": str(root), "XDG_RUNTIME_DIR": str(runtime)}
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[name] = str(base / name.lower())
    return env, transcript, config


def claude_json(transcript: Path) -> bytes:
    context = {"context_window_size": 200_000, "used_percentage": 64.2, "current_usage": None}
    return json.dumps(
        {
            "hook_event_name": "Status",
            "session_id": EXAMPLE_ID,
            "transcript_path": str(transcript),
            "cwd": "/w/invoicer",
            "model": {"id": "claude-opus-4-1", "display_name": "Opus"},
            "workspace": {"current_dir": "/w/invoicer", "project_dir": "/w/invoicer"},
            "version": "2.1.0",
            "context_window": context,
        }
    ).encode()


def once(command: list[str], data: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    started = time.perf_counter()
    result = subprocess.run(command, input=data, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{command} exited {result.returncode}: {result.stderr.decode()}")
    return elapsed, result.stdout


@dataclass(frozen=True, slots=True)
class Setup:
    """What every phase runs: the baseline, the status line command, its input and environment."""

    runs: int
    baseline: list[str]
    command: list[str]
    data: bytes
    env: dict[str, str]


def phase(name: str, setup: Setup) -> None:
    """Alternates baseline and command runs; prints both and their ratio."""
    base_times: list[float] = []
    times: list[float] = []
    output = b""
    for _ in range(setup.runs):
        base_times.append(once(setup.baseline, b"", setup.env)[0])
        elapsed, output = once(setup.command, setup.data, setup.env)
        times.append(elapsed)
    base_median, median = statistics.median(base_times), statistics.median(times)
    print(
        f"{name:<28} {1000 * median:7.1f} {1000 * p90(times):7.1f}   "
        f"{1000 * base_median:7.1f} {1000 * p90(base_times):7.1f}   {median / base_median:5.2f}x"
    )
    print(f"{'':<28} prints: {output.decode().rstrip()}")


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


@contextmanager
def daemon(script: Path, config: Path, env: dict[str, str], runtime: Path) -> Iterator[None]:
    """`keepd run` until the example session is analysed; stopped with SIGTERM afterwards."""
    process = subprocess.Popen(
        [str(script), "run", "--config", str(config)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not _analysed(runtime):
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit("the daemon did not analyse the example session in 30 s")
            time.sleep(0.05)
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(15)


def _analysed(runtime: Path) -> bool:
    try:
        glance = ask_daemon(EXAMPLE_ID, timeout=1.0, target=str(runtime / "keepd" / "keepd.sock"))
    except Exception:  # not up yet
        return False
    return glance.get("analysed") is True


def byte_compile() -> str:
    """Byte-compiles keepd as installing a wheel does (an editable install under
    PYTHONDONTWRITEBYTECODE would otherwise compile the lean modules on every run)."""
    import compileall

    package = Path(__file__).resolve().parents[1] / "keepd"
    if not package.is_dir():
        import keepd

        package = Path(keepd.__file__).parent
    compileall.compile_dir(package, quiet=2)
    return f"byte-compiled {package}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="runs per phase (default 50)")
    args = parser.parse_args()
    script = installed_script()
    python = interpreter_of(script)
    base = Path(tempfile.mkdtemp(prefix="kdb", dir="/tmp"))
    try:
        env, transcript, config = make_env(base)
        data = claude_json(transcript)
        baseline, command = [python, "-c", "pass"], [str(script), "statusline"]
        setup = Setup(args.runs, baseline, command, data, env)
        print(f"{sys.platform}, {os.cpu_count()} cpus, {args.runs} runs per phase")
        print(byte_compile())
        print(f"command:  {' '.join(command)}   baseline: {' '.join(baseline)}")
        print(f"{'ms':<28} {'median':>7} {'p90':>7}   {'pass':>7} {'p90':>7}   ratio")
        phase("daemon down, nothing cached", setup)
        with daemon(script, config, env, base / "run"):
            phase("daemon up", setup)
        phase("daemon down, cached glance", setup)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
