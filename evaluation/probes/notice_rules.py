"""`python -m evaluation.probes.notice_rules`: which stops a break notice should wait for,
chosen left one project out on the calibration sessions (boundaries.json) only.

Each rule says which ●●● picks may carry a break notice, by the cues the stop names; every
calibration session is replayed turn by turn through the daemon's policy under each rule
(evaluation/replay.py: a refused break notice is neither sent nor remembered, so a later turn
may send one). For each project left out, the rule with the most notices within one stop of a
reader's task boundary on the other projects' sessions (as a share; ties to the earlier rule)
decides that project's notices; the sums over projects are the figure. Nothing held out is read.
"""

from __future__ import annotations

from collections.abc import Callable

from evaluation import labels, replay
from evaluation.cases import project_folds
from evaluation.markdown import table
from keepd.core.sure import SURE

Rule = Callable[[tuple[str, ...]], bool]
CARRYING = replay.CARRYING
NEW_WORDS = "new words"


def _any(reasons: tuple[str, ...]) -> bool:
    return True


def _carrying(reasons: tuple[str, ...]) -> bool:
    return not CARRYING.isdisjoint(reasons)


def _carrying_new(reasons: tuple[str, ...]) -> bool:
    return _carrying(reasons) and NEW_WORDS in reasons


def _sure_new(reasons: tuple[str, ...]) -> bool:
    return not SURE.isdisjoint(reasons) and NEW_WORDS in reasons


def _new(reasons: tuple[str, ...]) -> bool:
    return NEW_WORDS in reasons


RULES: dict[str, Rule] = {
    "any ●●● pick (keepd)": _any,
    "a cue that carries (work finished, branch, turns to the next, after closing)": _carrying,
    "a cue that carries and new words": _carrying_new,
    "a sure cue (with a pause) and new words": _sure_new,
    "new words": _new,
}


def _order(title: str) -> int:
    return list(RULES).index(title)


def _share(per: list[tuple[int, int]], left_out: set[int]) -> float:
    """Of the notices of every session but `left_out`'s, the share at a task boundary."""
    kept = [counts for i, counts in enumerate(per) if i not in left_out]
    return sum(g for g, _ in kept) / max(sum(n for _, n in kept), 1)


def main(argv: list[str] | None = None) -> int:
    cases = labels.calibration_for("notice_rules", argv)
    if cases is None:
        return 2
    by_name = {case.name: case for case in cases}
    names = list(by_name)
    counts: dict[str, list[tuple[int, int]]] = {}  # rule -> per session (at task, notices)
    for title, rule in RULES.items():
        per = []
        for name in names:
            run = replay.replay(by_name[name].prepared.case.path, rule=rule)
            s = replay.summarise([run], by_name)
            per.append((s.at(replay.NEWEST, replay.TASK), s.notices()))
        counts[title] = per
    rows = []
    for title, per in counts.items():
        good, sent = sum(g for g, _ in per), sum(n for _, n in per)
        rows.append([title, f"{good}/{sent} ({good / max(sent, 1):.0%})"])
    good = sent = 0
    chosen: list[str] = []
    for fold in project_folds(names):
        best = max(RULES, key=lambda title: (_share(counts[title], set(fold)), -_order(title)))
        chosen.append(best)
        good += sum(counts[best][i][0] for i in fold)
        sent += sum(counts[best][i][1] for i in fold)
    rows.append(["chosen left one project out", f"{good}/{sent} ({good / max(sent, 1):.0%})"])
    print(table(["break notices need", "notices within one of a task boundary"], rows))
    print(
        "\nrules chosen, one per project left out: "
        + ", ".join(
            f"{title.split(' (')[0]} x{chosen.count(title)}" for title in RULES if title in chosen
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
