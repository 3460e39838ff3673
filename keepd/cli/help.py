"""What `keepd --help` and each `keepd COMMAND --help` say: the commands in groups, examples
that work when pasted (SESSION, WORDS and DIR stand for what the person gives), the docs' page."""

from __future__ import annotations

import argparse
from typing import Any

# Each group: its title and its commands, in the order a person meets them.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("read a session", ("report", "note", "ask")),
    ("shorten a session (keepd keeps a backup; undo puts the file back)", ("cut", "prune", "undo")),
    ("find what a cut or a compaction left out", ("recall",)),
    ("in Claude Code", ("statusline", "hook", "mcp")),
    (
        "the daemon (follows your sessions and sends a notice)",
        ("status", "sessions", "show", "mute", "unmute", "pause", "resume", "rescan", "run"),
    ),
    ("set up and check", ("service", "doctor")),
)

# Examples: (command line, what it does). Placeholders in capitals.
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "keepd": (
        ("keepd report", "where to stop in this folder's session"),
        ("keepd report --example", "the same on keepd's bundled example"),
        ("keepd cut SESSION --pick --dry-run", "what summarizing up to the pick would do"),
        ("keepd doctor", "what keepd needs, with fixes"),
    ),
    "report": (
        ("keepd report", "the newest session of this folder's project"),
        ("keepd report SESSION", "one session: its id, 4 or more characters of it, or its path"),
        ("keepd report SESSION --json", "the same as JSON (docs/json.md)"),
        ("keepd report --example --width 80", "keepd's bundled example, 80 columns wide"),
    ),
    "note": (
        ("keepd note", "the note of the newest session here; prints its file:// link"),
        ("keepd note --example --json", "the example's note, its path as JSON"),
    ),
    "ask": (
        ("keepd ask SESSION --print", "the exact request the reader would send; sends nothing"),
    ),
    "cut": (
        ("keepd cut SESSION --pick --dry-run", "show what summarizing up to the pick would do"),
        ("keepd cut SESSION --pick", "do it: keepd's own short summary, then the kept messages"),
        ("keepd cut SESSION --pick --summarize", "the summary written by `claude -p` instead"),
        ("keepd undo SESSION", "put the file back as it was"),
    ),
    "prune": (
        ("keepd prune SESSION --dry-run", "which turns would stay and which would go"),
        ("keepd prune SESSION --keep-last 5", "keep the 5 newest turns and the ones leaned on"),
    ),
    "undo": (("keepd undo SESSION", "undo keepd's latest cut or prune of the session"),),
    "recall": (
        ("keepd recall WORDS", "search every message keepd's cuts and compactions left out"),
        ("keepd recall WORDS --session SESSION --json", "only one session's, as JSON"),
    ),
    "mcp": (("claude mcp add keepd -- keepd mcp", "let Claude Code search the recall store"),),
    "statusline": (
        ("keepd statusline < FILE", "the line for the JSON Claude Code sends (docs page below)"),
    ),
    "hook": (("keepd hook precompact < FILE", "what Claude Code runs before it compacts"),),
    "status": (("keepd status", "is the daemon running, and what it follows"),),
    "sessions": (("keepd sessions --all", "every session, idle ones too"),),
    "show": (("keepd show SESSION", "one session as the daemon sees it now"),),
    "mute": (("keepd mute SESSION --for 30", "no notices for this session for 30 minutes"),),
    "unmute": (("keepd unmute SESSION", "notices for it again"),),
    "pause": (("keepd pause --for 60", "no notices at all for an hour"),),
    "resume": (("keepd resume", "notices again"),),
    "rescan": (("keepd rescan", "look at every session file again"),),
    "run": (("keepd run", "the daemon in this terminal, until Ctrl-C"),),
    "service": (
        ("keepd service install --dry-run", "show the files and commands, change nothing"),
        ("keepd service install", "start the daemon now and at every login"),
        ("keepd service status", "is it installed, enabled and running"),
    ),
    "doctor": (
        ("keepd doctor", "every check, with a fix for each problem"),
        ("keepd doctor --notify", "and send a test notice"),
    ),
}

DOCS = {
    "keepd": "docs/README.md",
    "report": "docs/report.md",
    "note": "docs/note.md",
    "ask": "docs/reader.md",
    "cut": "docs/cut.md",
    "prune": "docs/cut.md",
    "undo": "docs/cut.md",
    "recall": "docs/recall-store.md",
    "mcp": "docs/recall-store.md",
    "statusline": "docs/statusline-and-hook.md",
    "hook": "docs/statusline-and-hook.md",
    "service": "docs/service.md",
    "doctor": "docs/doctor.md",
}
DAEMON_DOCS = "docs/daemon.md"


HELP_WIDTH = 79


def epilog(name: str) -> str:
    """The examples and the docs' page printed under a command's options, in 79 columns: the
    explanations beside their examples, or under each when one does not fit."""
    examples = EXAMPLES.get(name, ())
    width = max((len(line) for line, _ in examples), default=0)
    lines = ["examples:"] if examples else []
    beside = all(2 + width + 2 + len(what) <= HELP_WIDTH for _, what in examples)
    for line, what in examples:
        lines += [f"  {line:<{width}}  {what}"] if beside else [f"  {line}", f"      {what}"]
    lines.append(f"more: {DOCS.get(name, DAEMON_DOCS)} in keepd's source")
    return "\n".join(lines)


def overview(helps: dict[str, str]) -> str:
    """The top help's description: what keepd does, then every command in its group."""
    width = max(len(name) for name in helps)
    lines = [
        "Where a long Claude Code chat can be summarized up to (the rewind picker's",
        '"Summarize up to here"), read from its session file.',
    ]
    listed = set()
    for title, names in GROUPS:
        lines += ["", f"{title}:"]
        for name in names:
            if name in helps:
                lines.append(f"  {name:<{width}}  {helps[name]}")
                listed.add(name)
    rest = [name for name in helps if name not in listed]
    if rest:
        lines += ["", "other:", *(f"  {name:<{width}}  {helps[name]}" for name in rest)]
    return "\n".join(lines)


class Commands:
    """Stands for argparse's subparsers action while the commands are added: records each
    command's one-line help for the grouped overview and gives its parser examples."""

    def __init__(self, action: Any) -> None:
        self.action = action
        self.helps: dict[str, str] = {}

    def add_parser(self, name: str, *, help: str, **kwargs: Any) -> argparse.ArgumentParser:
        self.helps[name] = help
        kwargs.setdefault("description", help[:1].upper() + help[1:] + ".")
        kwargs.setdefault("epilog", epilog(name))
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        parser: argparse.ArgumentParser = self.action.add_parser(name, **kwargs)
        return parser
