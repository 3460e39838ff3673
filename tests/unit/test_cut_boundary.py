"""The boundary and summary lines: Claude Code's fields, order and separators; the anchors."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from keepd.cut.boundary import (
    BOUNDARY_PREFIX,
    SCAN_BYTES,
    boundary_entry,
    boundary_line,
    compose,
    envelope,
    plain_line,
)
from keepd.cut.model import Placement

# A 2.1.81 boundary from the corpus, its values made up, its keys and their order as written.
REAL_2_1_81 = (
    b'{"parentUuid":null,"logicalParentUuid":"905cce40-d1f3-480b-a8b9-07f154551b9f",'
    b'"isSidechain":false,"type":"system","subtype":"compact_boundary",'
    b'"content":"Conversation compacted","isMeta":false,"timestamp":"2026-03-26T10:10:15.432Z",'
    b'"uuid":"2affe176-47b2-4fd5-8705-32a09a83f82c","level":"info",'
    b'"compactMetadata":{"trigger":"auto","preTokens":167753},"userType":"external",'
    b'"entrypoint":"cli","cwd":"/Users/me/metrics","sessionId":"ce612337-7a9b-45a6-8d07-'
    b'03b0b8a10576","version":"2.1.81","gitBranch":"main","slug":"whimsical-wibbling-creek"}'
)
LAST: dict[str, Any] = {
    "parentUuid": "p",
    "type": "assistant",
    "uuid": "last-uuid",
    "userType": "external",
    "entrypoint": "cli",
    "cwd": "/Users/me/metrics",
    "sessionId": "sess",
    "version": "2.1.81",
    "gitBranch": "main",
    "slug": "whimsical-wibbling-creek",
}


def _compose(placement: Placement, kept: list[str], summary: str | None = "the gist") -> Any:
    return compose(
        placement,
        kept,
        summary if placement.has_summary else None,
        last_entry=LAST,
        session_id="sess",
        pre_tokens=150_000,
        post_tokens=40_000,
    )


def _lines(payload: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in payload.splitlines()]


def test_boundary_has_claude_codes_keys_in_its_order_with_type_first() -> None:
    written = _compose(Placement.NONE, ["a", "b"])
    ours = list(_lines(written.payload)[0])
    real = list(orjson.loads(REAL_2_1_81))
    assert ours[0] == "type"
    assert ours[1:] == [key for key in real if key != "type"]


def test_boundary_line_is_compact_and_found_by_claude_codes_scan() -> None:
    line = _compose(Placement.LAST, ["a"]).payload.splitlines()[0]
    assert line.startswith(BOUNDARY_PREFIX + b',"parentUuid":null,"logicalParentUuid":"last-uuid"')
    assert b'"compact_boundary"' in line[:SCAN_BYTES]
    assert orjson.dumps(orjson.loads(line)) == line  # no spaces after separators
    assert b": " not in line[:SCAN_BYTES] and b", " not in line[:SCAN_BYTES]


def test_real_boundary_is_what_orjson_writes() -> None:
    """Why orjson: it reproduces Claude Code's separators (all 17,905 corpus lines, too)."""
    assert orjson.dumps(orjson.loads(REAL_2_1_81)) == REAL_2_1_81


def test_metadata_is_a_manual_compaction_with_preserved_messages() -> None:
    written = _compose(Placement.NONE, ["a", "b"])
    meta = _lines(written.payload)[0]["compactMetadata"]
    assert meta == {
        "trigger": "manual",
        "preTokens": 150_000,
        "postTokens": 40_000,
        "preservedMessages": {"anchorUuid": written.boundary_uuid, "uuids": ["a", "b"]},
    }


@pytest.mark.parametrize(
    ("placement", "anchor_is_summary", "intended", "tail"),
    [
        (Placement.FIRST, True, ["S", "a", "b"], "b"),
        (Placement.LAST, False, ["a", "b", "S"], "S"),
        (Placement.NONE, False, ["a", "b"], "b"),
        (Placement.EMPTY, False, [], "B"),
    ],
)
def test_the_seeds_table_of_anchors(
    placement: Placement, anchor_is_summary: bool, intended: list[str], tail: str
) -> None:
    written = _compose(placement, ["a", "b"])
    lines = _lines(written.payload)
    boundary = lines[0]
    names = {written.boundary_uuid: "B", written.summary_uuid: "S"}
    kept = boundary["compactMetadata"]["preservedMessages"]
    assert kept["uuids"] == ([] if placement is Placement.EMPTY else ["a", "b"])
    assert (kept["anchorUuid"] == written.summary_uuid) is anchor_is_summary
    assert [names.get(u, u) for u in written.intended] == intended
    assert names.get(written.tail, written.tail) == tail
    assert len(lines) == (2 if placement.has_summary else 1)


def test_summary_line_follows_the_boundary_as_claude_codes_own() -> None:
    written = _compose(Placement.FIRST, ["a"])
    summary = _lines(written.payload)[1]
    assert list(summary)[:8] == [
        "parentUuid",
        "isSidechain",
        "type",
        "message",
        "isVisibleInTranscriptOnly",
        "isCompactSummary",
        "uuid",
        "timestamp",
    ]
    assert summary["parentUuid"] == written.boundary_uuid
    assert summary["message"] == {"role": "user", "content": "the gist"}
    assert summary["isCompactSummary"] is True and summary["sessionId"] == "sess"


def test_compact_boundary_in_a_summary_is_escaped_but_reads_the_same() -> None:
    text = 'we discussed "compact_boundary" lines'
    line = plain_line({"type": "user", "message": {"content": text}})
    assert b"compact_boundary" not in line
    assert orjson.loads(line)["message"]["content"] == text


def test_envelope_copies_the_session_fields_in_order() -> None:
    fields = envelope({"slug": "s", "cwd": "/w", "other": 1, "version": "2.1.9"}, "sid")
    expected = [("cwd", "/w"), ("sessionId", "sid"), ("version", "2.1.9"), ("slug", "s")]
    assert list(fields.items()) == expected


def test_a_line_without_its_subtype_early_is_refused() -> None:
    entry = boundary_entry(
        uuid="u",
        logical_parent="x" * 300,
        anchor="u",
        preserved=[],
        pre_tokens=1,
        post_tokens=1,
        fields={},
        timestamp="t",
    )
    with pytest.raises(ValueError, match="subtype"):
        boundary_line(entry)


def test_a_summary_placement_needs_a_summary() -> None:
    with pytest.raises(ValueError, match="summary"):
        _compose(Placement.LAST, ["a"], summary=None)
