"""The real Claude Code for tests: a pinned npm install in a cache, and a scratch world for it.

`KEEPD_CLAUDE_VERSION` picks the version (default below); `KEEPD_CLAUDE_CACHE` the cache folder
(default `~/.cache/keepd-tests` of the real user, found from the password database because the
tests point HOME at tmp). `KEEPD_CLAUDE_REQUIRED=1` (CI) turns "cannot install" into a failure.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pwd
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from keepd.login.checks import TESTED_VERSIONS

DEFAULT_VERSION = TESTED_VERSIONS[-1]  # what `keepd doctor` calls tested is what CI runs
PACKAGE = "@anthropic-ai/claude-code"
INSTALL_TIMEOUT = 900.0
TURN_TIMEOUT = 90.0


class Unavailable(Exception):
    """Claude Code cannot be installed here (no npm, no registry)."""


def wanted_version() -> str:
    return os.environ.get("KEEPD_CLAUDE_VERSION", DEFAULT_VERSION).strip() or DEFAULT_VERSION


def cache_root() -> Path:
    configured = os.environ.get("KEEPD_CLAUDE_CACHE")
    if configured:
        return Path(configured)
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "keepd-tests"


@dataclass(frozen=True)
class Installed:
    """One installed Claude Code: its binary and the version npm installed."""

    binary: Path
    version: str


def install(version: str | None = None) -> Installed:
    """The binary of `version`, installed with npm into the cache first when it is not there."""
    version = version or wanted_version()
    prefix = cache_root() / f"claude-code-{version}"
    installed = _find(prefix)
    if installed is not None:
        return installed
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed")
    prefix.mkdir(parents=True, exist_ok=True)
    with (prefix.parent / f".{prefix.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        installed = _find(prefix)
        if installed is not None:
            return installed
        done = subprocess.run(
            [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
             f"{PACKAGE}@{version}"],
            capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False,
        )
        installed = _find(prefix)
        if done.returncode != 0 or installed is None:
            raise Unavailable(f"npm install {PACKAGE}@{version} failed: {done.stderr[-600:]}")
        return installed


def _find(prefix: Path) -> Installed | None:
    binary = prefix / "node_modules" / ".bin" / "claude"
    manifest = prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    if not (binary.exists() and manifest.is_file()):
        return None
    probe = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                           timeout=60, check=False)
    if probe.returncode != 0:
        return None
    return Installed(binary, str(json.loads(manifest.read_text())["version"]))


def mangled(cwd: Path) -> str:
    """The project folder name Claude Code uses for `cwd` (every non-alphanumeric becomes -)."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


@dataclass
class World:
    """A scratch HOME, config folder and project folder, and the environment that uses them
    with the fake API at `api_url`. Only loopback traffic: every other service is switched off."""

    root: Path
    api_url: str
    claude: Installed
    settings: dict[str, Any] = field(default_factory=dict)
    extra_env: dict[str, str] = field(default_factory=dict)  # e.g. a short XDG_RUNTIME_DIR

    def __post_init__(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        self.config.mkdir(parents=True, exist_ok=True)
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)
        self._write_state()
        self.write_settings()

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def config(self) -> Path:
        return self.home / ".claude"

    @property
    def cwd(self) -> Path:
        return self.root / "work"

    @property
    def project(self) -> Path:
        """Where Claude Code keeps this folder's transcripts."""
        return self.config / "projects" / mangled(self.cwd)

    def transcript(self, session_id: str) -> Path:
        return self.project / f"{session_id}.jsonl"

    def _write_state(self) -> None:
        state = {
            "hasCompletedOnboarding": True,
            "lastOnboardingVersion": self.claude.version,
            "numStartups": 5,
            "theme": "dark",
            "bypassPermissionsModeAccepted": True,
            "customApiKeyResponses": {"approved": ["dummy"], "rejected": []},
            "projects": {
                str(self.cwd): {
                    "hasTrustDialogAccepted": True,
                    "hasCompletedProjectOnboarding": True,
                    "allowedTools": [],
                },
            },
        }
        (self.config / ".claude.json").write_text(json.dumps(state, indent=2))

    def write_settings(self, **extra: Any) -> None:
        """The user settings file; `extra` merges keys (statusLine, hooks, ...) into it."""
        self.settings.update(extra)
        (self.config / "settings.json").write_text(json.dumps(self.settings, indent=2))

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TZ", "PYTHONPATH")}
        path = f"{self.claude.binary.parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        return keep | {
            "PATH": path,  # `claude` as keepd's --summarize finds it
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.config),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_RUNTIME_DIR": str(self.home / "run"),
            "ANTHROPIC_BASE_URL": self.api_url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_BUG_COMMAND": "1",
            "IS_SANDBOX": "1",
            "TERM": "xterm-256color",
            "LANG": os.environ.get("LANG", "C.UTF-8"),
        } | self.extra_env

    def run(self, *args: str, timeout: float = TURN_TIMEOUT) -> subprocess.CompletedProcess[str]:
        """Runs `claude ARGS` in the project folder and waits for it."""
        return subprocess.run(
            [str(self.claude.binary), *args], cwd=self.cwd, env=self.env(),
            capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL,
        )

    def print_turn(
        self, prompt: str, *, resume: str | None = None, extra: tuple[str, ...] = (),
        timeout: float = TURN_TIMEOUT,
    ) -> dict[str, Any]:
        """One headless turn (`claude -p`, resuming `resume` if given); the JSON result."""
        args = ["-p", prompt, "--output-format", "json", *extra]
        if resume:
            args += ["--resume", resume]
        done = self.run(*args, timeout=timeout)
        if done.returncode != 0:
            raise AssertionError(
                f"claude {args!r} exited {done.returncode}: "
                f"{done.stdout[-800:]} {done.stderr[-800:]}"
            )
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    def keepd(self, *args: str, check: bool = True,
              timeout: float = TURN_TIMEOUT) -> subprocess.CompletedProcess[str]:
        """Runs `keepd ARGS` (this checkout's) in the world, as a person would."""
        done = subprocess.run(
            [sys.executable, "-m", "keepd", *args], cwd=self.cwd, env=self.env(),
            capture_output=True, text=True, timeout=timeout, check=False,
            stdin=subprocess.DEVNULL,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"keepd {args!r} exited {done.returncode}: {done.stderr[-800:]}")
        return done

    def report(self, session: str) -> dict[str, Any]:
        """`keepd report SESSION --json`."""
        data: dict[str, Any] = json.loads(self.keepd("report", session, "--json").stdout)
        return data

    def sessions(self) -> list[Path]:
        return sorted(self.project.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)


@contextlib.contextmanager
def preserved_env(**values: str) -> Iterator[None]:
    """Sets environment variables for the block (for tools run in-process)."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
