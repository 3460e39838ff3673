"""EntryReader: appended bytes in, whole entries out; half-written and bad lines never fatal."""

from __future__ import annotations

import json

import orjson

from keepd.core.entries import EntryReader

from .builders import Chain, jsonl, line


def _session() -> list[dict[str, object]]:
    chain = Chain()
    chain.turn("plan the parser", "Here is a plan for the parser.", context=1200)
    chain.tool_call("pytest -q", "3 passed")
    return list(chain.entries)


def test_whole_lines_become_entries_in_order() -> None:
    entries = _session()
    reader = EntryReader()
    assert reader.feed(jsonl(entries)) == entries
    assert reader.pending_bytes == 0
    assert reader.skipped == 0
    assert reader.consumed == len(jsonl(entries))


def test_empty_feed_is_nothing() -> None:
    reader = EntryReader()
    assert reader.feed(b"") == []
    assert reader.finish() == []
    assert (reader.pending_bytes, reader.skipped, reader.consumed) == (0, 0, 0)


def test_half_written_last_line_is_held_back_then_completed() -> None:
    first, second = _session()[:2]
    data = line(first) + line(second)
    cut = len(line(first)) + 10
    reader = EntryReader()
    assert reader.feed(data[:cut]) == [first]
    assert reader.pending_bytes == 10
    assert reader.consumed == len(line(first))
    assert reader.feed(data[cut:]) == [second]
    assert reader.pending_bytes == 0
    assert reader.skipped == 0
    assert reader.consumed == len(data)


def test_line_split_across_three_feeds() -> None:
    entry = _session()[1]
    data = line(entry)
    a, b = len(data) // 3, 2 * len(data) // 3
    reader = EntryReader()
    assert reader.feed(data[:a]) == []
    assert reader.pending_bytes == a
    assert reader.feed(data[a:b]) == []
    assert reader.pending_bytes == b
    assert reader.feed(data[b:]) == [entry]
    assert reader.pending_bytes == 0
    assert reader.skipped == 0


def test_every_split_point_gives_the_same_entries() -> None:
    entries = _session()
    data = jsonl(entries)
    for cut in range(len(data) + 1):
        reader = EntryReader()
        got = reader.feed(data[:cut]) + reader.feed(data[cut:])
        assert got == entries, cut
        assert reader.pending_bytes == 0


def test_garbage_and_non_objects_are_counted_and_skipped() -> None:
    entry = _session()[0]
    data = (
        b"not json at all\n"
        + line(entry)
        + b'{"type":"user", "broken\n'
        + b"[1, 2, 3]\n"
        + b'"a string"\n'
        + b"42\n"
        + b"null\n"
        + b"true\n"
        + line(entry)
    )
    reader = EntryReader()
    assert reader.feed(data) == [entry, entry]
    assert reader.skipped == 7
    assert reader.pending_bytes == 0


def test_blank_lines_are_neither_entries_nor_skipped() -> None:
    entry = _session()[0]
    reader = EntryReader()
    got = reader.feed(b"\n\n   \n\t\n" + line(entry) + b"\r\n\n" + line(entry) + b"\n  \n")
    assert got == [entry, entry]
    assert reader.skipped == 0


def test_crlf_line_endings_parse() -> None:
    entry = _session()[0]
    reader = EntryReader()
    assert reader.feed(line(entry).rstrip(b"\n") + b"\r\n") == [entry]
    assert reader.skipped == 0


def test_finish_parses_a_last_line_without_newline() -> None:
    first, second = _session()[:2]
    reader = EntryReader()
    assert reader.feed(line(first) + line(second).rstrip(b"\n")) == [first]
    assert reader.pending_bytes == len(line(second)) - 1
    assert reader.finish() == [second]
    assert reader.pending_bytes == 0
    assert reader.consumed == len(line(first)) + len(line(second)) - 1


def test_finish_counts_a_truncated_last_line_as_skipped() -> None:
    entry = _session()[0]
    reader = EntryReader()
    assert reader.feed(line(entry) + b'{"type":"assistant","mess') == [entry]
    assert reader.finish() == []
    assert reader.skipped == 1
    assert reader.pending_bytes == 0


def test_finish_with_nothing_pending_is_nothing() -> None:
    entry = _session()[0]
    reader = EntryReader()
    assert reader.feed(line(entry)) == [entry]
    assert reader.finish() == []
    assert reader.skipped == 0


def test_two_megabyte_line_fed_in_small_chunks_is_held_until_its_newline() -> None:
    big_text = "parser " * (2 * 1024 * 1024 // 7)
    entry = {"type": "user", "uuid": "big", "message": {"content": big_text}}
    data = json.dumps(entry, separators=(",", ":")).encode()
    assert len(data) > 2 * 1024 * 1024
    reader = EntryReader()
    chunk = 4096
    for start in range(0, len(data), chunk):
        assert reader.feed(data[start : start + chunk]) == []
        assert reader.pending_bytes == min(start + chunk, len(data))
    assert reader.consumed == 0
    assert reader.feed(b"\n") == [entry]
    assert reader.pending_bytes == 0
    assert reader.consumed == len(data) + 1
    assert reader.skipped == 0


def test_two_megabyte_line_without_newline_is_read_by_finish() -> None:
    entry = {"type": "user", "uuid": "big", "message": {"content": "x" * (2 * 1024 * 1024)}}
    data = json.dumps(entry, separators=(",", ":")).encode()
    reader = EntryReader()
    for start in range(0, len(data), 65536):
        assert reader.feed(data[start : start + 65536]) == []
    assert reader.pending_bytes == len(data)
    assert reader.finish() == [entry]


def test_invalid_utf8_line_is_skipped_and_its_neighbours_kept() -> None:
    first, second = _session()[:2]
    bad = b'{"type":"user","message":{"content":"caf\xe9 \xff\xfe"}}\n'
    reader = EntryReader()
    assert reader.feed(line(first) + bad + line(second)) == [first, second]
    assert reader.skipped == 1


def test_invalid_utf8_split_across_feeds_does_not_raise() -> None:
    first = _session()[0]
    reader = EntryReader()
    assert reader.feed(b"\xc3") == []
    assert reader.feed(b"\x28\n" + line(first)) == [first]
    assert reader.skipped == 1


def test_multibyte_character_split_between_feeds_is_reassembled() -> None:
    entry = {"type": "user", "uuid": "u1", "message": {"content": "café ünïcödé 日本語"}}
    data = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    split = data.index("日".encode()) + 1
    reader = EntryReader()
    assert reader.feed(data[:split]) == []
    assert reader.feed(data[split:]) == [entry]
    assert reader.skipped == 0


def _tool_result_line(copy: object, *, after: dict[str, object] | None = None) -> bytes:
    """A tool result's line as Claude Code writes it: the `toolUseResult` copy near the end."""
    entry: dict[str, object] = {
        "parentUuid": "a1",
        "isSidechain": False,
        "type": "user",
        "message": {
            "role": "user",
            # long enough that parse_lean splits it (shorter lines are parsed whole)
            "content": [{"tool_use_id": "t1", "type": "tool_result", "content": "x" * 5000}],
        },
        "uuid": "u1",
        "timestamp": "2026-01-01T00:00:00Z",
        "toolUseResult": copy,
    }
    if after is None:
        after = {"sourceToolAssistantUUID": "a1", "cwd": "/w", "sessionId": "s1"}
    entry.update(after)
    return orjson.dumps(entry)


def test_lean_parse_leaves_out_only_the_tool_result_copy() -> None:
    line = _tool_result_line({"stdout": "y" * 5000, "nested": {"toolUseResult": [1, {"a": 2}]}})
    full = orjson.loads(line)
    lean = EntryReader().parse_lean(memoryview(line))
    assert lean is not None
    del full["toolUseResult"]
    assert lean == full


def test_lean_parse_of_a_copy_that_ends_the_line() -> None:
    line = _tool_result_line("z" * 4000, after={})
    lean = EntryReader().parse_lean(line)
    assert lean is not None and "toolUseResult" not in lean and lean["uuid"] == "u1"


def test_lean_parse_falls_back_when_the_key_is_nested_first() -> None:
    # A content block with its own "toolUseResult" key comes before the top-level one: the
    # split lands inside a nested value, the head does not parse, the line is read whole.
    entry = orjson.loads(_tool_result_line({"k": "v"}))
    entry["message"]["content"][0]["extra"] = {"a": 1, "toolUseResult": 1}
    entry["message"]["content"].append({"type": "text", "text": "w" * 3000})
    line = orjson.dumps(entry)
    assert EntryReader().parse_lean(line) == entry


def test_lean_parse_reads_whole_a_line_missing_what_keepd_needs() -> None:
    entry = orjson.loads(_tool_result_line({"k": "v"}, after={}))
    uuid = entry.pop("uuid")
    entry["uuid"] = uuid  # now after the copy, with no known key before it: parsed whole
    line = orjson.dumps(entry)
    assert EntryReader().parse_lean(line) == entry


def test_lean_parse_takes_the_known_keys_after_the_copy() -> None:
    entry = orjson.loads(_tool_result_line({"k": "v"}))
    uuid = entry.pop("uuid")
    entry["uuid"] = uuid  # after the copy, behind a key known to follow it
    lean = EntryReader().parse_lean(orjson.dumps(entry))
    del entry["toolUseResult"]
    assert lean == entry


def test_lean_parse_of_garbage_counts_it_once() -> None:
    reader = EntryReader()
    line = _tool_result_line({"k": "v"})[:-40]
    assert reader.parse_lean(line) is None
    assert reader.skipped == 1


def test_short_lines_are_parsed_whole() -> None:
    entry = orjson.loads(_tool_result_line({"k": "v"}))
    entry["message"]["content"][0]["content"] = "short"
    assert EntryReader().parse_lean(orjson.dumps(entry)) == entry  # the copy kept


def test_lines_are_views_of_the_fed_bytes_and_survive_a_held_piece() -> None:
    reader = EntryReader()
    assert reader.lines(b'{"a":1}\n\n{"b"') == [memoryview(b'{"a":1}')]
    lines = reader.lines(b':2}\n{"c":3}\n')
    assert [bytes(line) for line in lines] == [b'{"b":2}', b'{"c":3}']
    assert reader.consumed == len(b'{"a":1}\n\n{"b":2}\n{"c":3}\n')


def _progress_line(data: object) -> bytes:
    return orjson.dumps(
        {
            "parentUuid": "a1",
            "isSidechain": False,
            "type": "progress",
            "data": data,
            "toolUseID": "t1",
            "parentToolUseID": "t1",
            "uuid": "p1",
            "timestamp": "2026-01-01T00:00:00Z",
        }
    )


def test_lean_parse_leaves_out_a_progress_entrys_data_and_keeps_its_uuid() -> None:
    # The nested message repeats the keys that follow `data`: only the top-level ones count.
    nested = {"message": {"content": "o" * 5000, "toolUseID": "x", "parentToolUseID": "y"}}
    line = _progress_line(nested)
    lean = EntryReader().parse_lean(line)
    full = orjson.loads(line)
    del full["data"]
    assert lean == full


def test_lean_parse_reads_whole_an_entry_of_another_kind_with_the_same_key() -> None:
    entry = orjson.loads(_progress_line({"k": "v" * 5000}))
    entry["type"] = "user"
    line = orjson.dumps(entry)
    assert EntryReader().parse_lean(line) == entry


def test_a_type_that_is_not_a_string_never_breaks_the_read() -> None:
    from keepd.core.session import SessionState, read_current

    head = b'{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w","message":{"content":"go"}}\n'
    odd = [
        b'{"type":["user"],"uuid":"x1","parentUuid":"u1"}',
        b'{"type":{"a":1},"uuid":"x2","parentUuid":"x1"}',
        b'{"type":"attachment","uuid":"x3","parentUuid":"x2","attachment":{"type":[]},'
        b'"rendered":[{"content":"a"}]}',
    ]
    data = head + b"\n".join(odd) + b"\n"
    state = SessionState()
    state.feed(data)
    assert [node.kind for node in state.tree.nodes] == ["user", "unknown", "unknown", "attachment"]
    boundary = b'{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null}\n'
    after = b'{"type":"user","uuid":"u2","parentUuid":"b","message":{"content":"on"}}\n'
    assert read_current(data + boundary + after).tree.session_id == "s"  # the skim reads them
