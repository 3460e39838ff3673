"""When a session deserves a notice, and what it says; alerts send it once and remember it."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from keepd.config import NotifyConfig
from keepd.core.analysis import Analysis, Stop
from keepd.daemon.alerts import Alerts
from keepd.daemon.policy import Notice, decide
from keepd.ops.memory import Memory, StateFile, load_memory

NOW = 1_000_000.0
CONFIG = NotifyConfig()


def _stop(uuid: str, below: int, frees: float, grade: str | None, quote: str) -> Stop:
    return Stop(
        uuid=uuid,
        index=below,
        below=below,
        in_picker=True,
        frees=frees,
        sc=0.5,
        kept=100,
        borrowed=50,
        grade=grade,
        shape="peak" if grade else None,
        multiple=9.0 if grade else None,
        quote=quote,
        timestamp="",
    )


def analysis(
    share: float | None,
    grade: str | None = "●●●",
    frees: float = 0.5,
    pick: bool = True,
    reasons: list[str] | None = None,
) -> Analysis:
    new = dataclasses.replace(
        _stop("new", 1, frees, grade, "now the docs site " * 20), reasons=reasons
    )
    stops = [
        _stop("old", 2, 0.1, None, "first thing"),
        new,
        _stop("end", 0, 0.9, None, "last"),
    ]
    return Analysis(
        session_id="s1",
        path="/c/projects/-w-app/s1.jsonl",
        project="/w/app",
        scope="current",
        messages=30,
        skipped_lines=0,
        context={
            "tokens": None,
            "window": 200_000,
            "share": share,
            "source": "usage",
            "trigger": 200_000,
        },  # a 200k model's, without a setting
        tokens_estimated=False,
        wiggle=0.01,
        stops=stops,
        zones=[],
        pick="new" if pick else None,
        trade=[] if pick else ["old", "new", "end"],
    )


def test_quiet_below_the_threshold() -> None:
    assert decide(analysis(0.59), "s1", CONFIG, Memory(), NOW) is None
    assert decide(analysis(None), "s1", CONFIG, Memory(), NOW) is None


def test_a_clear_break_past_the_threshold() -> None:
    notice = decide(analysis(0.61), "s1", CONFIG, Memory(), NOW)
    assert notice is not None and notice.key == "break:new" and not notice.urgent
    assert notice.title == "app: context 61%"
    assert "Esc Esc → ↑ 2 times" in notice.body
    assert "frees 50% of the conversation: a new task starts here." in notice.body
    assert notice.body.endswith("Less sure: only the words change there.")  # no cue named
    assert "●●●" not in notice.body
    assert "the row reads “now the docs site now" in notice.body and "…”" in notice.body


def test_the_notice_says_how_sure_the_new_task_is() -> None:
    finished = decide(
        analysis(0.61, reasons=["words", "work finished"]), "s1", CONFIG, Memory(), NOW
    )
    assert finished is not None
    assert finished.body.endswith(
        "a new task starts here. Fairly sure: work was finished just before it."
    )
    paused = decide(analysis(0.61, reasons=["pause", "new words"]), "s1", CONFIG, Memory(), NOW)
    assert paused is not None and paused.body.endswith("Less sure: only a pause marks it.")
    step = analysis(0.85, grade="●●", reasons=["work finished"])
    step = dataclasses.replace(
        step, stops=[dataclasses.replace(step.stops[0], grade="●●"), *step.stops[1:]]
    )
    urgent = decide(step, "s1", CONFIG, Memory(), NOW)
    assert urgent is not None and urgent.body.endswith("a next step of the same work.")


def test_no_notice_without_a_clear_break_or_when_it_frees_too_little() -> None:
    assert decide(analysis(0.7, grade="●●"), "s1", CONFIG, Memory(), NOW) is None
    assert decide(analysis(0.7, frees=0.1), "s1", CONFIG, Memory(), NOW) is None
    assert decide(analysis(0.7, pick=False), "s1", CONFIG, Memory(), NOW) is None


def test_urgent_near_auto_compact_even_without_a_break() -> None:
    notice = decide(analysis(0.85, grade=None, pick=False), "s1", CONFIG, Memory(), NOW)
    # The trade's middle is the stop before the newest: the notice names the one before it.
    assert notice is not None and notice.urgent and notice.key == "urgent:old@"
    assert "auto-compact is near" in notice.title and "no clear break" in notice.body


def test_an_urgent_notice_names_the_very_end_only_for_a_clear_break() -> None:
    clear = decide(analysis(0.85), "s1", CONFIG, Memory(), NOW)
    assert clear is not None and clear.key == "urgent:new@"
    step = decide(analysis(0.85, grade="●●"), "s1", CONFIG, Memory(), NOW)
    assert step is None  # nothing graded or traded before the end
    alone = analysis(0.85, grade=None, pick=False)
    alone = dataclasses.replace(alone, trade=["new", "end"])
    assert decide(alone, "s1", CONFIG, Memory(), NOW) is None


def test_once_per_session_and_stop_muted_or_paused() -> None:
    memory = Memory()
    memory.remember("s1", "break:new")
    assert decide(analysis(0.7), "s1", CONFIG, memory, NOW) is None
    assert decide(analysis(0.7), "s2", CONFIG, memory, NOW) is not None
    assert decide(analysis(0.9), "s1", CONFIG, memory, NOW) is not None
    memory.mute("s2", NOW + 60)
    assert decide(analysis(0.7), "s2", CONFIG, memory, NOW) is None
    assert decide(analysis(0.7), "s2", CONFIG, memory, NOW + 61) is not None
    memory.pause(None)
    assert decide(analysis(0.9), "s3", CONFIG, memory, NOW) is None
    assert decide(analysis(0.9), "s3", NotifyConfig(enabled=False), Memory(), NOW) is None


class Recorder:
    """A sender that takes notices or refuses them, as a notification server would."""

    def __init__(self, accept: bool) -> None:
        self.accept = accept
        self.sent: list[Notice] = []

    async def send(self, notice: Notice) -> bool:
        if self.accept:
            self.sent.append(notice)
        return self.accept

    def describe(self) -> str:
        return "recorder"


def test_alerts_keep_a_notice_until_a_server_takes_it() -> None:
    saved: list[dict[str, list[str]]] = []

    def save() -> bool:
        saved.append({k: list(v) for k, v in alerts.memory.notified.items()})
        return True

    alerts = Alerts(CONFIG, Memory(), save, clock=lambda: NOW)
    alerts.sender = refusing = Recorder(accept=False)
    assert alerts.consider("s1", analysis(0.7))
    assert asyncio.run(alerts.flush()) == 0 and "s1" in alerts.pending
    assert saved == [{"s1": ["break:new"]}, {}]  # recorded before sending, taken back
    alerts.sender = taking = Recorder(accept=True)
    assert asyncio.run(alerts.flush()) == 1
    assert [n.key for n in taking.sent] == ["break:new"] and not refusing.sent
    assert alerts.memory.was_notified("s1", "break:new") and saved[-1] == {"s1": ["break:new"]}
    assert not alerts.consider("s1", analysis(0.7))
    assert asyncio.run(alerts.flush()) == 0


def test_a_notice_whose_record_cannot_be_saved_waits(tmp_path: Path) -> None:
    """A full disk: the record of the notice cannot be written, so the notice is not sent (a
    restart would send it again); once a save succeeds, it goes out once."""
    blocked = tmp_path / "daemon.json"
    blocked.mkdir()  # renaming the new state file over a folder fails, as on a full disk
    state = StateFile(blocked, Memory())
    alerts = Alerts(CONFIG, state.memory, state.save, clock=lambda: NOW)
    alerts.sender = taking = Recorder(accept=True)
    alerts.consider("s1", analysis(0.7))
    assert asyncio.run(alerts.flush()) == 0 and not taking.sent
    assert state.unsaved and state.failures == 1 and "s1" in alerts.pending
    assert not state.memory.was_notified("s1", "break:new")
    blocked.rmdir()
    state.retry()
    assert not state.unsaved and load_memory(blocked).notified == {}
    assert asyncio.run(alerts.flush()) == 1 and len(taking.sent) == 1
    assert load_memory(blocked).notified == {"s1": ["break:new"]}


def test_alerts_drop_a_notice_muted_while_it_waited() -> None:
    alerts = Alerts(CONFIG, Memory(), lambda: True, clock=lambda: NOW)
    alerts.sender = taking = Recorder(accept=True)
    alerts.consider("s1", analysis(0.7))
    alerts.memory.mute("s1", None)
    assert asyncio.run(alerts.flush()) == 0
    assert not taking.sent and not alerts.pending


def test_an_urgent_notice_comes_once_per_session() -> None:
    memory = Memory()
    first = decide(analysis(0.85), "s1", CONFIG, memory, NOW)
    assert first is not None and first.urgent
    memory.remember("s1", first.key)
    # The next turn names another stop: no second urgent notice for the session.
    later = dataclasses.replace(analysis(0.9, grade=None, pick=False))
    assert decide(later, "s1", CONFIG, memory, NOW) is None
    assert decide(later, "s2", CONFIG, memory, NOW) is not None


def test_an_urgent_notice_comes_again_after_a_compaction() -> None:
    memory = Memory()
    first = decide(analysis(0.85), "s1", CONFIG, memory, NOW)
    assert first is not None and first.urgent
    memory.remember("s1", first.key)
    # Compacted (or cut) and filled again: the part Claude Code sends starts elsewhere.
    again = dataclasses.replace(analysis(0.9), compacted_at="boundary-1")
    second = decide(again, "s1", CONFIG, memory, NOW)
    assert second is not None and second.urgent and second.key == "urgent:new@boundary-1"
    memory.remember("s1", second.key)
    assert decide(dataclasses.replace(again, pick="old"), "s1", CONFIG, memory, NOW) is None
