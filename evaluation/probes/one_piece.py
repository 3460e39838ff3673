"""`python -m evaluation.probes.one_piece`: whether keepd can tell a session that is still one
piece of work (the readers' newest piece at stop 0) and withhold the pick there, measured on
the calibration sessions (boundaries.json) only, left one project out.

Prints, over the sessions whose readers agree on the newest piece within one stop: (1) where
the newest piece lies (stop 0 or 1, within the last three stops, elsewhere) and where keepd's
pick and the trivial pick "one before the end" hit and miss, with the sessions either gets
that the other misses and how many sessions the best of them would get; (2) for each rule
"withhold the pick (or pick stop 0) when a feature says one piece, else a base pick" (the
base: keepd's pick as shipped, keepd's pick with its points fitted on the other projects, or
"one before the end"; the features: keepd's ●●● zones, its ●●● zones with a sure cue, the
stops whose cues' points reach the ●●● total, the stop count, the curve's highest stop in
wiggles, the newest-work model's chance that no usable stop after the first begins a new
piece, whether keepd's pick with its points left one project out is none), the picks within
one in sample (the threshold chosen on all 38) and left one project
out (the threshold chosen on the other projects' sessions: the most picks within one, ties to
the rule that withholds least), the fold-by-fold thresholds, and every session's features
beside its newest piece; (3) for the rules so chosen on all 38, the calibration joins
(evaluation's stitched pairs and triples) within one of their gold against keepd's. The rules
change only the pick: keepd's ●●● zones, and so the task switches with ●●● within one and the
●●● zones at a reader boundary, stay as they are. The features are read with keepd's shipped
constants (the model's weights and the points were fitted on all calibration sessions); only
the threshold is chosen left one project out. Nothing held out is read.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation import baselines, labels
from evaluation.cases import CALIBRATION, project_folds, shared_or_none
from evaluation.labels import Labelled
from evaluation.markdown import table
from evaluation.score import Prepared, grading_of, prepare
from keepd.core.cued import usable_stops
from keepd.core.grade import DEFAULT_TUNING, Grade, before_pick
from keepd.core.newest import chances
from keepd.core.newest_pick import columns
from keepd.core.sure import sure_cues

FEATURES = (
    "●●● zones",
    "●●● zones with a sure cue",
    "stops at the ●●● total",
    "stops",
    "words: highest stop (wiggles)",
)
ONE_PIECE = "model: no new piece"  # the newest-work model's chance of no new piece
NO_PICK = "keepd (points left out) makes no pick"  # 1.0 where it does not, else 0.0
HIGH = frozenset({ONE_PIECE, NO_PICK})  # features that say one piece when high
WITHHOLD = {"no pick": None, "stop 0": 0}


@dataclass(frozen=True, slots=True)
class Seen:
    """One session as keepd reads it: its stop count, keepd's pick and the features."""

    name: str
    stops: int
    pick: int | None
    features: dict[str, float]
    left: int | None = None  # keepd's pick with the points fitted on the other projects


def seen(name: str, p: Prepared) -> Seen:
    """keepd's pick of a prepared session and what might say it is still one piece."""
    tuning = DEFAULT_TUNING
    grading = grading_of(p, tuning)
    clear = [z for z in grading.zones if z.grade is Grade.CLEAR]
    sure = sure_cues(tuning.points.sure)
    n = len(p.curve)
    graded = before_pick(p.curve, p.frees, tuning, p.events, p.cues)
    model, scored = tuning.newest, graded.scored
    none_new, at_total = math.nan, 0.0
    if scored is not None:
        at_total = float(np.sum(scored.totals[1:] >= tuning.points.clear))
    if model is not None and scored is not None:
        found = columns(scored, graded.zones, graded.heights, p.events, model.height_cap)
        chance = chances(model, found, n)
        usable = usable_stops(p.curve, p.frees, tuning)
        usable[:1] = False
        none_new = float(np.prod(1.0 - chance[usable]))
    features = {
        FEATURES[0]: float(len(clear)),
        FEATURES[1]: float(sum(1 for z in clear if sure & set(z.reasons))),
        FEATURES[2]: at_total,
        FEATURES[3]: float(n),
        FEATURES[4]: float(np.max(graded.heights[1:])) if n > 1 else 0.0,
        ONE_PIECE: none_new,
    }
    return Seen(name, n, grading.pick.best if grading.pick else None, features)


BASES: dict[str, Callable[[Seen], int | None]] = {
    "keepd's pick": lambda s: s.pick,
    "keepd's pick, points left one project out": lambda s: s.left,
    "one before the end": lambda s: baselines.PICKS["one before the end"](s.stops),
}


@dataclass(frozen=True, slots=True)
class Rule:
    """Withhold (`action`) when `feature` is on its one-piece side of `threshold`."""

    base: str
    feature: str
    action: str
    threshold: float

    def says_one(self, s: Seen) -> bool:
        value = s.features[self.feature]
        if math.isnan(value):
            return False
        if self.feature in HIGH:
            return value >= self.threshold
        return value <= self.threshold

    def pick(self, s: Seen) -> int | None:
        return WITHHOLD[self.action] if self.says_one(s) else BASES[self.base](s)


NEVER = {True: math.inf, False: -math.inf}  # a threshold that never withholds


def candidates(base: str, feature: str, action: str, rows: Sequence[Seen]) -> list[Rule]:
    """Every threshold at a value the rows take, the rule that never withholds first."""
    high = feature in HIGH
    values = sorted({r.features[feature] for r in rows if not math.isnan(r.features[feature])})
    values = values[::-1] if high else values
    return [Rule(base, feature, action, t) for t in [NEVER[high], *values]]


def hits(rule: Rule, rows: Sequence[Seen], by_name: dict[str, Labelled]) -> int:
    return sum(_hit(by_name, r, rule.pick(r)) for r in rows)


def best(rules: list[Rule], rows: Sequence[Seen], by_name: dict[str, Labelled]) -> Rule:
    """The most hits; ties to the earlier rule (the one that withholds least)."""
    return max(rules, key=lambda r: (hits(r, rows, by_name), -rules.index(r)))


def where(newest: tuple[int, int], stops: int) -> str:
    if min(newest) <= 1:
        return "stop 0 or 1"
    if max(newest) >= stops - 3:
        return "the last 3 stops"
    return "elsewhere"


def part_one(rows: Sequence[Seen], by_name: dict[str, Labelled]) -> str:
    """Where the newest piece lies; where keepd (as shipped and with its points left one
    project out) and "one before the end" hit; the sessions one gets and the other misses."""
    out = []
    picks: dict[str, Callable[[Seen], int | None]] = {
        **BASES,
        "no pick": lambda r: None,
    }
    for place in ("stop 0 or 1", "the last 3 stops", "elsewhere"):
        here = [r for r in rows if where(_newest(by_name, r), r.stops) == place]
        out.append(
            [place, len(here), *(sum(_hit(by_name, r, f(r)) for r in here) for f in picks.values())]
        )
    lines = [table(["newest piece", "sessions", *picks], out), ""]
    end = BASES["one before the end"]
    for name in list(BASES)[:2]:
        f = BASES[name]
        for r in rows:
            k, e = _hit(by_name, r, f(r)), _hit(by_name, r, end(r))
            if k != e:
                who = f"{name} only" if k else "one before the end only"
                newest = "/".join(map(str, sorted(set(_newest(by_name, r)))))
                lines.append(
                    f"- against {name}: {who}: {r.name} (stops {r.stops}, "
                    f"newest {newest}, pick {f(r)})"
                )
        both = sum(1 for r in rows if _hit(by_name, r, f(r)) and _hit(by_name, r, end(r)))
        lines.append(f"  {name} and one before the end both right: {both}/{len(rows)}\n")
    any_of = sum(1 for r in rows if any(_hit(by_name, r, f(r)) for f in picks.values()))
    lines.append(f"the best per session of these four picks (an oracle): {any_of}/{len(rows)}")
    return "\n".join(lines)


def _newest(by_name: dict[str, Labelled], r: Seen) -> tuple[int, int]:
    newest = by_name[r.name].newest()
    assert newest is not None
    return newest


def _hit(by_name: dict[str, Labelled], r: Seen, pick: int | None) -> int:
    return 1 if labels.pick_near(by_name[r.name].newest(), pick) else 0


def part_two(
    rows: Sequence[Seen], by_name: dict[str, Labelled]
) -> tuple[str, dict[tuple[str, str, str], Rule]]:
    """Each family's picks within one, in sample and left one project out, fold by fold."""
    folds = project_folds([r.name for r in rows])
    out, lines, chosen = [], [], {}
    for base in BASES:
        for feature in (*FEATURES, ONE_PIECE, NO_PICK):
            for action in WITHHOLD:
                rules = candidates(base, feature, action, rows)
                whole = best(rules, rows, by_name)
                chosen[(base, feature, action)] = whole
                left, picked = 0, []
                for fold in folds:
                    rest = [r for j, r in enumerate(rows) if j not in fold]
                    held = [rows[i] for i in fold]
                    rule = best(candidates(base, feature, action, rest), rest, by_name)
                    left += hits(rule, held, by_name)
                    picked.append(f"{rule.threshold:g}")
                withheld = sum(1 for r in rows if whole.says_one(r))
                out.append(
                    [
                        base,
                        feature,
                        action,
                        f"{whole.threshold:g}",
                        f"{hits(whole, rows, by_name)}/{len(rows)} ({withheld} withheld)",
                        f"{left}/{len(rows)}",
                    ]
                )
                lines.append(f"- {base}, {feature}, {action}: " + " ".join(picked))
    headers = [
        "base",
        "feature",
        "withhold as",
        "threshold (all 38)",
        "in sample",
        "left one project out",
    ]
    return table(headers, out) + "\n\nthresholds fold by fold (projects in order):\n" + "\n".join(
        lines
    ), chosen


def part_three(shared: Path, chosen: dict[tuple[str, str, str], Rule]) -> str:
    """The calibration joins within one of their gold, keepd's pick against each rule."""
    with tempfile.TemporaryDirectory(prefix="keepd-onepiece-") as folder:
        joins = [
            (prepare(case), group.title)
            for group in CALIBRATION
            for case in group.cases(shared, Path(folder), 150)
        ]
    read = [(seen(p.case.name, p), p) for p, _ in joins]
    read = [(with_left(s, s.pick), p) for s, p in read]  # no folds on joins
    out = []
    keys = [("", "", ""), *[k for k in chosen if k[0] != "keepd's pick"]]
    for key in keys:
        rule = chosen.get(key)
        near = withheld = 0
        for s, p in read:
            pick = s.pick if rule is None else rule.pick(s)
            golds = p.at_gold()
            near += int(pick is not None and bool(golds) and min(abs(pick - g) for g in golds) <= 1)
            withheld += int(rule is not None and rule.says_one(s))
        name = (
            "keepd as shipped"
            if rule is None
            else f"{key[0]}: {key[1]}, {key[2]} at {rule.threshold:g}"
        )
        out.append([name, f"{near}/{len(read)} ({near / len(read):.0%})", withheld])
    return table(["rule (threshold chosen on all 38)", "joins within one", "withheld"], out) + (
        "\n\n(on the joins keepd's pick is the shipped one under either keepd base: the points"
        " are not refitted per join)"
    )


def part_features(rows: Sequence[Seen], by_name: dict[str, Labelled]) -> str:
    """Every session's features beside its newest piece, by the model's chance of no new
    piece (the best of them): whether the one-piece sessions stand apart."""
    out = []
    for r in sorted(rows, key=lambda r: -np.nan_to_num(r.features[ONE_PIECE], nan=-1.0)):
        newest = "/".join(map(str, sorted(set(_newest(by_name, r)))))
        left, end = _hit(by_name, r, r.left), _hit(by_name, r, BASES["one before the end"](r))
        values = [f"{r.features[f]:.3g}" for f in (ONE_PIECE, *FEATURES)]
        out.append([r.name[:40], newest, *values, "yes" if left else "no", "yes" if end else "no"])
    headers = [
        "session",
        "newest",
        ONE_PIECE,
        *FEATURES,
        "keepd (points left out) right",
        "one before the end right",
    ]
    return table(headers, out)


def with_left(s: Seen, left: int | None) -> Seen:
    """`s` with keepd's pick fitted on the other projects, and whether it makes none."""
    features = {**s.features, NO_PICK: 1.0 if left is None else 0.0}
    return dataclasses.replace(s, left=left, features=features)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.probes.one_piece")
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    shared = shared_or_none(parser.parse_args(argv).shared, "one_piece")
    if shared is None:
        return 2
    source = next(s for s in labels.sources(shared) if not s.held_out)
    calibration = labels.load(shared, source.path)
    left = {s.name: s.pick for s in baselines.points_left_out(calibration)}
    judged = [c for c in calibration if c.newest() is not None]
    by_name = {c.name: c for c in judged}
    rows = [with_left(seen(c.name, c.prepared), left[c.name]) for c in judged]
    print(part_one(rows, by_name), "\n")
    print(part_features(rows, by_name), "\n")
    text, chosen = part_two(rows, by_name)
    print(text, "\n")
    print(part_three(shared, chosen))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
