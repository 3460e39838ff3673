"""Asks the recall store: words (all of them, else any), or one message by uuid, in a session
and a cut named by id, prefix or path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from keepd.errors import KeepdError, NotRecalledError, RecallQueryError
from keepd.recall.query import match_all, match_any, symbols
from keepd.recall.store import Hit, Store, Stored

DEFAULT_LIMIT = 10
MAX_LIMIT = 200
ALL_SESSIONS = ("all", "*")


@dataclass(frozen=True, slots=True)
class Results:
    """The hits for a query, best first; `match` says whether they hold every word or any."""

    query: str
    session_id: str | None
    cut_id: str | None
    match: str  # "all" or "any"
    hits: list[Hit]


def search(
    query: str,
    *,
    session: str | None = None,
    cut: str | None = None,
    limit: int = DEFAULT_LIMIT,
    store_path: Path | None = None,
) -> Results:
    """The stored messages that best match `query` (bm25), in one session and cut if named."""
    if not 1 <= limit <= MAX_LIMIT:
        raise RecallQueryError(f"the limit must be 1 to {MAX_LIMIT}, not {limit}")
    needles = symbols(query)  # a query without words (emoji): found as written
    strict = None if needles else match_all(query)
    with Store(store_path, create=False) as store:
        session_id = stored_session(store, session)
        cut_id = stored_cut(store, session_id, cut)
        how = "all"
        if strict is None:
            hits = store.containing(needles, session_id=session_id, cut_id=cut_id, limit=limit)
        else:
            hits = store.search(strict, session_id=session_id, cut_id=cut_id, limit=limit)
            loose = match_any(query)
            if not hits and loose != strict:
                hits = store.search(loose, session_id=session_id, cut_id=cut_id, limit=limit)
                how = "any"
    return Results(query, session_id, cut_id, how, hits)


def fetch(uuid: str, *, session: str | None = None, store_path: Path | None = None) -> Stored:
    """One stored message by uuid or unique prefix."""
    with Store(store_path, create=False) as store:
        return store.message(uuid.strip(), stored_session(store, session))


def stored_session(store: Store, name: str | None) -> str | None:
    """The session id `name` means among those stored: an id, a unique prefix, a file's path;
    None (or "all") for every session."""
    if name is None or name.strip().lower() in ALL_SESSIONS:
        return None
    name = name.strip()
    stem = Path(name).stem if name.endswith(".jsonl") else name
    known = store.session_ids()
    if stem in known:
        return stem
    matches = [s for s in known if s.startswith(stem)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise NotRecalledError(f"{name!r} starts {len(matches)} stored sessions' ids; give more")
    raise NotRecalledError(f"nothing is stored for the session {name!r}")


def stored_cut(store: Store, session_id: str | None, cut: str | None) -> str | None:
    """The cut id `cut` means (an id or unique prefix), in the session if one is named."""
    if cut is None or not cut.strip():
        return None
    cut = cut.strip()
    ids = {c.cut_id for c in store.cuts(session_id)}
    if cut in ids:
        return cut
    matches = sorted(i for i in ids if i.startswith(cut))
    if len(matches) == 1:
        return matches[0]
    where = f" of session {session_id}" if session_id else ""
    if matches:
        raise NotRecalledError(f"{cut!r} starts {len(matches)} stored cuts{where}; give more")
    raise NotRecalledError(f"no stored cut{where} is {cut!r}")


def current_session(cwd: Path | None = None) -> str | None:
    """The newest session of the working directory's project (keepd's discovery), or None."""
    from keepd.system.discover import resolve

    try:
        found = resolve(None, cwd=cwd)
    except KeepdError:
        return None
    return None if found.example else found.path.stem
