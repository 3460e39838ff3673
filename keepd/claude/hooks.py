"""Claude Code hook commands: `keepd hook precompact` prints keepd's guidance for the summary
(what to keep, the side trips to drop) before an automatic compaction.

Claude Code passes a PreCompact hook `{session_id, transcript_path, cwd, hook_event_name:
"PreCompact", trigger: "manual"|"auto", custom_instructions}` on stdin and adds the stdout of
every hook that exits 0 to the compaction's custom instructions. An exit code of 2 would block
the compaction in recent versions, so this command exits 0 whatever happens: an error prints
nothing on stdout and one line on stderr.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
STDIN_SECONDS = 5.0
MAX_INSTRUCTIONS = 12_000
EVENT = "PreCompact"
HELP = """usage: keepd hook precompact [--manual] [-v]

Claude Code's PreCompact hook: reads the hook's JSON on stdin and prints what the compaction's
summary should keep (the words the kept part leans on and the side trips to drop). Always exits
0, so the compaction goes on without keepd's guidance when anything is wrong.

options:
  --manual       also before a manual /compact (default: automatic compactions only)
  -v, --verbose  tracebacks and debug logs on stderr
"""


def precompact(argv: Sequence[str], *, verbose: bool = False) -> int:
    """Prints the guidance for the session on stdin (`--manual`: also before a manual
    compaction); always returns 0."""
    args = list(argv)
    if "-h" in args or "--help" in args:
        sys.stdout.write(HELP)
        return 0
    verbose = verbose or "-v" in args or "--verbose" in args
    _setup_logging(verbose)
    unknown = [arg for arg in args if arg not in ("--manual", "-v", "--verbose")]
    if unknown:
        log.warning("keepd hook precompact: ignoring %s", " ".join(unknown))
    try:
        text = guidance(_read_json(), manual="--manual" in args)
    except Exception as error:  # the compaction goes on without keepd's guidance
        log.warning("keepd hook precompact: no guidance: %s", error, exc_info=verbose)
        return 0
    if text:
        try:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError) as error:
            log.warning("keepd hook precompact: cannot write: %s", error)
    return 0


def guidance(data: Any, *, manual: bool = False) -> str:
    """The instructions for the compaction `data` describes; empty when keepd has none to give
    (a manual compaction without `manual`, another event, no stop in the session)."""
    if data is None:  # no input, or not JSON: the reader said so
        return ""
    if not isinstance(data, dict):
        log.warning("keepd hook precompact: the input is not a JSON object")
        return ""
    event = data.get("hook_event_name", EVENT)
    trigger = data.get("trigger")
    if event != EVENT or trigger not in ("auto", "manual"):
        log.warning("keepd hook precompact: not a PreCompact input (%r, %r)", event, trigger)
        return ""
    if trigger == "manual" and not manual:
        log.debug("manual compaction: no guidance unless --manual")
        return ""
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path:
        log.warning("keepd hook precompact: the input names no transcript_path")
        return ""
    return instructions_for(Path(path).expanduser())


def instructions_for(path: Path) -> str:
    """keepd's instructions for summarizing the current context of the session file at `path`."""
    from keepd.api import analyse_file
    from keepd.report.instructions import summary_instructions

    text = summary_instructions(analyse_file(path))
    if len(text) > MAX_INSTRUCTIONS:
        text = text[: MAX_INSTRUCTIONS - 1].rsplit("\n", 1)[0]
    return text


def _read_json() -> Any:
    """The hook's input: JSON on stdin, read until it closes (bounded in time and size)."""
    import json

    from keepd.claude.statusline import read_input

    raw = read_input(timeout=STDIN_SECONDS)
    if not raw.strip():
        log.warning("keepd hook precompact: no input on stdin")
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as error:
        log.warning("keepd hook precompact: the input is not JSON: %s", error)
        return None


def _setup_logging(verbose: bool) -> None:
    if not logging.getLogger().handlers:
        level = logging.DEBUG if verbose else logging.WARNING
        logging.basicConfig(level=level, format="%(message)s")
