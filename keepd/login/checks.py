"""The checks of `keepd doctor`, each returning what it found and how to fix what is wrong."""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from keepd.errors import KeepdError

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
TESTED_VERSIONS = ("2.1.7", "2.1.332")  # the newest: what tests/claude install and run
TAIL_BYTES = 256 << 10
WATCHES_FILE = Path("/proc/sys/fs/inotify/max_user_watches")
SYSCTL_FIX = (
    "raise the limit: echo fs.inotify.max_user_watches=524288 | "
    "sudo tee /etc/sysctl.d/90-inotify.conf && sudo sysctl --system; "
    "or set watch.polling = true in keepd's config"
)


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: a name, ok/warn/fail/skip, one line about it, and the fix when not ok."""

    name: str
    status: str
    summary: str
    fix: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
            "fix": self.fix,
            "data": self.data,
        }


def check_config() -> Check:
    from keepd.config import load_config
    from keepd.paths import config_file

    path = config_file()
    try:
        load_config()
    except KeepdError as error:
        return Check("config", FAIL, str(error), f"correct or remove {path}", {"path": str(path)})
    where = f"{path}" if path.exists() else f"defaults ({path} does not exist)"
    return Check("config", OK, f"configuration: {where}", data={"path": str(path)})


def check_roots() -> Check:
    """The Claude Code roots that exist and how many sessions they hold."""
    from keepd.paths import claude_roots
    from keepd.system.discover import session_files

    roots = claude_roots()
    counts = {str(root): len(session_files([root])) for root in roots if root.is_dir()}
    total = sum(counts.values())
    data = {"roots": [str(root) for root in roots], "found": counts, "sessions": total}
    if not counts:
        shown = ", ".join(str(root) for root in roots)
        fix = "run Claude Code once, or set CLAUDE_CONFIG_DIR to where its sessions are"
        return Check("claude roots", FAIL, f"no Claude Code folder: {shown}", fix, data)
    if total == 0:
        fix = "start a Claude Code session; keepd follows it from its first line"
        shown = ", ".join(counts)
        return Check("claude roots", WARN, f"no sessions yet in {shown}", fix, data)
    return Check("claude roots", OK, roots_summary(counts), data=data)


def roots_summary(counts: dict[str, int]) -> str:
    """How many sessions the roots hold, each count said once.

    >>> roots_summary({"/h/.claude": 9})
    '9 sessions in /h/.claude'
    >>> roots_summary({"/h/.claude": 1, "/h/.config/claude": 0})
    '1 session: 1 in /h/.claude, none in /h/.config/claude'
    """
    total = sum(counts.values())
    noun = "session" if total == 1 else "sessions"
    if len(counts) == 1:
        return f"{total:,} {noun} in {next(iter(counts))}"
    parts = ", ".join(f"{n:,} in {root}" if n else f"none in {root}" for root, n in counts.items())
    return f"{total:,} {noun}: {parts}"


def check_session_format() -> Check:
    """The `version` field of the newest session's entries, against the versions tested."""
    from keepd.system.discover import session_files

    sessions = session_files()
    if not sessions:
        return Check("session format", SKIP, "no session to read")
    newest = sessions[0]
    version = newest_version(newest.path)
    data = {"session": str(newest.path), "version": version, "tested": list(TESTED_VERSIONS)}
    if version is None:
        fix = "keepd reads sessions by their structure; report it if reports look wrong"
        return Check("session format", WARN, f"no version field in {newest.path}", fix, data)
    low, high = (_numbers(text) for text in TESTED_VERSIONS)
    seen = _numbers(version)
    summary = f"Claude Code {version} wrote the newest session"
    if seen[:1] != low[:1]:
        fix = "keepd may misread this format: look for a newer keepd"
        return Check("session format", FAIL, summary + " (another major version)", fix, data)
    if seen > high or seen < low:
        fix = "keepd was tested with " + " to ".join(TESTED_VERSIONS) + "; report what looks wrong"
        return Check("session format", WARN, summary + " (not tested)", fix, data)
    return Check("session format", OK, summary, data=data)


def newest_version(path: Path) -> str | None:
    """The `version` of the last entry in the file that has one."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TAIL_BYTES))
            tail = handle.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("version"), str):
            return str(entry["version"])
    return None


def _numbers(version: str) -> tuple[int, ...]:
    """`2.1.81` -> (2, 1, 81); what is not a number counts as 0."""
    release = version.split("-", maxsplit=1)[0]
    return tuple(int(part) if part.isdigit() else 0 for part in release.split("."))


def check_inotify(daemon_running: bool) -> Check:
    """Linux: the per-user inotify watch limit against the folders the daemon watches."""
    from keepd.config import load_config

    if not sys.platform.startswith("linux"):
        return Check("inotify", SKIP, "not Linux (FSEvents has no per-folder limit)")
    try:
        polling = load_config().watch.polling
    except KeepdError:
        polling = False
    if polling:
        return Check("inotify", OK, "watch.polling is on: no inotify watches are used")
    try:
        limit = int(WATCHES_FILE.read_text().strip())
    except (OSError, ValueError) as error:
        return Check("inotify", WARN, f"cannot read {WATCHES_FILE}: {error}", SYSCTL_FIX)
    needed = folders_to_watch()
    used = watches_in_use()
    headroom = limit - used + (needed if daemon_running else 0)
    data = {"max_user_watches": limit, "needed": needed, "in_use": used}
    summary = f"{needed} folders to watch; {used} of {limit} watches in use by your processes"
    if needed > headroom:
        return Check("inotify", FAIL, summary, SYSCTL_FIX, data)
    if needed > headroom // 2:
        return Check("inotify", WARN, summary + " (little room left)", SYSCTL_FIX, data)
    return Check("inotify", OK, summary, data=data)


def folders_to_watch() -> int:
    """Each root, its `sessions` folder, and every folder under `projects`."""
    from keepd.paths import claude_roots

    count = 0
    for root in claude_roots():
        count += 2
        for _folder, subfolders, _files in os.walk(root / "projects"):
            count += 1
            subfolders[:] = [name for name in subfolders if not name.startswith(".")]
    return count


def watches_in_use() -> int:
    """inotify watches held by this user's processes (`inotify wd:` lines in /proc fdinfo)."""
    total = 0
    for process in _own_processes(os.getuid()):
        try:
            descriptors = list((process / "fd").iterdir())
        except OSError:
            continue
        for link in descriptors:
            try:
                if str(link.readlink()) != "anon_inode:inotify":
                    continue
                info = (process / "fdinfo" / link.name).read_bytes()
            except OSError:
                continue
            total += info.count(b"inotify wd:")
    return total


def _own_processes(uid: int) -> list[Path]:
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    found.append(entry)
            except OSError:
                continue
    return found


def check_notes() -> Check:
    """The notes folder exists and takes a file, or can be made."""
    from keepd.paths import notes_dir

    folder = notes_dir()
    data = {"path": str(folder)}
    fix = f"make {folder} writable, or set KEEPD_NOTES_DIR to a folder that is"
    if not folder.exists():
        parent = next((p for p in folder.parents if p.exists()), Path("/"))
        if os.access(parent, os.W_OK | os.X_OK):
            return Check("notes", OK, f"{folder} will be made on the first note", data=data)
        return Check("notes", FAIL, f"{folder} cannot be made ({parent} is read-only)", fix, data)
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return Check("notes", FAIL, f"{folder} is not writable: {error.strerror}", fix, data)
    return Check("notes", OK, f"notes are written to {folder}", data=data)


def check_bundle() -> Check:
    """macOS: Notification Center needs an app bundle; elsewhere keepd uses osascript."""
    if sys.platform != "darwin":
        return Check("macos bundle", SKIP, "not macOS")
    from keepd.daemon.notify import in_app_bundle

    if in_app_bundle(sys.executable):
        return Check("macos bundle", OK, "Python runs inside an app bundle: Notification Center")
    fix = (
        "nothing to do; notices still show. For the buttons, run keepd with a Python "
        "inside an app bundle (python.org's framework build)"
    )
    summary = "Python is not in an app bundle: notices go through osascript, without buttons"
    return Check("macos bundle", WARN, summary, fix, {"python": sys.executable})


def check_recall() -> Check:
    """The recall store can work here (FTS5 in this Python's SQLite) and, once made, is private."""
    from keepd.paths import recall_db
    from keepd.recall.store import fts5_missing

    path = recall_db()
    data: dict[str, Any] = {"path": str(path), "exists": path.exists()}
    missing = fts5_missing()
    if missing is not None:
        fix = "run keepd with a Python whose SQLite has FTS5 (python.org's and Debian's do)"
        return Check("recall store", FAIL, missing, fix, data)
    if not data["exists"]:
        return Check("recall store", OK, f"{path} will be made by the first cut", data=data)
    info = path.stat()
    mode = info.st_mode & 0o777
    data |= {"mode": f"{mode:o}", "bytes": info.st_size}
    if mode & 0o077:
        summary = f"{path} can be read by others (mode {mode:o})"
        return Check("recall store", WARN, summary, f"chmod 600 {path}", data)
    return Check("recall store", OK, f"{path}, {info.st_size / 1e6:.1f} MB", data=data)


def check_mcp() -> Check:
    """`keepd mcp` needs the optional `mcp` package."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("mcp")
    except PackageNotFoundError:
        from keepd.login.advice import add_package

        summary = f"the mcp package is not installed (for keepd mcp: {add_package('mcp')})"
        return Check("mcp", SKIP, summary)
    summary = f"mcp {found}: keepd mcp can serve the recall store"
    return Check("mcp", OK, summary, data={"mcp": found})


# Measured with the tests/claude harness (scripts/reader_cost.py): the fake Messages API's
# count (bytes / 4) of what Claude Code 2.1.332 sends for the calibration sessions' requests
# (median 1,131; the largest 3,525) and for a request at the cap (6,905).
READER_TOKENS = "about 1,100 tokens a question (median), 3,500 the largest seen, 6,900 at most"


def check_reader() -> Check:
    """Whether the reader of meaning is on, what it sends and to whom."""
    import shutil

    from keepd.config import load_config
    from keepd.core.reader import REQUEST_CHARS, ROW_CHARS

    config = load_config().reader
    sends = (
        f"the prompts' picker rows (each cut to {ROW_CHARS} characters, with the minutes since "
        f"the one before and the git branch; {REQUEST_CHARS:,} characters in all), nothing else"
    )
    data = {"enabled": config.enabled, "model": config.model, "sends": sends}
    to_whom = f"claude -p --model {config.model}, on your own Claude account as your chat is"
    what = f"{sends}, go to {to_whom}; {READER_TOKENS}"
    if not config.enabled:
        summary = (
            "off: nothing is sent. Turned on ([reader] enabled = true, or keepd report "
            f"--ask-claude), {what}"
        )
        return Check("reader", SKIP, summary, data=data)
    claude = shutil.which("claude")
    summary = f"on: before a notice, {what}"
    if claude is None:
        return Check("reader", WARN, summary, "install Claude Code, or turn the reader off", data)
    return Check("reader", OK, summary, data=data | {"claude": claude})


def check_windows(count: int = 3) -> Check:
    """The window and the auto-compact point of the newest sessions, and where each came from."""
    from keepd.system.discover import session_files

    newest = sorted(session_files(), key=lambda item: item.mtime, reverse=True)[:count]
    if not newest:
        return Check("windows", SKIP, "no session to read")
    parts: list[str] = []
    guessed = False
    for item in newest:
        try:
            context = analyse_file_context(item.path)
        except KeepdError as error:
            parts.append(f"{item.path.stem[:8]}: {error.message}")
            continue
        guessed = guessed or context["window_source"] == "assumed"
        parts.append(f"{item.path.stem[:8]}: {window_words(context)}")
    fix = "" if not guessed else "add `keepd statusline` to Claude Code's statusLine to be told"
    return Check("windows", WARN if guessed else OK, "; ".join(parts), fix)


def analyse_file_context(path: Path) -> dict[str, Any]:
    """The context of a session file as `keepd report` sees it (settings and status line too)."""
    from keepd.api import analyse_file
    from keepd.ops.memory import told_setup

    return analyse_file(path, setup=told_setup(path)).context


def window_words(context: dict[str, Any]) -> str:
    """`1,000k window (model), auto-compact at 967k (model)`.

    >>> window_words({"window": 200_000, "window_source": "assumed", "trigger": None})
    '200k window (assumed), auto-compact off'
    """
    from keepd.core.limits import compact_words

    trigger = context.get("trigger")
    where = f" ({context.get('trigger_source')})" if trigger is not None else ""
    window = f"{context['window'] // 1000:,}k window ({context['window_source']})"
    return f"{window}, {compact_words(context)}{where}"
