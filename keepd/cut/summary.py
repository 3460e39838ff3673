"""The summary's text: given (a file, stdin), written by the user's `claude -p` with keepd's
guidance, or keepd's extractive gist; and the message that carries it into the context."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from keepd.cut.gist import analysis_at, gist, transcript
from keepd.cut.load import Loaded
from keepd.cut.model import Placement
from keepd.errors import SummaryError
from keepd.report.instructions import summary_instructions

CLAUDE_SECONDS = 600.0
# A summarizer reads the prompt and writes: no built-in tools (`--tools ""`) and no MCP servers
# (`--strict-mcp-config` without a config), so it cannot run, read or change anything.
NO_TOOLS = ("--tools", "", "--strict-mcp-config")
OPTIONS = ("--tools", "--strict-mcp-config", "--no-session-persistence")
PROMPT = (
    "You are writing the summary that will replace the earlier part of a Claude Code "
    "conversation. The rest of the conversation is kept word for word after it, so write what "
    "that continuation needs: the task and its decisions, names, files and open threads. "
    "Reply with the summary only, no preamble."
)
FIRST_HEADER = (
    "This session is being continued from a previous conversation. The summary below covers "
    "the earlier portion of the conversation; the messages after it are kept word for word."
)
LAST_HEADER = (
    "The messages above are kept word for word from a longer conversation. The summary below "
    "covers the earlier portion of that conversation, which came before them."
)

NOTES_HEADER = (
    "This session is being continued from a previous conversation. Some of its earlier turns "
    "were left out of the context; the notes below say what they were. The messages after "
    "the notes are kept word for word."
)
RECALL_LINE = (
    "The messages left out are kept in keepd's recall store as cut {cut}: to see a detail, call "
    'the MCP tool `recall` with cut "{cut}" (if keepd\'s MCP server is connected) or run '
    "`keepd recall --cut {cut} WORDS`, and `keepd recall --uuid UUID` for one message whole."
)


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """Where the summary comes from: `text` given, else `claude -p` if `summarize`, else the
    gist; `run` False (a dry run) never starts `claude`."""

    text: str | None = None
    origin: str = ""
    summarize: bool = False
    run: bool = True


def read_summary_file(path: Path) -> str:
    """A summary from a file; one that cannot be read or holds nothing is an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SummaryError(f"{path}: {getattr(error, 'strerror', None) or error}") from error
    return checked(text, str(path))


def checked(text: str, origin: str) -> str:
    """The text, stripped; an empty summary is an error that says what else to do."""
    if not text.strip():
        hint = " (or --summary-file F, --summarize, --no-summary)" if origin == "stdin" else ""
        raise SummaryError(f"the summary from {origin} is empty{hint}")
    return text.strip()


def summary_body(loaded: Loaded, end: int, request: SummaryRequest) -> tuple[str, str]:
    """The summary of messages 0..end-1 and a phrase saying where it came from."""
    if request.text is not None:
        return checked(request.text, request.origin), request.origin
    if request.summarize and not request.run:
        return gist(loaded, end), "claude -p when written (keepd's gist shown)"
    if request.summarize:
        written, failure = run_claude(claude_prompt(loaded, end), loaded.analysis.project)
        if written:
            return written, "claude -p"
        return gist(loaded, end), f"keepd's gist ({failure})"
    return gist(loaded, end), "keepd's gist"


def claude_prompt(loaded: Loaded, end: int) -> str:
    """keepd's guidance (what the kept part leans on, side trips) and the part to summarize."""
    guidance = summary_instructions(analysis_at(loaded, end))
    body = transcript(loaded, range(end))
    return (
        f"{PROMPT}\n\n{guidance}\n\n"
        f"The earlier part of the conversation, which your summary replaces:\n"
        f"<transcript>\n{body}\n</transcript>\n"
    )


def run_claude(prompt: str, project: str | None) -> tuple[str, str]:
    """The summary `claude -p` writes, or "" and why not."""
    claude = shutil.which("claude")
    if claude is None:
        return "", "claude is not installed"
    where = project if project and Path(project).is_dir() else None
    plain = [claude, "-p", "--output-format", "text"]
    result = _call([*plain, *NO_TOOLS, "--no-session-persistence"], prompt, where)
    if _unknown_option(result):
        result = _call(plain, prompt, where)  # older versions lack the options
    if isinstance(result, str):
        return "", result
    if result.returncode != 0 or not result.stdout.strip():
        last = (result.stderr or "").strip().splitlines()[-1:] or [f"exit {result.returncode}"]
        return "", f"claude -p failed: {last[0][:120]}"
    return result.stdout.strip(), ""


def _unknown_option(result: subprocess.CompletedProcess[str] | str) -> bool:
    if isinstance(result, str) or result.returncode == 0:
        return False
    said = result.stderr or ""
    return "unknown option" in said.lower() or any(flag in said for flag in OPTIONS)


def _call(
    command: list[str], prompt: str, cwd: str | None
) -> subprocess.CompletedProcess[str] | str:
    from keepd.system.claude_ask import run_piped

    return run_piped(command, prompt, cwd=cwd, timeout=CLAUDE_SECONDS)


def message_text(
    body: str, placement: Placement, *, notes: bool = False, cut: str | None = None
) -> str:
    """The summary message: Claude Code's kind of preamble, the line that says how to recall
    what was left out (with the `cut` id, when the recall store can keep it), then the body."""
    header = NOTES_HEADER if notes else LAST_HEADER if placement is Placement.LAST else FIRST_HEADER
    if cut:
        header += "\n" + RECALL_LINE.format(cut=cut)
    return f"{header}\n\n{'Notes' if notes else 'Summary'}:\n{body}"


def recall_cut(boundary_uuid: str) -> str | None:
    """The cut id to name in the summary, or None when this Python cannot keep a recall store."""
    from keepd.cut.model import cut_id
    from keepd.recall.store import fts5_missing

    return cut_id(boundary_uuid) if fts5_missing() is None else None
