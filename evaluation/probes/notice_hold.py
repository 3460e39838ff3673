"""`python -m evaluation.probes.notice_hold`: which break notices to send, chosen left one project
out on the calibration sessions (boundaries.json) only: the stop also the newest-work model's own
pick and a cue that carries, held until prompts follow it, or spaced from the last one.

Every calibration session is replayed turn by turn as evaluation/replay.py does, and each turn's
inputs to the daemon's policy are kept: the context's share and the urgent notice's share, the
filling, the pick (its grade, what it frees, its reasons, the stops after it), the urgent
notice's stop, and the pick of the same grading with the pick's later move off (`recent` 0:
the newest-work model's own pick, settled). The policy (keepd/daemon/policy.py
`decide`: a break notice once per stop at a ●●● pick, the urgent one once per filling) is then
run on those inputs under each rule, a refused break notice neither sent nor remembered; the
rule "keepd" gives what `python -m evaluation` replays, which the probe checks. For each project
left out, the rule with the most notices within one stop of a reader's task boundary on the
other projects' sessions (as a share; ties to the earlier rule) decides that project's notices;
the sums over projects are the figure. A rule that holds a notice until N prompts follow its
stop is also given its delay: for each stop both keepd and the rule send a break notice for,
the prompts between the two. Nothing held out is read. `--thresholds`: keepd's notices with
the break notice armed at other shares of the window (`notify.threshold`), and the share chosen
per project left out.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from evaluation import labels, replay
from evaluation.cases import project_folds
from evaluation.labels import Labelled
from evaluation.markdown import table
from keepd.config import NotifyConfig
from keepd.core.analysis import Analysis, Stop, analyse_state
from keepd.core.grade import DEFAULT_TUNING
from keepd.core.limits import urgent_share
from keepd.core.session import SessionState, read_current
from keepd.core.tree import Scope
from keepd.daemon import policy

CARRYING = replay.CARRYING
ISSUE_CUES = CARRYING | {"pause", "new words"}  # the issue's cues that name a stop's reasons
MOVES_OFF = dataclasses.replace(DEFAULT_TUNING, recent=0)
T = TypeVar("T")  # a rule's title or a threshold: what a fold chooses among


@dataclass(frozen=True, slots=True)
class Named:
    """A stop a notice could name: what the policy and the marks read of it."""

    uuid: str
    below: int
    grade: str | None
    frees: float
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn's inputs to the policy."""

    turn: int
    prompt: str
    share: float
    urgent: float
    filling: str
    stops: int
    pick: Named | None
    urgent_stop: Named | None
    own: str | None  # the newest-work model's own pick (the moves off), read above threshold


# A rule reads the turn, the pick it would name, and the turn of the session's last break
# notice (None before any): it sends the break notice or refuses it.
Rule = Callable[[Turn, Named, int | None], bool]


def _named(stop: Stop | None) -> Named | None:
    if stop is None:
        return None
    return Named(stop.uuid, stop.below, stop.grade, stop.frees, tuple(stop.reasons or ()))


def turns_of(path: Path, config: NotifyConfig) -> list[Turn]:
    """Each turn's inputs to the policy, following `path` as replay.replay does."""
    data = path.read_bytes()
    state = SessionState(Scope.CURRENT, detail=False, compact=True)
    fed, out = 0, []
    for turn, (end, _, prompt) in enumerate(replay._turn_ends(data)):
        state.feed(data[:end], fed)
        fed = end
        analysis = _analysed(state, path)
        if state.stale:
            state = read_current(data[:end], detail=False, compact=True, at_rest=False)
            analysis = _analysed(state, path)
        share = analysis.context.get("share")
        if share is None or analysis.path is None:
            continue
        own = _analysed(state, path, MOVES_OFF).pick if share >= config.threshold else None
        out.append(
            Turn(
                turn,
                prompt,
                float(share),
                urgent_share(analysis.context, config.urgent),
                policy.filling(analysis),
                analysis.stop_count,
                _named(analysis.stop(analysis.pick)),
                _named(policy._urgent_stop(analysis)),
                own,
            )
        )
    return out


def _analysed(state: SessionState, path: Path, tuning: object = DEFAULT_TUNING) -> Analysis:
    assert isinstance(tuning, type(DEFAULT_TUNING))
    return analyse_state(state, path=str(path), tuning=tuning, every_stop=False)


def sent(name: str, turns: Sequence[Turn], config: NotifyConfig, rule: Rule) -> replay.Replayed:
    """The notices `decide` sends on these inputs, a break notice only where `rule` agrees."""
    keys: set[str] = set()
    out = []
    last: int | None = None  # the turn of the last break notice sent
    for t in turns:
        if t.share >= t.urgent:
            once = not any(k.startswith("urgent:") and k.endswith(f"@{t.filling}") for k in keys)
            stop, kind = (t.urgent_stop if once else None), "urgent"
        elif t.share >= config.threshold:
            stop, kind = t.pick, "break"
            ok = stop is not None and stop.grade == policy.CLEAR and stop.frees >= config.min_frees
            stop = stop if ok and stop is not None and rule(t, stop, last) else None
        else:
            continue
        if stop is None:
            continue
        key = f"{kind}:{stop.uuid}" + (f"@{t.filling}" if kind == "urgent" else "")
        if key in keys:
            continue
        keys.add(key)
        last = t.turn if kind == "break" else last
        out.append(
            replay.Sent(
                name,
                t.turn,
                t.share,
                kind,
                stop.uuid,
                t.stops - 1 - stop.below,
                stop.below,
                stop.grade,
                stop.reasons,
                "",
                prompt=t.prompt,
            )
        )
    return replay.Replayed(name, len(turns), out)


def _carries(stop: Named, cues: frozenset[str] = CARRYING) -> bool:
    return not cues.isdisjoint(stop.reasons)


def _held(prompts: int, carrying: bool = False) -> Rule:
    return lambda t, stop, _: stop.below >= prompts and (not carrying or _carries(stop))


def _spaced(prompts: int) -> Rule:
    """A break notice only when more than `prompts` prompts have passed since the last one (the
    pick that moves on at each new prompt sent one a turn)."""
    return lambda t, stop, last: last is None or t.turn - last > prompts


RULES: dict[str, Rule] = {
    "any ●●● pick (keepd)": lambda t, stop, _: True,
    "a cue that carries (work finished, branch, turns to the next, after closing)": (
        lambda t, stop, _: _carries(stop)
    ),
    "the newest-work model's own pick": lambda t, stop, _: t.own == stop.uuid,
    "(a) the model's own pick and a cue that carries": (
        lambda t, stop, _: t.own == stop.uuid and _carries(stop)
    ),
    "(a) the model's own pick and one of the issue's cues (+ pause, new words)": (
        lambda t, stop, _: t.own == stop.uuid and _carries(stop, ISSUE_CUES)
    ),
    **{f"(b) held until {n} prompts follow the stop": _held(n) for n in (2, 3, 4, 6)},
    **{
        f"(b) held until {n} prompts follow, and a cue that carries": _held(n, True) for n in (2, 3)
    },
    **{f"(c) more than {n} prompts since the last break notice": _spaced(n) for n in (1, 2, 3, 5)},
}
FAMILIES = {
    "every rule above": list(RULES),
    "keepd or a cue that carries": [
        "any ●●● pick (keepd)",
        "a cue that carries (work finished, branch, turns to the next, after closing)",
    ],
    "keepd or (a) with the cues that carry": [
        "any ●●● pick (keepd)",
        "(a) the model's own pick and a cue that carries",
    ],
    "keepd or (b)": [title for title in RULES if title.startswith(("any", "(b) held until"))],
    "keepd or (c)": [title for title in RULES if title.startswith(("any", "(c)"))],
}


def _keys(run: replay.Replayed) -> list[tuple[int, str, str]]:
    return [(s.after_prompt, s.kind, s.uuid) for s in run.notices]


def _marks(run: replay.Replayed, labelled: Labelled) -> tuple[int, int, int, int]:
    """(at a task boundary, notices, break notices at one, break notices)."""
    s = replay.summarise([run], {run.session: labelled})
    breaks = sum(s.breaks.values())
    return (
        s.at(replay.NEWEST, replay.TASK),
        s.notices(),
        s.breaks[replay.NEWEST] + s.breaks[replay.TASK],
        breaks,
    )


def _share(per: Sequence[tuple[int, int, int, int]], left_out: set[int]) -> float:
    kept = [counts for i, counts in enumerate(per) if i not in left_out]
    return sum(c[0] for c in kept) / max(sum(c[1] for c in kept), 1)


def _left_out(
    per: Mapping[T, Sequence[tuple[int, int, int, int]]],
    options: Sequence[T],
    folds: Sequence[Sequence[int]],
) -> tuple[int, int, list[T]]:
    """Each fold's sessions under the option with the best share on the other folds (ties to
    the earlier option): notices at a task boundary, notices, and the option each fold took."""
    good = total = 0
    chosen: list[T] = []
    for fold in folds:
        best = max(options, key=lambda o: (_share(per[o], set(fold)), -options.index(o)))
        chosen.append(best)
        good += sum(per[best][i][0] for i in fold)
        total += sum(per[best][i][1] for i in fold)
    return good, total, chosen


def _delay(held: Sequence[replay.Replayed], keepd: Sequence[replay.Replayed]) -> str:
    """Prompts between keepd's break notice at a stop and the held rule's, and how many of
    keepd's stops the rule never names."""
    gaps, lost = [], 0
    for late, first in zip(held, keepd, strict=True):
        when = {s.uuid: s.after_prompt for s in late.notices if s.kind == "break"}
        for notice in (s for s in first.notices if s.kind == "break"):
            if notice.uuid in when:
                gaps.append(when[notice.uuid] - notice.after_prompt)
            else:
                lost += 1
    if not gaps:
        return f"none of keepd's {lost} break stops"
    return f"{statistics.mean(gaps):.1f} prompts later (max {max(gaps)}), {lost} of keepd's never"


def report(cases: Sequence[Labelled], config: NotifyConfig) -> str:
    names = [case.name for case in cases]
    inputs = [turns_of(case.prepared.case.path, config) for case in cases]
    runs = {
        title: [sent(n, t, config, rule) for n, t in zip(names, inputs, strict=True)]
        for title, rule in RULES.items()
    }
    keepd = runs["any ●●● pick (keepd)"]
    check = [replay.replay(case.prepared.case.path, config) for case in cases]
    same = [_keys(a) for a in keepd] == [_keys(b) for b in check]
    per = {
        title: [_marks(run, case) for run, case in zip(found, cases, strict=True)]
        for title, found in runs.items()
    }
    rows = []
    for title, counts in per.items():
        good, total = sum(c[0] for c in counts), sum(c[1] for c in counts)
        broke, breaks = sum(c[2] for c in counts), sum(c[3] for c in counts)
        delay = _delay(runs[title], keepd) if title.startswith("(b)") else "-"
        rows.append(
            [title, f"{good}/{total} ({good / max(total, 1):.0%})", f"{broke}/{breaks}", delay]
        )
    lines = [
        table(
            ["break notices need", "notices at a task boundary", "break notices at one", "delay"],
            rows,
        ),
        "",
        f"the simulated policy sends what replay.replay sends (keepd's rule): {same}",
    ]
    folds = project_folds(names)
    for family, titles in FAMILIES.items():
        good, total, chosen = _left_out(per, titles, folds)
        picked = ", ".join(
            f"{t.split(' (')[0][:40]} x{chosen.count(t)}" for t in titles if t in chosen
        )
        lines.append(
            f"chosen left one project out among {family}: {good}/{total} "
            f"({good / max(total, 1):.0%}); chosen: {picked}"
        )
    return "\n".join(lines)


THRESHOLDS = (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def thresholds(cases: Sequence[Labelled], shipped: NotifyConfig) -> str:
    """keepd's notices at a task boundary with the break notice armed at each share of
    `THRESHOLDS` (`notify.threshold`), then the threshold chosen for each project left out (the
    best share on the other projects; ties to the one nearest the shipped one)."""
    lowest = dataclasses.replace(shipped, threshold=min(THRESHOLDS))
    names = [case.name for case in cases]
    inputs = [turns_of(case.prepared.case.path, lowest) for case in cases]
    keepd = RULES["any ●●● pick (keepd)"]
    per = {}
    lines = []
    for share in THRESHOLDS:
        config = dataclasses.replace(shipped, threshold=share)
        runs = [sent(n, t, config, keepd) for n, t in zip(names, inputs, strict=True)]
        per[share] = [_marks(run, case) for run, case in zip(runs, cases, strict=True)]
        good, total = sum(c[0] for c in per[share]), sum(c[1] for c in per[share])
        lines.append(f"threshold {share:.2f}: {good}/{total} ({good / max(total, 1):.0%})")
    nearest_first = sorted(THRESHOLDS, key=lambda t: abs(t - shipped.threshold))  # for ties
    good, total, _ = _left_out(per, nearest_first, project_folds(names))
    lines.append(f"chosen left one project out: {good}/{total} ({good / max(total, 1):.0%})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--thresholds", action="store_true", help="sweep notify.threshold")
    own, rest = parser.parse_known_args(argv)
    calibration = labels.calibration_for("notice_hold", rest)
    if calibration is None:
        return 2
    if own.thresholds:
        print(thresholds(calibration, NotifyConfig()))
    else:
        print(report(calibration, NotifyConfig()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
