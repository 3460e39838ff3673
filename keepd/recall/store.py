"""The recall store on disk: one SQLite database with an FTS5 index, private to the user.

Rows are keyed by session id, cut id and message uuid. A cut's messages are written in one
transaction, so a store holds a cut whole or not at all.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from keepd.errors import NothingStoredError, NotRecalledError, RecallError
from keepd.paths import recall_db
from keepd.recall.text import Dropped
from keepd.system.atomic import make_folder

log = logging.getLogger(__name__)
SCHEMA_VERSION = 1
BUSY_MS = 5000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS cuts (
    session_id TEXT NOT NULL,
    cut_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    boundary_uuid TEXT NOT NULL,
    path TEXT NOT NULL,
    project TEXT,
    created TEXT NOT NULL,
    messages INTEGER NOT NULL,
    PRIMARY KEY (session_id, cut_id)
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    cut_id TEXT NOT NULL,
    uuid TEXT NOT NULL,
    position INTEGER NOT NULL,
    role TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    text TEXT NOT NULL,
    entry BLOB NOT NULL,
    UNIQUE (session_id, cut_id, uuid)
);
CREATE INDEX IF NOT EXISTS messages_uuid ON messages (uuid);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS messages_added AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_removed AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""


@dataclass(frozen=True, slots=True)
class Cut:
    """One cut, prune or compaction whose dropped messages the store holds."""

    session_id: str
    cut_id: str
    kind: str  # "cut", "prune" or "compaction"
    boundary_uuid: str
    path: str
    project: str | None
    created: str
    messages: int = 0


@dataclass(frozen=True, slots=True)
class Hit:
    """A stored message that matches a query, best first."""

    session_id: str
    cut_id: str
    uuid: str
    position: int
    role: str
    timestamp: str
    snippet: str
    rank: float
    chars: int


@dataclass(frozen=True, slots=True)
class Stored:
    """One stored message in full."""

    session_id: str
    cut_id: str
    uuid: str
    position: int
    role: str
    timestamp: str
    text: str
    entry: bytes
    kind: str
    created: str


def fts5_missing() -> str | None:
    """None when this Python's SQLite has FTS5, else why not."""
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as probe:
            probe.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.Error as error:
        return f"this Python's SQLite {sqlite3.sqlite_version} has no FTS5 ({error})"
    return None


class Store:
    """An open recall database; use as a context manager, or call `close`."""

    def __init__(self, path: Path | None = None, *, create: bool = True) -> None:
        self.path = path if path is not None else recall_db()
        missing = fts5_missing()
        if missing is not None:
            raise RecallError(missing)
        if not create and not self.path.exists():
            raise NothingStoredError(
                f"nothing is stored yet ({self.path}): keepd cut and prune fill it, and "
                "Claude Code's compactions while the daemon runs"
            )
        self.db = _connect(self.path)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def add(self, cut: Cut, messages: Sequence[Dropped]) -> int:
        """Stores a cut and its messages in one transaction (again: replaces them)."""
        rows = [
            (cut.session_id, cut.cut_id, m.uuid, m.position, m.role, m.timestamp, m.text, m.entry)
            for m in messages
        ]
        with _failing("store the cut"), self._transaction():
            self._delete(cut.session_id, cut.cut_id)
            self.db.execute(
                "INSERT INTO cuts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    cut.session_id,
                    cut.cut_id,
                    cut.kind,
                    cut.boundary_uuid,
                    cut.path,
                    cut.project,
                    cut.created,
                    len(rows),
                ),
            )
            self.db.executemany(
                "INSERT INTO messages (session_id, cut_id, uuid, position, role, timestamp, "
                "text, entry) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        return len(rows)

    def drop(self, session_id: str, cut_id: str) -> int:
        """Forgets one cut and its messages; returns how many messages went."""
        with _failing("forget the cut"), self._transaction():
            return self._delete(session_id, cut_id)

    def has_cut(self, session_id: str, cut_id: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM cuts WHERE session_id = ? AND cut_id = ?", (session_id, cut_id)
        ).fetchone()
        return row is not None

    def cuts(self, session_id: str | None = None) -> list[Cut]:
        """The stored cuts (of one session), oldest first."""
        sql = "SELECT * FROM cuts" + (" WHERE session_id = ?" if session_id else "")
        rows = self.db.execute(sql + " ORDER BY created", (session_id,) if session_id else ())
        return [Cut(*row) for row in rows]

    def session_ids(self) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT DISTINCT session_id FROM cuts")]

    def search(
        self, match: str, *, session_id: str | None, cut_id: str | None, limit: int
    ) -> list[Hit]:
        """Messages matching an FTS5 expression, best (lowest bm25) first, with snippets."""
        sql = (
            "SELECT m.session_id, m.cut_id, m.uuid, m.position, m.role, m.timestamp, "
            "snippet(messages_fts, 0, '«', '»', '…', 24), bm25(messages_fts), length(m.text) "
            "FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid "
            "WHERE messages_fts MATCH :match "
            "AND (:session IS NULL OR m.session_id = :session) "
            "AND (:cut IS NULL OR m.cut_id = :cut) "
            "ORDER BY bm25(messages_fts) LIMIT :limit"
        )
        values = {"match": match, "session": session_id, "cut": cut_id, "limit": limit}
        with _failing("search"):
            rows = self.db.execute(sql, values).fetchall()
        return [Hit(*row) for row in rows]

    def containing(
        self, needles: Sequence[str], *, session_id: str | None, cut_id: str | None, limit: int
    ) -> list[Hit]:
        """Messages holding every one of `needles` as written (symbols such as emoji, which
        the FTS5 index leaves out), newest first; the snippet is the text around the first."""
        if not needles:
            return []
        found = " AND ".join("instr(m.text, ?) > 0" for _ in needles)
        sql = (
            "SELECT m.session_id, m.cut_id, m.uuid, m.position, m.role, m.timestamp, "
            "substr(m.text, max(1, instr(m.text, ?) - 60), 140), 0.0, length(m.text) "
            f"FROM messages AS m WHERE {found} "
            "AND (? IS NULL OR m.session_id = ?) AND (? IS NULL OR m.cut_id = ?) "
            "ORDER BY m.id DESC LIMIT ?"
        )
        values = (needles[0], *needles, session_id, session_id, cut_id, cut_id, limit)
        with _failing("search"):
            rows = self.db.execute(sql, values).fetchall()
        return [Hit(*row) for row in rows]

    def message(self, uuid: str, session_id: str | None = None) -> Stored:
        """The stored message with this uuid (or unique prefix), newest cut first."""
        if not uuid.strip():
            raise NotRecalledError("name a message by its uuid (or a unique prefix of it)")
        sql = (
            "SELECT m.session_id, m.cut_id, m.uuid, m.position, m.role, m.timestamp, m.text, "
            "m.entry, c.kind, c.created FROM messages AS m JOIN cuts AS c "
            "ON c.session_id = m.session_id AND c.cut_id = m.cut_id "
            "WHERE substr(m.uuid, 1, ?) = ? AND (? IS NULL OR m.session_id = ?) "
            "ORDER BY c.created DESC LIMIT 50"
        )
        with _failing("read the message"):
            rows = self.db.execute(sql, (len(uuid), uuid, session_id, session_id)).fetchall()
        found = [Stored(*row) for row in rows]
        if not found:
            raise NotRecalledError(f"no stored message has the uuid {uuid!r}")
        if len({row.uuid for row in found}) > 1:
            raise NotRecalledError(f"{uuid!r} starts several stored messages' uuids; give more")
        return found[0]

    def _delete(self, session_id: str, cut_id: str) -> int:
        gone = self.db.execute(
            "DELETE FROM messages WHERE session_id = ? AND cut_id = ?", (session_id, cut_id)
        ).rowcount
        self.db.execute(
            "DELETE FROM cuts WHERE session_id = ? AND cut_id = ?", (session_id, cut_id)
        )
        return max(gone, 0)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")


def _connect(path: Path) -> sqlite3.Connection:
    """Opens (or makes) the database: a 0700 folder, a 0600 file, the schema."""
    try:
        make_folder(path.parent)
        path.parent.chmod(0o700)
    except OSError as error:
        raise RecallError(f"cannot make {path.parent}: {error.strerror or error}") from error
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        path.chmod(0o600)
    except OSError as error:
        raise RecallError(f"{path}: {error.strerror or error}") from error
    with _failing(f"open {path}"):
        db = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level=None)
        try:
            _prepare(db, path)
        except BaseException:
            db.close()
            raise
    return db


def _prepare(db: sqlite3.Connection, path: Path) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise RecallError(f"{path} was made by a newer keepd (schema {version})")
    db.execute("PRAGMA journal_mode = WAL")
    if version < SCHEMA_VERSION:
        db.executescript(_SCHEMA + f"PRAGMA user_version = {SCHEMA_VERSION};")


@contextlib.contextmanager
def _failing(what: str) -> Iterator[None]:
    """SQLite's errors as one-line keepd errors."""
    try:
        yield
    except sqlite3.Error as error:
        raise RecallError(f"cannot {what}: {error}") from error
