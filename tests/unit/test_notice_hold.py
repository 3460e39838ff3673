"""The policy evaluation/probes/notice_hold.py runs on each replayed turn's inputs: what
keepd/daemon/policy.decide sends, a break notice once per stop, the urgent one once per filling,
a break notice a rule refuses neither sent nor remembered."""

from __future__ import annotations

import dataclasses

from evaluation.probes.notice_hold import RULES, Named, Turn, sent
from keepd.config import NotifyConfig

CONFIG = NotifyConfig()
CLEAR = Named("s5", 1, "●●●", 0.5, ("work finished",))
STEP = Named("s4", 2, "●●", 0.5, ("new words",))


def _turn(
    turn: int, share: float, pick: Named | None, *, own: str | None = None, filling: str = ""
) -> Turn:
    return Turn(turn, f"p{turn}", share, 0.8, filling, 8, pick, STEP, own)


def test_a_break_notice_once_per_stop_and_only_at_a_clear_pick_above_the_threshold() -> None:
    turns = [
        _turn(0, 0.5, CLEAR),
        _turn(1, 0.65, STEP),
        _turn(2, 0.65, CLEAR),
        _turn(3, 0.7, CLEAR),
    ]
    run = sent("x", turns, CONFIG, RULES["any ●●● pick (keepd)"])
    assert [(s.after_prompt, s.kind, s.uuid) for s in run.notices] == [(2, "break", "s5")]
    assert run.notices[0].stop == 8 - 1 - CLEAR.below


def test_a_refused_break_notice_is_not_remembered() -> None:
    own = RULES["the newest-work model's own pick"]
    turns = [_turn(0, 0.65, CLEAR, own="s3"), _turn(1, 0.65, CLEAR, own="s5")]
    assert [s.after_prompt for s in sent("x", turns, CONFIG, own).notices] == [1]


def test_the_urgent_notice_once_per_filling() -> None:
    turns = [_turn(0, 0.85, CLEAR), _turn(1, 0.9, CLEAR), _turn(2, 0.85, CLEAR, filling="c1")]
    run = sent("x", turns, CONFIG, RULES["any ●●● pick (keepd)"])
    assert [(s.after_prompt, s.kind, s.uuid) for s in run.notices] == [
        (0, "urgent", "s4"),
        (2, "urgent", "s4"),
    ]


def test_a_held_notice_waits_for_prompts_after_its_stop() -> None:
    held = RULES["(b) held until 2 prompts follow the stop"]
    later = Named("s5", 2, "●●●", 0.5, ("work finished",))
    turns = [_turn(0, 0.65, CLEAR), _turn(1, 0.65, later)]
    assert [s.after_prompt for s in sent("x", turns, CONFIG, held).notices] == [1]


def test_the_threshold_sweep_arms_the_break_notice_at_each_share() -> None:
    turns = [_turn(0, 0.5, CLEAR), _turn(1, 0.65, CLEAR)]
    keepd = RULES["any ●●● pick (keepd)"]
    lower = dataclasses.replace(CONFIG, threshold=0.4)
    assert [s.after_prompt for s in sent("x", turns, lower, keepd).notices] == [0]
    assert [s.after_prompt for s in sent("x", turns, CONFIG, keepd).notices] == [1]
