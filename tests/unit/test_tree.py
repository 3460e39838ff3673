"""The conversation the model sees, rebuilt from the entry tree (sessions.md and the seed)."""

from __future__ import annotations

from collections.abc import Sequence

from keepd.core.tree import Branch, Scope

from .builders import (
    Chain,
    Entry,
    assistant,
    compact_boundary,
    compact_summary,
    old_summary,
    progress,
    sidechain,
    system,
    text,
    tool_result,
    tool_result_block,
    tool_use_block,
    tree_of,
    user,
)


def _branch(entries: Sequence[Entry], scope: Scope = Scope.CURRENT) -> Branch:
    return tree_of(entries).branch(scope)


def _ids(branch: Branch) -> list[str | None]:
    return [node.uuid for node in branch.messages]


def _stop_ids(branch: Branch) -> list[str | None]:
    return [branch.messages[i].uuid for i in branch.stops]


def _history() -> list[Entry]:
    """Two turns before any compaction: U1 A1 U2 A2."""
    return [
        user("U1", None, "plan the parser for session files"),
        assistant("A1", "U1", "Here is a plan for the parser.", msg_id="m1"),
        user("U2", "A1", "now write tests for the parser"),
        assistant("A2", "U2", "Tests written for the parser.", msg_id="m2"),
    ]


# Plain branches


def test_empty_tree_has_an_empty_branch() -> None:
    branch = _branch([])
    assert branch.messages == [] and branch.stops == [] and branch.boundary is None


def test_linear_chain_is_the_whole_file() -> None:
    entries = [
        *_history(),
        assistant("A2t", "A2", [tool_use_block("t1", command="pytest")], msg_id="m3"),
        tool_result("R1", "A2t", "t1", "3 passed"),
        assistant("A3", "R1", "All tests pass.", msg_id="m4"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2", "A2", "A2t", "R1", "A3"]
    assert _stop_ids(branch) == ["U1", "U2"]
    assert branch.boundary is None
    assert _ids(_branch(entries, Scope.WHOLE)) == _ids(branch)


def test_rewind_leaves_the_old_branch_out() -> None:
    entries = [
        *_history(),
        user("U3", "A2", "and the docs too"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
        # Esc Esc back to U2, edited: the new prompt hangs under U2's parent.
        user("U2b", "A1", "write tests for the tree instead"),
        assistant("A2b", "U2b", "Tree tests written.", msg_id="m2b"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2b", "A2b"]
    assert _stop_ids(branch) == ["U1", "U2b"]


def test_the_newest_leaf_wins() -> None:
    entries = [
        *_history(),
        user("U3", "A2", "and the docs too"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
        user("U2b", "A1", "write tests for the tree instead"),
        assistant("A2b", "U2b", "Tree tests written.", msg_id="m2b"),
        # The user resumes the old branch: its newest entry is the leaf again.
        user("U4", "A3", "back to the docs"),
        assistant("A4", "U4", "Docs extended.", msg_id="m4"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2", "A2", "U3", "A3", "U4", "A4"]
    assert "U2b" not in _ids(branch)


def _parallel(next_parent: str) -> list[Entry]:
    return [
        user("U1", None, "run the linters and the tests"),
        assistant("A1a", "U1", "Running both.", msg_id="m1"),
        assistant("A1b", "A1a", [tool_use_block("t1", command="ruff check")], msg_id="m1"),
        assistant("A1c", "A1b", [tool_use_block("t2", command="pytest")], msg_id="m1"),
        tool_result("R1", "A1b", "t1", "All checks passed"),
        tool_result("R2", "A1c", "t2", "3 passed"),
        assistant("A2", next_parent, "Both are clean.", msg_id="m2"),
    ]


def test_parallel_tool_calls_next_reply_under_the_last_result() -> None:
    branch = _branch(_parallel("R2"))
    assert _ids(branch) == ["U1", "A1a", "A1b", "A1c", "R1", "R2", "A2"]
    assert _stop_ids(branch) == ["U1"]


def test_parallel_tool_calls_next_reply_under_the_first_result() -> None:
    branch = _branch(_parallel("R1"))
    assert _ids(branch) == ["U1", "A1a", "A1b", "A1c", "R1", "R2", "A2"]


def test_parallel_tool_calls_whole_scope_too() -> None:
    assert _ids(_branch(_parallel("R1"), Scope.WHOLE)) == [
        "U1",
        "A1a",
        "A1b",
        "A1c",
        "R1",
        "R2",
        "A2",
    ]


def test_broken_chain_falls_back_to_file_order() -> None:
    entries = [
        *_history(),
        user("U3", "not-in-this-file", "and the docs too"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2", "A2", "U3", "A3"]
    assert _stop_ids(branch) == ["U1", "U2", "U3"]


def test_broken_chain_in_the_middle_loses_nothing() -> None:
    entries = [
        user("U1", None, "plan the parser"),
        assistant("A1", "gone-1", "Plan.", msg_id="m1"),
        user("U2", "gone-2", "write tests"),
        assistant("A2", "U2", "Tests.", msg_id="m2"),
    ]
    assert _ids(_branch(entries)) == ["U1", "A1", "U2", "A2"]


def test_progress_and_system_entries_are_walked_through_but_are_not_messages() -> None:
    entries = [
        user("U1", None, "plan the parser"),
        progress("P1", "U1"),
        assistant("A1", "P1", "Plan.", msg_id="m1"),
        system("S1", "A1", "turn_duration", durationMs=1200),
        system("S2", "S1", "stop_hook_summary"),
        user("U2", "S2", "write tests"),
        progress("P2", "U2"),
        assistant("A2", "P2", "Tests.", msg_id="m2"),
        {"type": "file-history-snapshot", "messageId": "x", "snapshot": {}},
        {"type": "last-prompt", "lastPrompt": "write tests"},
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2", "A2"]
    assert all(node.is_message for node in branch.messages)
    assert _stop_ids(branch) == ["U1", "U2"]


def test_sidechain_entries_in_the_main_file_stay_out() -> None:
    entries = [
        *_history(),
        sidechain(user("X1", None, "search the code for parsers")),
        sidechain(assistant("X2", "X1", "Found two parsers.", msg_id="mx")),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2", "A2"]
    assert not tree_of(entries).sidechain_only


def test_old_style_summary_lines_are_ignored() -> None:
    entries = [old_summary("A2"), *_history(), old_summary("A1", "Another title")]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "U2", "A2"]
    assert _stop_ids(branch) == ["U1", "U2"]
    assert branch.boundary is None


def test_sub_agent_only_file_yields_its_messages_without_stops() -> None:
    entries = [
        sidechain(user("X1", None, "search the code for parsers")),
        sidechain(assistant("X2", "X1", [tool_use_block("t1", pattern="parse")], msg_id="mx1")),
        sidechain(tool_result("X3", "X2", "t1", "keepd/core/entries.py")),
        sidechain(assistant("X4", "X3", "Found entries.py.", msg_id="mx2")),
    ]
    tree = tree_of(entries)
    assert tree.sidechain_only
    branch = tree.branch()
    assert _ids(branch) == ["X1", "X2", "X3", "X4"]
    assert branch.stops == []


# Compaction


def _full_compaction() -> list[Entry]:
    return [
        *_history(),
        progress("P2", "A2"),
        compact_boundary("B", "P2", post_tokens=9000),
        compact_summary("S", "B"),
        user("U3", "S", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]


def test_full_compaction_current_scope_is_the_summary_and_what_followed() -> None:
    branch = _branch(_full_compaction())
    assert _ids(branch) == ["S", "U3", "A3"]
    assert _stop_ids(branch) == ["U3"]
    assert branch.boundary is not None and branch.boundary.uuid == "B"


def test_full_compaction_whole_scope_is_as_if_never_compacted() -> None:
    branch = _branch(_full_compaction(), Scope.WHOLE)
    assert _ids(branch) == ["U1", "A1", "U2", "A2", "U3", "A3"]
    assert _stop_ids(branch) == ["U1", "U2", "U3"]
    assert branch.boundary is None


def test_whole_scope_bridges_a_logical_parent_that_points_nowhere() -> None:
    entries = [
        *_history(),
        compact_boundary("B", "not-in-this-file"),
        compact_summary("S", "B"),
        user("U3", "S", "continue with the docs"),
    ]
    assert _ids(_branch(entries, Scope.WHOLE)) == ["U1", "A1", "U2", "A2", "U3"]


def test_right_after_a_boundary_there_is_only_the_summary() -> None:
    entries = [*_history(), compact_boundary("B", "A2"), compact_summary("S", "B")]
    branch = _branch(entries)
    assert _ids(branch) == ["S"]
    assert branch.stops == []
    assert branch.boundary is not None and branch.boundary.uuid == "B"


def test_two_boundaries_the_last_one_wins() -> None:
    entries = [
        *_full_compaction(),
        compact_boundary("B2", "A3"),
        compact_summary("S2", "B2", "This session is being continued... second summary."),
        user("U4", "S2", "now the release notes"),
        assistant("A4", "U4", "Release notes written.", msg_id="m4"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S2", "U4", "A4"]
    assert _stop_ids(branch) == ["U4"]
    assert branch.boundary is not None and branch.boundary.uuid == "B2"
    whole = _branch(entries, Scope.WHOLE)
    assert _ids(whole) == ["U1", "A1", "U2", "A2", "U3", "A3", "U4", "A4"]
    assert _stop_ids(whole) == ["U1", "U2", "U3", "U4"]


def _last_response_split() -> list[Entry]:
    """History whose last response spans two lines, A2a and A2b."""
    return [
        user("U1", None, "plan the parser for session files"),
        assistant("A1", "U1", "Here is a plan for the parser.", msg_id="m1"),
        user("U2", "A1", "now write tests for the parser"),
        assistant("A2a", "U2", [text("Writing the tests.")], msg_id="m2"),
        assistant("A2b", "A2a", [text("Tests written for the parser.")], msg_id="m2"),
    ]


def test_preserved_messages_anchored_at_the_summary() -> None:
    # /compact and "Summarize up to here": summary first, then the preserved, then the rest.
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "A2b"])),
        compact_summary("S", "B", full=False),
        user("U3", "S", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "A2a", "A2b", "U3", "A3"]
    assert _stop_ids(branch) == ["U3"]
    assert branch.boundary is not None and branch.boundary.uuid == "B"


def test_preserved_messages_are_taken_in_list_order() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["U2", "A2b", "A1"])),
        compact_summary("S", "B", full=False),
        user("U3", "S", "continue with the docs"),
    ]
    assert _ids(_branch(entries)) == ["S", "U2", "A2b", "A1", "U3"]


def test_preserved_messages_anchored_at_the_boundary() -> None:
    # "Summarize from here": the preserved first, then the summary, then the rest.
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("B", ["U1", "A1"])),
        compact_summary("S", "B", full=False),
        user("U3", "S", "write tests for the tree instead"),
        assistant("A3", "U3", "Tree tests written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["U1", "A1", "S", "U3", "A3"]
    assert _stop_ids(branch) == ["U1", "U3"]  # the resumed picker lists the kept prompt too


def test_preserved_messages_anchored_at_the_boundary_without_summary() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("B", ["U2", "A2a", "A2b"])),
        user("U3", "B", "go on"),
    ]
    assert _ids(_branch(entries)) == ["U2", "A2a", "A2b", "U3"]


def test_preserved_message_missing_from_the_file_makes_the_loader_give_up() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "not-in-this-file"])),
        compact_summary("S", "B", full=False),
        user("U3", "S", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "U3", "A3"]
    assert _stop_ids(branch) == ["U3"]


def test_empty_preserved_list_anchored_at_the_boundary_is_an_empty_context() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("B", [])),
        user("U3", "B", "start over"),
    ]
    assert _ids(_branch(entries)) == ["U3"]


def test_preserved_segment() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", segment=("U2", "S", "A2b")),
        compact_summary("S", "B", full=False),
        user("U3", "S", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "U2", "A2a", "A2b", "U3", "A3"]
    assert _stop_ids(branch) == ["U2", "U3"]  # the kept prompt is listed too


def test_preserved_segment_with_a_missing_end_gives_up() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", segment=("U2", "S", "not-in-this-file")),
        compact_summary("S", "B", full=False),
        user("U3", "S", "continue with the docs"),
    ]
    assert _ids(_branch(entries)) == ["S", "U3"]


def test_next_turn_under_the_last_preserved_message_is_relinked() -> None:
    # sessions.md: the loader relinks uuids[0] under the anchor and uuids[i] under uuids[i-1],
    # so a turn written after the last preserved message descends from the anchor.
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "A2b"])),
        compact_summary("S", "B", full=False),
        user("U3", "A2b", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "A2a", "A2b", "U3", "A3"]
    assert _stop_ids(branch) == ["U3"]
    assert branch.boundary is not None and branch.boundary.uuid == "B"


def test_next_turn_under_the_tail_of_a_preserved_segment_is_relinked() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", segment=("U2", "S", "A2b")),
        compact_summary("S", "B", full=False),
        user("U3", "A2b", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "U2", "A2a", "A2b", "U3", "A3"]
    assert _stop_ids(branch) == ["U2", "U3"]  # the kept prompt is listed too
    assert branch.boundary is not None and branch.boundary.uuid == "B"


def test_walk_reaching_an_unpreserved_message_before_the_anchor_stops_there() -> None:
    # The seed, gotcha 2: such a walk is treated as if it had hit the anchor.
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "A2b"])),
        compact_summary("S", "B", full=False),
        user("U3", "A1", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "A2a", "A2b", "U3", "A3"]
    assert branch.boundary is not None and branch.boundary.uuid == "B"


def test_rewind_after_a_partial_compaction_takes_the_newest_prompt() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "A2b"])),
        compact_summary("S", "B", full=False),
        user("U3", "A2b", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
        user("U3b", "A2b", "continue with the benchmarks instead"),
        assistant("A3b", "U3b", "Benchmarks written.", msg_id="m3b"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "A2a", "A2b", "U3b", "A3b"]
    assert _stop_ids(branch) == ["U3b"]


def test_whole_scope_after_a_partial_compaction_has_every_entry_once() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "A2b"])),
        compact_summary("S", "B", full=False),
        user("U3", "A2b", "continue with the docs"),
        assistant("A3", "U3", "Docs written.", msg_id="m3"),
    ]
    branch = _branch(entries, Scope.WHOLE)
    assert _ids(branch) == ["U1", "A1", "U2", "A2a", "A2b", "U3", "A3"]
    assert _stop_ids(branch) == ["U1", "U2", "U3"]


def test_parallel_tool_calls_after_a_partial_compaction_are_pulled_in() -> None:
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["A2a", "A2b"])),
        compact_summary("S", "B", full=False),
        user("U3", "S", "run the linters and the tests"),
        assistant("A3a", "U3", [tool_use_block("t1", command="ruff")], msg_id="m3"),
        assistant("A3b", "A3a", [tool_use_block("t2", command="pytest")], msg_id="m3"),
        tool_result("R1", "A3a", "t1", "clean"),
        tool_result("R2", "A3b", "t2", "passed"),
        assistant("A4", "R1", "Both clean.", msg_id="m4"),
    ]
    branch = _branch(entries)
    assert _ids(branch) == ["S", "A2a", "A2b", "U3", "A3a", "A3b", "R1", "R2", "A4"]


def test_summary_first_with_nothing_after_it_yet_ends_at_the_last_preserved() -> None:
    # A cut just written: boundary, then the summary as the anchor, no next turn yet. The
    # loader starts from the anchor's last descendant: the last preserved message.
    entries = [
        *_last_response_split(),
        compact_boundary("B", "A2b", preserved=("S", ["U2", "A2a", "A2b"])),
        compact_summary("S", "B", full=False),
    ]
    assert _ids(_branch(entries)) == ["S", "U2", "A2a", "A2b"]


def test_an_empty_preserved_list_empties_the_context() -> None:
    entries = [*_last_response_split(), compact_boundary("B", "A2b", preserved=("B", []))]
    assert _ids(_branch(entries)) == []
    following = [*entries, user("U3", "B", "start afresh")]
    assert _ids(_branch(following)) == ["U3"]
    assert _stop_ids(_branch(following)) == ["U3"]


def test_a_later_line_with_the_same_uuid_replaces_the_earlier() -> None:
    chain = Chain()
    chain.prompt("parser")
    call = chain.reply([tool_use_block("toolu_1", command="ls")])
    result = tool_result("r1", call, "toolu_1", "first")
    again = {**result, "message": {"role": "user", "content": [tool_result_block("toolu_1")]}}
    entries = [*chain.entries, result, again]
    tree = tree_of(entries)
    assert [node.pos for node in tree.children[call]] == [3]
    assert tree.by_uuid["r1"].pos == 3
    assert [node.pos for node in tree.branch().messages] == [0, 1, 3]
