"""The recall store on a real SQLite file: private modes, one transaction per cut, safe queries,
bm25 order, the any-word fallback, prefixes, and what undo takes out."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import orjson
import pytest

from keepd.errors import NotRecalledError, RecallError, RecallQueryError
from keepd.paths import recall_db
from keepd.recall.search import fetch, search
from keepd.recall.store import Cut, Store, fts5_missing
from keepd.recall.text import Dropped, dropped, render, role

TEXT_OK = {"type": "text", "text": "ok"}
SESSION = "5e55101d-0000-4000-8000-000000000001"


def _cut(cut_id: str = "c0ffee01", session_id: str = SESSION) -> Cut:
    return Cut(session_id, cut_id, "cut", cut_id + "-b", "/w/s.jsonl", "/w", "2026-01-01T00:00:00Z")


def _messages(*texts: str, prefix: str = "m") -> list[Dropped]:
    entries = [
        {"uuid": f"{prefix}{i:03d}-uuid", "type": "user", "timestamp": f"t{i}", "message": m}
        for i, m in enumerate({"content": t} for t in texts)
    ]
    return dropped(entries)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "recall" / "r.sqlite3")


def test_this_python_has_fts5() -> None:
    assert fts5_missing() is None


def test_the_database_and_its_folder_are_private() -> None:
    with Store() as opened:
        opened.add(_cut(), _messages("hello"))
    path = recall_db()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    for extra in path.parent.iterdir():  # SQLite's WAL files take the database's mode
        assert stat.S_IMODE(extra.stat().st_mode) & 0o077 == 0, extra


def test_a_cut_is_stored_whole_or_not_at_all(store: Store) -> None:
    twice = _messages("first", "second")
    twice.append(twice[0])  # the same uuid twice breaks the UNIQUE key mid-transaction
    with pytest.raises(RecallError, match="cannot store the cut"):
        store.add(_cut(), twice)
    assert not store.has_cut(SESSION, "c0ffee01")
    assert store.db.execute("SELECT count(*) FROM messages").fetchone() == (0,)
    assert store.search('"first"', session_id=None, cut_id=None, limit=5) == []


def test_storing_a_cut_again_replaces_it(store: Store) -> None:
    store.add(_cut(), _messages("alpha beta", "gamma"))
    store.add(_cut(), _messages("delta"))
    assert [h.snippet for h in store.search('"delta"', session_id=None, cut_id=None, limit=5)]
    assert store.search('"alpha"', session_id=None, cut_id=None, limit=5) == []
    assert store.cuts(SESSION)[0].messages == 1


def test_best_match_first_with_snippets(tmp_path: Path, store: Store) -> None:
    store.add(
        _cut(),
        _messages("the parser fails on quoted commas", "parser parser parser", "nothing here"),
    )
    store.close()
    results = search("parser", store_path=store.path)
    assert [h.uuid for h in results.hits] == ["m001-uuid", "m000-uuid"]
    assert results.match == "all"
    assert "«parser»" in results.hits[1].snippet


def test_no_message_with_every_word_falls_back_to_any(store: Store) -> None:
    store.add(_cut(), _messages("invoice numbering", "vat rounding"))
    store.close()
    results = search("invoice rounding", store_path=store.path)
    assert results.match == "any" and len(results.hits) == 2


@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "AND", "NOT x", "a OR", "NEAR(a b", "col:x", "x^", "a -b", "'; DROP"],
)
def test_fts_syntax_in_a_query_is_taken_as_words(store: Store, query: str) -> None:
    store.add(_cut(), _messages("a b x unbalanced AND NOT OR NEAR col x DROP"))
    store.close()
    results = search(query, store_path=store.path)  # never an sqlite3 error
    assert results.hits


BAD = [('"', 5), ("   ", 5), ("*", 5), ("(((", 5), ("x", 0), ("x", 999)]


@pytest.mark.parametrize(("query", "limit"), BAD)
def test_bad_queries_are_keepd_errors(store: Store, query: str, limit: int) -> None:
    store.add(_cut(), _messages("x"))
    store.close()
    with pytest.raises(RecallQueryError):
        search(query, limit=limit, store_path=store.path)


def test_a_prefix_query(store: Store) -> None:
    store.add(_cut(), _messages("reconciliation of accounts"))
    store.close()
    assert search("reconcil*", store_path=store.path).hits


def test_sessions_and_cuts_by_prefix(store: Store) -> None:
    other = "77777777-0000-4000-8000-000000000002"
    store.add(_cut("aaaa1111"), _messages("shared word", prefix="a"))
    store.add(_cut("bbbb2222", other), _messages("shared word", prefix="b"))
    store.close()
    assert len(search("shared", store_path=store.path).hits) == 2
    assert {h.session_id for h in search("shared", session="7777", store_path=store.path).hits} == {
        other
    }
    assert len(search("shared", cut="aaaa", store_path=store.path).hits) == 1
    with pytest.raises(NotRecalledError, match="no stored cut"):
        search("shared", cut="cccc", store_path=store.path)
    with pytest.raises(NotRecalledError, match="nothing is stored for the session"):
        search("shared", session="9999", store_path=store.path)


def test_one_message_by_uuid_or_prefix(store: Store) -> None:
    store.add(_cut(), _messages("one", "two"))
    store.close()
    assert fetch("m001-uuid", store_path=store.path).text == "two"
    assert fetch("m001", store_path=store.path).text == "two"
    with pytest.raises(NotRecalledError, match="several"):
        fetch("m00", store_path=store.path)
    with pytest.raises(NotRecalledError, match="no stored message"):
        fetch("zzz", store_path=store.path)


def test_dropping_a_cut_takes_its_words_out_of_the_index(store: Store) -> None:
    store.add(_cut(), _messages("ephemeral"))
    assert store.drop(SESSION, "c0ffee01") == 1
    assert store.search('"ephemeral"', session_id=None, cut_id=None, limit=5) == []
    assert store.db.execute("SELECT count(*) FROM messages_fts").fetchone() == (0,)


def test_a_store_made_by_a_newer_keepd_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 99")
    with pytest.raises(RecallError, match="newer keepd"):
        Store(path)


def test_no_store_yet_is_said_plainly(tmp_path: Path) -> None:
    with pytest.raises(NotRecalledError, match="nothing is stored yet"):
        search("x", store_path=tmp_path / "none.sqlite3")


def test_stored_text_keeps_tool_calls_and_results_whole() -> None:
    big = "line\n" * 5000
    call = {
        "type": "assistant",
        "message": {
            "content": [
                {"type": "thinking", "thinking": "secret"},
                {"type": "tool_use", "name": "Write", "input": {"file_path": "/a", "content": big}},
            ]
        },
    }
    result = {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "content": [TEXT_OK]}]},
    }
    assert render(call) == f"[tool call Write] file_path: /a\ncontent: {big}"
    assert role(call) == "assistant" and role(result) == "tool"
    assert render(result) == "[tool result] ok"
    assert orjson.loads(dropped([{**call, "uuid": "u"}])[0].entry) == {**call, "uuid": "u"}


def test_an_emoji_query_finds_the_messages_that_hold_it(store: Store) -> None:
    """unicode61 indexes no emoji, so a query of symbols alone is matched as written."""
    store.add(_cut(), _messages("ship it 🚀 now", "the crab 🦀 and the rocket 🚀", "plain"))
    found = search("🚀", store_path=store.path)
    assert [hit.uuid for hit in found.hits] == ["m001-uuid", "m000-uuid"]  # newest first
    assert "🚀" in found.hits[0].snippet
    both = search("🦀 🚀", store_path=store.path)
    assert [hit.uuid for hit in both.hits] == ["m001-uuid"]
    assert search("🎉", store_path=store.path).hits == []
    assert [h.uuid for h in search("crab 🦀", store_path=store.path).hits] == ["m001-uuid"]
    with pytest.raises(RecallQueryError, match="no words"):
        search(' " ', store_path=store.path)
