"""Claude Code's interactive UI in a private tmux server: start it, wait for text, press keys, read
the screen. Every wait is bounded and a timeout shows the screen it gave up on."""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

WIDTH = 200
HEIGHT = 50
WAIT = 30.0
_names = itertools.count(1)


class Tmux:
    """One tmux server (its own socket name) running one pane."""

    def __init__(self, env: dict[str, str], cwd: Path, width: int = WIDTH,
                 height: int = HEIGHT) -> None:
        if shutil.which("tmux") is None:
            raise FileNotFoundError("tmux is not installed")
        self.socket = f"keepd-test-{os.getpid()}-{next(_names)}"
        self.env = env
        self.cwd = cwd
        self.width = width
        self.height = height
        self.started = False

    def _tmux(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True,
            timeout=15, check=False,
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {args!r}: {done.stderr.strip()}")
        return done.stdout

    def start(self, argv: list[str]) -> Tmux:
        """Runs `argv` in a fresh pane of the given size (the server gets `env` as its own)."""
        command = " ".join(shlex.quote(part) for part in argv)
        self._tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", str(self.width),
                   "-y", str(self.height), "-c", str(self.cwd), command)
        self._tmux("set-option", "-t", "main", "remain-on-exit", "on")
        self.started = True
        return self

    def close(self) -> None:
        if self.started:
            self._tmux("kill-server", check=False)
            self.started = False

    def screen(self) -> str:
        """The visible pane as text, trailing blanks dropped."""
        return self._tmux("capture-pane", "-p", "-t", "main").rstrip()

    def alive(self) -> bool:
        return self._tmux("display-message", "-p", "-t", "main", "#{pane_dead}",
                          check=False).strip() == "0"

    def wait_for(self, want: str | re.Pattern[str] | Callable[[str], bool],
                 timeout: float = WAIT) -> str:
        """The screen once it shows `want` (text, regex or predicate); fails after `timeout`."""
        check = _matcher(want)
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"after {timeout}s the screen does not show {want!r}:\n{screen}")

    def wait_stable(self, quiet: float = 0.6, timeout: float = WAIT) -> str:
        """The screen once it has not changed for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.screen()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return now
        raise AssertionError(f"the screen kept changing for {timeout}s:\n{last}")

    def keys(self, *keys: str, pause: float = 0.15) -> None:
        """Presses tmux key names (Escape, Up, Down, Enter, C-c...) one at a time."""
        for key in keys:
            self._tmux("send-keys", "-t", "main", key)
            time.sleep(pause)

    def type(self, text: str) -> None:
        """Types `text` literally (no Enter)."""
        self._tmux("send-keys", "-t", "main", "-l", text)


def _matcher(want: str | re.Pattern[str] | Callable[[str], bool]) -> Callable[[str], bool]:
    if isinstance(want, str):
        return lambda screen: want in screen
    if isinstance(want, re.Pattern):
        pattern = want
        return lambda screen: pattern.search(screen) is not None
    return want


def send_prompt(ui: Tmux, text: str, sent: Callable[[], int], replies: int = 1,
                timeout: float = 60.0) -> str:
    """Types `text`, presses Enter and waits until `sent()` (the requests the API has had) grew
    by `replies` and the screen settled; returns that screen."""
    before = sent()
    ui.type(text)
    ui.wait_for(lambda screen: text[-40:] in " ".join(screen.split()), timeout=10)
    ui.keys("Enter")
    deadline = time.monotonic() + timeout
    while sent() < before + replies:
        if time.monotonic() > deadline:
            raise AssertionError(f"no {replies} requests {timeout}s after {text!r}:\n"
                                 f"{ui.screen()}")
        time.sleep(0.1)
    return ui.wait_stable(quiet=1.0, timeout=timeout)
