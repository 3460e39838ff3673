"""`python -m evaluation.probes.path_words [evaluation's arguments]`: `python -m evaluation`
with the words of each session's own folder (its cwd, split as the index splits words and at
every non-word character) kept out of the word index, as a measurement only: every tool call's
paths repeat them, and a stop where they first appear (a path pasted in a prompt, a first tool
result) then counts them as its own. The index is fed one message at a time here (the batch
splitter skipped), which gives the same words. Run with `--calibration`: nothing held out is
read then.
"""

from __future__ import annotations

import re
import sys

from evaluation.__main__ import main
from keepd.core import session
from keepd.core.messages import Node
from keepd.core.words import content_words


def path_words(cwd: str) -> frozenset[str]:
    """The words of a folder's path.

    >>> sorted(path_words("/Users/eryk.napierala/Projects/fasola/title-loop"))
    ['eryk', 'eryk.napierala', 'fasola', 'loop', 'napierala', 'projects', 'title', 'users']
    """
    lowered = cwd.lower()
    parts = frozenset(re.split(r"[^a-z0-9_]+", lowered)) - {""}
    return frozenset(content_words(lowered)) | parts


def _index_words(self: session.SessionState, fresh: list[Node], is_stop: list[bool]) -> None:
    del is_stop
    cwd = next((node.cwd for node in fresh if node.cwd), None) or self.tree.cwd
    ignored = path_words(cwd) if cwd else frozenset()
    words = [node.take_words() for node in fresh]
    self.index.extend([[w for w in found if w not in ignored] for found in words])


if __name__ == "__main__":
    session.SessionState._index_words = _index_words  # type: ignore[method-assign]
    raise SystemExit(main(sys.argv[1:]))
