"""Sessions on which the skimmed and the whole read once disagreed, found by random sessions
(test_skim.py, scripts/fuzz.py) or by reading what the skim leaves out: each made small, each
analysed alike either way."""

from __future__ import annotations

from keepd.core.analysis import analyse_state
from keepd.core.session import SessionState, read_current
from tests.unit.builders import (
    assistant,
    attachment,
    compact_boundary,
    jsonl,
    tool_result,
    usage,
    user,
)


def _whole(data: bytes) -> SessionState:
    state = SessionState()
    state.feed(data)
    state.finish()
    return state


def _unanchored() -> bytes:
    """A prompt, a reply that counts its context, a full compaction, and the prompt's line
    written again after it (no parent: the current context is that prompt alone, under no
    boundary, and the newest count of the context is the reply's, before the boundary)."""
    prompt = user("e000", None, "parser grammar")
    reply = assistant("e001", "e000", "tokenizer notes", msg_id="msg_1", usage_=usage(90_000))
    return jsonl([prompt, reply, compact_boundary("e002", "e001"), prompt])


def test_a_context_under_no_boundary_counts_what_came_before_it() -> None:
    data = _unanchored()
    whole, skimmed = _whole(data), read_current(data)
    for state in (whole, skimmed):
        assert [node.uuid for node in state.branch().messages] == ["e000"]
        assert analyse_state(state).context["tokens"] == 90_000
    assert not skimmed.tree.partial  # the skim gave way to the whole read
    assert analyse_state(skimmed).to_dict() == analyse_state(whole).to_dict()


def _response_across_the_boundary() -> bytes:
    """A reply kept by a partial compaction, its tool result not kept, and after the boundary
    another line of the same response: the loader pulls the reply's results in with it, the
    one passed over too."""
    entries = [
        user("u1", None, "parser grammar"),
        assistant("a1", "u1", "tokenizer notes", msg_id="msg_6"),
        tool_result("r1", "a1", "toolu_1", "ok"),
        compact_boundary("b", None, preserved=("b", ["u1", "a1"])),
        assistant("a2", "b", "tokenizer notes", msg_id="msg_6"),
        user("u2", "a2", "docs screenshots"),
    ]
    return jsonl(entries)


def test_the_results_of_a_kept_reply_are_pulled_in_from_before_the_boundary() -> None:
    data = _response_across_the_boundary()
    whole, skimmed = _whole(data), read_current(data)
    for state in (whole, skimmed):
        assert "r1" in [node.uuid for node in state.branch().messages]
    assert not skimmed.tree.partial
    assert analyse_state(skimmed).to_dict() == analyse_state(whole).to_dict()


def _kept_prompt_under_the_persons_attachment() -> bytes:
    """Lines the person selected in the IDE, then the prompt under them, kept by a partial
    compaction without them: the prompt's counted text includes the selection's."""
    selection = "tokenizer lexer grammar.py lines 10-40"
    entries = [
        user("u0", None, "start the parser"),
        assistant("a0", "u0", "ok", msg_id="msg_0"),
        attachment("t1", "a0", "selected_lines_in_ide", selection),
        user("u1", "t1", "parser grammar"),
        assistant("a1", "u1", "tokenizer notes", msg_id="msg_1"),
        compact_boundary("b", None, preserved=("b", ["u1", "a1"])),
        user("u2", "b", "docs screenshots"),
        assistant("a2", "u2", "done", msg_id="msg_2"),
    ]
    return jsonl(entries)


def test_a_kept_prompt_takes_the_text_of_the_attachment_it_hangs_under() -> None:
    """Found by reading `Tree.add`: the skim added the kept prompt without the attachment
    before it, whose text a whole read hands on to the prompt."""
    data = _kept_prompt_under_the_persons_attachment()
    whole, skimmed = _whole(data), read_current(data)
    assert skimmed.tree.partial  # read for the attachment's line, not the whole file
    chars = [state.tree.by_uuid["u1"].chars for state in (whole, skimmed)]
    assert chars[0] == chars[1] > len("parser grammar") + len("tokenizer lexer grammar.py")
    assert analyse_state(skimmed).to_dict() == analyse_state(whole).to_dict()
