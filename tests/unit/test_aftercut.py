"""What a cut leaves (core/aftercut.py): the files Claude Code reads back after "Summarize up to
here" and the context in tokens (checked against the real client:
tests/claude/test_after_cut.py)."""

from __future__ import annotations

import numpy as np

from keepd.core import aftercut, steps
from keepd.core.aftercut import FileTrail
from keepd.core.analysis import analyse_state
from keepd.core.limits import Setup
from keepd.core.session import SessionState
from tests.unit.builders import Chain, tool_result, tool_use_block


def _session(calls: list[tuple[str, str, int]]) -> tuple[Chain, list[str]]:
    """One prompt per call (tool, path, characters of its result or content)."""
    chain = Chain(prefix="f")
    prompts = []
    for number, (tool, path, size) in enumerate(calls):
        prompts.append(chain.prompt(f"Prompt {number}: work on {path}"))
        call = f"toolu_f{number}"
        arguments = {"file_path": path}
        if tool == "Write":
            arguments["content"] = "w" * size
        elif tool == "Edit":
            arguments |= {"old_string": "", "new_string": "e" * size}
        chain.reply([tool_use_block(call, tool, **arguments)], context=10_000 + 1000 * number)
        result = "r" * size if tool == "Read" else "done"
        chain.add(tool_result(f"f{number}-result", str(chain.last), call, result))
        chain.reply(f"Answer {number}", context=10_500 + 1000 * number)
    return chain, prompts


def _state(chain: Chain) -> SessionState:
    state = SessionState()
    state.feed(chain.jsonl())
    state.branch()
    return state


def _paths(state: SessionState, prompt: str) -> list[str]:
    index = next(i for i, node in enumerate(state.branch().messages) if node.uuid == prompt)
    return [path for path, _ in state.files.read_back(index)]


def test_files_read_before_the_stop_come_back_newest_first_unless_read_again_after() -> None:
    chain, prompts = _session([("Read", "/w/a.py", 4000), ("Write", "/w/b.py", 2000),
                               ("Read", "/w/c.py", 800), ("Read", "/w/a.py", 4000)])
    state = _state(chain)
    # a cut at the fourth prompt keeps the second read of a.py: a.py is not read back
    assert _paths(state, prompts[3]) == ["/w/c.py", "/w/b.py"]
    # a cut at the second keeps everything after it: b.py was written, not read, there
    assert _paths(state, prompts[1]) == ["/w/b.py"]


def test_an_image_a_read_showed_is_not_read_back() -> None:
    chain, prompts = _session([("Read", "/w/a.py", 400), ("Read", "/w/shot.PNG", 30),
                               ("Read", "/w/b.py", 10)])
    assert _paths(_state(chain), prompts[2]) == ["/w/a.py"]


def test_the_client_caps_count_and_size() -> None:
    big = aftercut.FILE_CAP * aftercut.CHARS_PER_TOKEN + 1
    calls = [("Read", f"/w/{n}.py", 400) for n in range(7)] + [("Read", "/w/big.py", big)]
    chain, prompts = _session([*calls, ("Read", "/w/other.py", 10)])
    state = _state(chain)
    index = next(i for i, n in enumerate(state.branch().messages) if n.uuid == prompts[-1])
    back = state.files.read_back(index)  # other.py is read in the kept part
    assert len(back) == aftercut.FILES
    assert back[0] == ("/w/big.py", aftercut.REFERENCE_TOKENS)


def test_edits_change_the_known_length_and_the_trail_grows_as_the_file_does() -> None:
    chain, _ = _session([("Write", "/w/a.py", 1000), ("Edit", "/w/a.py", 600)])
    whole = _state(chain)
    assert whole.files.files["/w/a.py"].chars == 1600
    lines = chain.jsonl().splitlines(keepends=True)
    grown = SessionState()
    for line in lines:
        grown.feed(line)
        grown.branch()
    assert grown.files.files == whole.files.files


def test_the_context_after_a_cut_is_now_less_the_part_before_plus_summary_and_files() -> None:
    chain, prompts = _session([("Read", "/w/a.py", 4000), ("Read", "/w/b.py", 400),
                               ("Read", "/w/c.py", 400)])
    state = _state(chain)
    analysis = analyse_state(state)
    now = analysis.context["tokens"]
    stop = next(s for s in analysis.stops if s.uuid == prompts[2])
    dropped = float(state.ledger.before(np.asarray([stop.index]))[0])
    back = sum(t for _, t in state.files.read_back(stop.index))
    assert back > 1000  # a.py's 4,000 characters come back
    assert stop.after == round(now - dropped) + aftercut.summary_tokens() + back
    assert stop.after is not None and stop.after < now + aftercut.summary_tokens() + back


def test_a_file_no_longer_on_disk_comes_back_as_nothing_in_its_slot() -> None:
    calls = [("Read", f"/w/{n}.py", 400) for n in range(7)] + [("Read", "/w/other.py", 10)]
    chain, prompts = _session(calls)
    state = _state(chain)
    index = next(i for i, n in enumerate(state.branch().messages) if n.uuid == prompts[-1])
    asked: list[str] = []

    def on_disk(path: str) -> bool:
        asked.append(path)
        return path != "/w/5.py"

    back = [path for path, _ in state.files.read_back(index, on_disk=on_disk)]
    # the client takes the five newest, then reads them: 1.py does not come in 5.py's place
    assert back == ["/w/6.py", "/w/4.py", "/w/3.py", "/w/2.py"]
    assert asked == ["/w/6.py", "/w/5.py", "/w/4.py", "/w/3.py", "/w/2.py"]
    # the analysis asks the setup's disk, once a path over all stops, and promises less
    every = analyse_state(state)
    gone = analyse_state(_state(chain), setup=Setup(on_disk=lambda path: False))
    asked.clear()
    kept = analyse_state(_state(chain), setup=Setup(on_disk=on_disk))
    assert len(asked) == len(set(asked))
    for full, none, some in zip(every.stops, gone.stops, kept.stops, strict=True):
        assert full.after is not None and none.after is not None and some.after is not None
        assert none.after <= some.after <= full.after
    assert sum(s.after or 0 for s in gone.stops) < sum(s.after or 0 for s in every.stops)


def test_the_words_name_tokens_when_usage_is_known() -> None:
    assert steps.leaves(22_209, 40_717, 0.82) == "leaves about 22k of 41k tokens"
    assert steps.short(None, 0.5) == "frees 50%"
    assert FileTrail().read_back(0) == []
