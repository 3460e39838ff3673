"""Runs the person's own `claude -p` on one request: no shell, the request on standard input,
no tools, no MCP servers, no CLAUDE.md, no session file, in an empty folder, with a timeout.

The outcome is the answer's text or why there is none, in one line; nothing here raises.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

DEFAULT_MODEL = "haiku"  # Claude Code 2.1.332's alias of its smallest model


@dataclass(frozen=True, slots=True)
class Asked:
    """What `claude -p` answered (`text`), or why it did not (`failure`)."""

    text: str = ""
    failure: str = ""
    model: str = ""  # the model Claude Code named in its result


def command(claude: str, model: str, system: str) -> list[str]:
    """The argument list: the request itself is never on it.

    >>> command("claude", "haiku", "S")[1:4]
    ['-p', '--model', 'haiku']
    """
    return [
        claude,
        "-p",
        "--model",
        model,
        "--effort",
        "low",
        "--tools",
        "",
        "--strict-mcp-config",
        "--safe-mode",
        "--no-session-persistence",
        "--output-format",
        "json",
        "--system-prompt",
        system,
    ]


def ask_claude(request: str, *, model: str, system: str, timeout: float) -> Asked:
    """`claude -p`'s answer to `request`, read from its JSON result."""
    claude = shutil.which("claude")
    if claude is None:
        return Asked(failure="claude is not installed (not on PATH)")
    with tempfile.TemporaryDirectory(prefix="keepd-reader-") as empty:
        done = run_piped(command(claude, model, system), request, cwd=empty, timeout=timeout)
    if isinstance(done, str):
        return Asked(failure=done)
    return result_of(done.returncode, done.stdout, done.stderr)


def run_piped(
    argv: list[str], text: str, *, cwd: str | None, timeout: float
) -> subprocess.CompletedProcess[str] | str:
    """`argv` run with `text` on its standard input (never through a shell), or why it could
    not run to its end in one line: what the reader and a cut's `--summarize` both ask of
    `claude -p`."""
    try:
        return subprocess.run(
            argv, input=text, capture_output=True, text=True, cwd=cwd, timeout=timeout,
            check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"claude -p gave no answer within {timeout:g} s"
    except OSError as error:
        return f"claude -p could not start: {error.strerror or error}"


def result_of(code: int, stdout: str, stderr: str) -> Asked:
    """The answer in `claude -p --output-format json`'s result object, or why there is none.

    >>> result_of(0, '{"type": "result", "is_error": false, "result": "{}"}', "").text
    '{}'
    >>> result_of(1, "", "error: unknown option '--safe-mode'").failure
    "claude -p failed: error: unknown option '--safe-mode'"
    """
    try:
        data = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        said = (stderr or stdout).strip().splitlines()[-1:] or [f"exit {code}"]
        return Asked(failure=f"claude -p failed: {said[0][:160]}")
    model = next(iter(data.get("modelUsage") or {}), "")
    text = data.get("result")
    if data.get("is_error") or not isinstance(text, str):
        why = text if isinstance(text, str) else data.get("subtype", "an error")
        return Asked(failure=f"claude -p answered with an error: {str(why)[:160]}", model=model)
    if not text.strip():
        return Asked(failure="claude -p gave an empty answer", model=model)
    return Asked(text=text, model=str(model))
