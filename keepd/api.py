"""The Python API: analyse a session file, or a plain list of messages where each is a stop."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from keepd.core.analysis import Analysis, analyse_state
from keepd.core.grade import DEFAULT_TUNING, Tuning
from keepd.core.limits import Setup
from keepd.core.messages import DEFAULT_POLICY, Node, TextPolicy
from keepd.core.session import SessionState, read_current
from keepd.core.tree import Scope
from keepd.core.words import content_words
from keepd.errors import NotASessionError, UnreadableError
from keepd.system.regular import chunks, read_regular


def analyse_file(
    path: str | Path,
    *,
    whole: bool = False,
    tuning: Tuning = DEFAULT_TUNING,
    policy: TextPolicy = DEFAULT_POLICY,
    window: int | None = None,
    setup: Setup | None = None,
) -> Analysis:
    """The analysis of the session file at `path` (the current context, or `whole` history);
    `setup` says what decides its window outside the file (keepd.system.settings.setup_for)."""
    state = load_state(path, Scope.WHOLE if whole else Scope.CURRENT, policy=policy)
    if not state.tree.nodes or state.tree.leaf() is None:
        raise NotASessionError(str(path))
    return analyse_state(state, path=str(path), tuning=tuning, window=window, setup=setup)


def load_state(
    path: str | Path,
    scope: Scope,
    *,
    policy: TextPolicy = DEFAULT_POLICY,
    detail: bool = True,
    skim: bool = True,
) -> SessionState:
    """Reads a file at rest into a session state through the incremental reader.

    The current context starts at the newest compaction that preserved nothing, so with
    `skim` the lines before it are read only for the facts the scope keeps (core/skim.py);
    should what follows reach back into them, the whole file is read after all. The whole
    history is read in chunks.
    """
    if scope is not Scope.CURRENT or not skim:
        return _chunked(path, SessionState(scope, policy=policy, detail=detail))
    return read_current(_read(path), policy=policy, detail=detail)


def _chunked(path: str | Path, state: SessionState) -> SessionState:
    with _reading(path):
        for chunk in chunks(path):
            state.feed(chunk)
    state.finish()
    return state


def _read(path: str | Path) -> bytes:
    """The file's bytes: a regular file only (a FIFO or a device would hang the reader)."""
    with _reading(path):
        return read_regular(path)


@contextmanager
def _reading(path: str | Path) -> Iterator[None]:
    """Turns the OS's complaint about `path` into keepd's one-line errors."""
    try:
        yield
    except IsADirectoryError as error:
        raise NotASessionError(str(path)) from error
    except OSError as error:
        raise UnreadableError(str(path), error.strerror or str(error)) from error


def analyse_texts(texts: Sequence[str], *, tuning: Tuning = DEFAULT_TUNING) -> Analysis:
    """The analysis of plain messages, oldest first, every one a stop.

    >>> result = analyse_texts(["plan the parser", "parser tests", "fix the parser tests"])
    >>> [stop.below for stop in result.stops]
    [2, 1, 0]
    """
    return analyse_state(text_state(texts), tuning=tuning)


def text_state(texts: Sequence[str]) -> SessionState:
    """A session state holding plain messages, oldest first, every one a stop."""
    state = SessionState(Scope.WHOLE)
    state.add_nodes([_text_node(i, text) for i, text in enumerate(texts)])
    return state


def _text_node(i: int, text: str) -> Node:
    parent = str(i - 1) if i else None
    return Node(
        pos=i,
        kind="user",
        uuid=str(i),
        parent=parent,
        is_prompt=True,
        chars=len(text),
        quote=" ".join(text.split())[:240],
        words=content_words(text),
    )
