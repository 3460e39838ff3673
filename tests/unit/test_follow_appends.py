"""The daemon's incremental path (a state fed appended lines, analysed after each burst) gives
the analysis a read from scratch of the same bytes gives, after random appends."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from keepd.core.analysis import NEWEST_PASSED, analyse_state
from keepd.core.session import read_current
from keepd.daemon.policy import NEWEST
from keepd.daemon.registry import Registry
from tests.unit.builders import Chain, line, tool_result, tool_use_block

TOPICS = {
    "parser": "parser grammar tokens precedence lexer recursion syntax tree node",
    "docs": "docs screenshots readme install guide wording examples chapter",
    "deploy": "deploy docker image registry kubernetes rollout secret staging",
    "tests": "fixture assertion coverage flaky mock pytest runner timeout",
}
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@st.composite
def sessions(draw: Any) -> list[bytes]:
    """A session's lines: turns on a few topics (words drawn from the topic, a shared word or
    two), tool calls reading the topic's files, pauses, now and then a prompt that rewinds to
    an earlier one."""
    chain, clock = Chain(), START
    prompts: list[str] = []
    topic = draw(st.sampled_from(sorted(TOPICS)))
    for _ in range(draw(st.integers(3, 24))):
        if draw(st.integers(0, 3)) == 0:
            topic = draw(st.sampled_from(sorted(TOPICS)))
        clock += timedelta(minutes=draw(st.sampled_from([1, 2, 3, 25])))
        if prompts and draw(st.integers(0, 12)) == 0:
            chain.last = draw(st.sampled_from(prompts))  # a rewind: the branch changes
        prompts.append(chain.prompt(_words(draw, topic, 3, 9), timestamp=_at(clock)))
        for _ in range(draw(st.integers(0, 2))):
            _read(chain, f"{topic}_{draw(st.integers(0, 3))}.py", clock)
        clock += timedelta(seconds=30)
        chain.reply(_words(draw, topic, 12, 40), context=draw(st.integers(1, 9)) * 20_000)
    return [line(entry) for entry in chain.entries]


def _words(draw: Any, topic: str, low: int, high: int) -> str:
    pool = [*TOPICS[topic].split(), "shared", "keepd"]
    return " ".join(draw(st.lists(st.sampled_from(pool), min_size=low, max_size=high)))


def _read(chain: Chain, name: str, clock: datetime) -> None:
    tool_id = f"toolu_{len(chain.entries):04d}"
    block = tool_use_block(tool_id, "Read", file_path=f"/home/dev/project/{name}")
    chain.reply([block], timestamp=_at(clock))
    call = chain.last
    assert call is not None
    chain.add(tool_result(f"r{len(chain.entries):04d}", call, tool_id, f"{name} " * 40))


def _at(clock: datetime) -> str:
    return clock.strftime("%Y-%m-%dT%H:%M:%S.000Z")


@settings(max_examples=120, deadline=None)
@given(sessions(), st.lists(st.integers(1, 8), min_size=1, max_size=12))
def test_appended_lines_analyse_as_a_read_from_scratch(
    lines: list[bytes], bursts: list[int]
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / "projects" / "-w" / "s.jsonl"
        path.parent.mkdir(parents=True)
        registry = Registry(lambda: [root], active_seconds=1e9)
        written = 0
        for size in [*bursts, len(lines)]:  # the last burst writes what is left
            end = min(written + size, len(lines))
            with path.open("ab") as handle:
                handle.write(b"".join(lines[written:end]))
            written = end
            registry.read(path, 1 << 30)
            followed = registry.sessions[path]
            compact = registry.analyse(path)
            whole = registry.full(path)
            assert compact is not None and whole is not None
            data = path.read_bytes()
            setup = registry.setup(followed)
            fresh = read_current(data, detail=False, compact=True, at_rest=False)
            scratch = analyse_state(fresh, path=str(path), every_stop=False, setup=setup)
            _same(compact.to_dict(), scratch.to_dict())
            fresh = read_current(data, detail=False, compact=True, at_rest=False)
            _same(whole.to_dict(), analyse_state(fresh, path=str(path), setup=setup).to_dict())
            _shows_what_every_stop_shows(compact.to_dict(), whole.to_dict())
            if written == len(lines):
                break


def _same(got: dict[str, Any], expected: dict[str, Any]) -> None:
    moved = {key: (got[key], expected[key]) for key in expected if got.get(key) != expected[key]}
    assert not moved, moved


def _shows_what_every_stop_shows(compact: dict[str, Any], whole: dict[str, Any]) -> None:
    """The follower's analysis is the every-stop one with fewer stops and zones listed."""
    stops = {stop["uuid"]: stop for stop in whole["stops"]}
    assert all(stops[stop["uuid"]] == stop for stop in compact["stops"])
    assert all(zone in whole["zones"] for zone in compact["zones"])
    for key in ("pick", "trade", "context", "steps", "stop_count", "messages", "wiggle"):
        assert compact[key] == whole[key]


def test_the_shown_stops_reach_past_what_an_urgent_notice_passes_over() -> None:
    assert NEWEST_PASSED == NEWEST + 1


def test_a_running_turn_below_the_threshold_refreshes_the_share_alone(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    chain = Chain()
    for topic in ("parser", "docs", "deploy"):
        chain.turn(TOPICS[topic], TOPICS[topic] * 3, context=20_000)
    path.write_bytes(chain.jsonl())
    registry = Registry(lambda: [tmp_path], active_seconds=1e9)
    registry.read(path, 1 << 30)
    assert registry.refresh(path, 0.6)  # nothing analysed yet
    followed = registry.sessions[path]
    first = followed.analysis
    assert first is not None
    written = len(chain.entries)
    chain.reply(TOPICS["deploy"], context=60_000)  # the turn goes on: no new prompt
    _append(path, chain, written)
    registry.read(path, 1 << 30)
    assert not registry.refresh(path, 0.6)
    assert followed.analysis is first and followed.dirty
    assert followed.summary["context"]["tokens"] == 60_000  # the newest response's input
    assert registry.analyse(path) is not first  # when the session goes quiet
    written = len(chain.entries)
    chain.turn(TOPICS["tests"], TOPICS["tests"], context=70_000)  # a new prompt: analysed
    _append(path, chain, written)
    registry.read(path, 1 << 30)
    assert registry.refresh(path, 0.6) and not followed.dirty
    written = len(chain.entries)
    chain.reply(TOPICS["tests"], context=190_000)  # above the threshold: analysed
    _append(path, chain, written)
    registry.read(path, 1 << 30)
    assert registry.refresh(path, 0.6) and not followed.dirty


def _append(path: Path, chain: Chain, written: int) -> None:
    with path.open("ab") as handle:
        handle.write(b"".join(line(entry) for entry in chain.entries[written:]))
