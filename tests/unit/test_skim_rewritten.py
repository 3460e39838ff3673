"""A kept entry written twice before a partial compaction: the skim reads what a whole read does."""

from __future__ import annotations

from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState, read_current

_USER = (
    '{"type":"user","uuid":"%s","parentUuid":%s,"isSidechain":false,"sessionId":"s1",'
    '"cwd":"/p","version":"2.1.100","userType":"external",'
    '"timestamp":"2025-06-01T12:00:00.000Z","message":{"role":"user","content":"parser grammar"}}'
)
_BOUNDARY = (
    '{"type":"system","uuid":"e008","parentUuid":null,"isSidechain":false,"sessionId":"s1",'
    '"cwd":"/p","version":"2.1.100","userType":"external",'
    '"timestamp":"2025-06-01T12:00:00.000Z","content":"Conversation compacted","level":"info",'
    '"logicalParentUuid":"e007","compactMetadata":{"trigger":"auto","preTokens":160000,'
    '"preservedMessages":{"anchorUuid":"e008","uuids":["e000","e001"]}},'
    '"subtype":"compact_boundary"}'
)


def _session() -> bytes:
    # e000 written again after e001 (as a resume may rewrite it); nothing after the boundary.
    lines = [_USER % ("e000", "null"), _USER % ("e001", '"e000"'), _USER % ("e000", "null")]
    lines += [_USER % (f"e00{k}", f'"e00{k - 1}"') for k in range(2, 8)]
    return ("\n".join([*lines, _BOUNDARY]) + "\n").encode()


def test_the_context_ends_at_the_last_kept_entry_whichever_copy_is_newest() -> None:
    whole = SessionState()
    whole.feed(_session())
    whole.finish()
    skimmed = read_current(_session())
    for state in (whole, skimmed):
        assert [node.uuid for node in state.branch().messages] == ["e000", "e001"]
    assert analyse_state(skimmed).to_dict() == analyse_state(whole).to_dict()
