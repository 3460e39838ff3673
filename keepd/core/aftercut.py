"""What the context holds after "Summarize up to here" at a stop: the kept part, the summary, and
what Claude Code 2.1.332 puts back after it (docs/claude-code-reference.md, "What “Summarize up
to here” puts back").

The client reads back the files in its read-file state (Read, Write and Edit calls put them
there), newest first, leaving out those a Read among the kept messages returned: at most
`FILES` of them, each with a cap of `FILE_CAP` tokens (a larger one becomes a short reference),
`FILES_CAP` in all. It takes the `FILES` newest before it reads them: one no longer on disk
(the front end says which, `Setup.on_disk`) comes back as nothing, and the next does not take
its place (2.1.332's bundle: sorted by time, sliced, then read). An image a Read showed is not
in that state (seen on a corpus session: tests/claude/test_after_cut.py). The deferred-tool
list and Claude Code's own instructions were in the context before the cut and are again after
it: they stay in the part the usage counts beyond the messages. The summary's length is the
model's; keepd assumes `SUMMARY_CHARS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from keepd.core.messages import READ_TOOL, Node

# The client's constants (2.1.332's compaction code): files read back, each one's cap, the cap
# of all of them, in tokens.
FILES = 5
FILE_CAP = 5_000
FILES_CAP = 50_000
REFERENCE_TOKENS = 40  # "the contents are too large to include" in place of a large file
# The two reminders around each file ("Called the Read tool with the following input: ...",
# "Result of calling the Read tool:"), in characters beside the path.
WRAPPER_CHARS = 160
# The median length of the 30 compaction summaries in the corpus's calibration sessions
# (12,114 characters; 4,362-24,528), and the text Claude Code wraps a summary in (measured on
# the harness's requests: 1,969 characters for a 1,600-character reply).
SUMMARY_CHARS = 12_000
SUMMARY_WRAPPER_CHARS = 400
CHARS_PER_TOKEN = 4  # keepd's estimate everywhere (core/tokens.py)
OnDisk = Callable[[str], bool]  # whether the file at a path is still there
IMAGES = (".png", ".jpg", ".jpeg", ".gif", ".webp")  # what the Read tool shows as a picture


def asked_once(on_disk: OnDisk | None) -> OnDisk:
    """`on_disk`, asked at most once a path; every file is there when it is None.

    >>> asked = []
    >>> there = asked_once(lambda path: asked.append(path) or path != "/gone")
    >>> there("/a"), there("/gone"), there("/a"), asked
    (True, False, True, ['/a', '/gone'])
    >>> asked_once(None)("/anything")
    True
    """
    if on_disk is None:
        return lambda _path: True
    known: dict[str, bool] = {}

    def there(path: str) -> bool:
        found = known.get(path)
        if found is None:
            found = known[path] = on_disk(path)
        return found

    return there


@dataclass(slots=True)
class _File:
    """One file as the session's calls showed it."""

    chars: int = 0  # its length as the newest call that showed it left it
    last: int = -1  # the message index of the newest call or result about it
    read_at: int = -1  # the message index of its newest Read result


@dataclass(slots=True)
class FileTrail:
    """The files a branch's Read and edit calls touched, kept as messages are appended."""

    files: dict[str, _File] = field(default_factory=dict)
    _reading: dict[str, str] = field(default_factory=dict)  # Read call id -> path

    def extend(self, first: int, fresh: Sequence[Node]) -> None:
        """Takes the branch's messages from the `first`-th on."""
        for offset, node in enumerate(fresh):
            at = first + offset
            for call, tool, path, change in node.file_calls:
                if tool == READ_TOOL and path.lower().endswith(IMAGES):
                    continue
                known = self.files.setdefault(path, _File())
                known.last = at
                if tool == READ_TOOL:
                    self._reading[call] = path
                elif tool in ("Write", "NotebookEdit"):
                    known.chars = change
                else:
                    known.chars = max(known.chars + change, 0)
            if node.tool_results and self._reading:
                self._results(node, at)

    def _results(self, node: Node, at: int) -> None:
        share = node.chars // len(node.tool_results)
        for result in node.tool_results:
            path = self._reading.pop(result, None)
            if path is not None:
                known = self.files[path]
                known.chars, known.last, known.read_at = share, at, at

    def newest(self) -> list[tuple[str, _File]]:
        """The files, the newest touched first (the order `read_back` takes)."""
        return sorted(self.files.items(), key=lambda item: -item[1].last)

    def read_back(
        self,
        index: int,
        newest: list[tuple[str, _File]] | None = None,
        on_disk: OnDisk | None = None,
    ) -> list[tuple[str, int]]:
        """The files Claude Code reads back after a cut at message `index`, newest first, with
        the tokens each takes (`newest`: the files in that order, if known already; `on_disk`:
        whether a file is still there, asked only of the files that would be read back)."""
        newest = self.newest() if newest is None else newest
        there = on_disk or asked_once(None)
        out: list[tuple[str, int]] = []
        total = slots = 0
        for path, known in newest:
            if slots == FILES:
                break
            if known.read_at >= index:  # a Read among the kept messages returned it
                continue
            slots += 1
            if not there(path):  # gone: its slot comes back empty
                continue
            tokens = (known.chars + len(path) + WRAPPER_CHARS) // CHARS_PER_TOKEN
            tokens = tokens if tokens <= FILE_CAP else REFERENCE_TOKENS
            if total + tokens > FILES_CAP:
                continue
            total += tokens
            out.append((path, tokens))
        return out


def summary_tokens() -> int:
    """What the summary is assumed to take, its wrapping included."""
    return (SUMMARY_CHARS + SUMMARY_WRAPPER_CHARS) // CHARS_PER_TOKEN


def after_cut(now: int | None, dropped: float, read_back: int) -> int | None:
    """The context after the cut: what it holds now (Claude Code's count) less the messages
    before the stop, plus the summary and the files read back; None when `now` is unknown.

    >>> after_cut(41_000, 30_000, 2_000)
    16100
    >>> after_cut(None, 1.0, 0) is None
    True
    """
    if now is None:
        return None
    return max(round(now - dropped), 0) + summary_tokens() + read_back
