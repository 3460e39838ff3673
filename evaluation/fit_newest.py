"""`python -m evaluation.fit_newest`: fits the newest-work model (keepd/core/newest.py) on
calibration data and prints leave-one-project-out figures, then the chosen fit's coefficients.

Rows are the usable stops of the labelled calibration sessions (corpus/labels/boundaries.json)
and of the calibration joins, with their named features (keepd.core.grade.newest_features). The
target is a stop both readers mark as a task within one stop of each other (or, as a variant, a
boundary of either kind); in a join, a stop whose prompt is such a stop of its session, or a
junction. The fit is a ridge logistic regression (Newton steps; the intercept is not penalised).
Target, features, ridge and floor are chosen on cross-validated figures: each labelled session's
pick comes from a model fitted without its project's sessions (nor any join holding one), each
join's from one fitted without every session of its pieces' projects. Each figure carries its
standard error, a join's counted with every join of the same tail (joins of one tail miss
together, so 150 joins are worth far fewer draws), and each setting its difference from the
chosen one, paired case by case, with the error of that difference. Nothing held out is read.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from evaluation import labels
from evaluation.cases import CALIBRATION, find_shared, label_file, same_projects
from evaluation.logistic import ridge_logistic
from evaluation.markdown import percent, table
from evaluation.outcomes import Outcomes
from evaluation.piece_gold import agreed
from evaluation.score import Prepared, prepare
from keepd.core.cued import bare_stops, usable_stops
from keepd.core.grade import DEFAULT_TUNING, grade, newest_at, newest_features
from keepd.core.newest import COMPACTION, HEIGHT, POINTS, ZONE_FEATURES, Column, Newest

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Fitter = Callable[[frozenset[str]], Newest]
# The columns a probe adds (evaluation/probes/embed_probe.py).
Extra = Callable[[Prepared], list[Column]]

BASE = [POINTS, HEIGHT, *ZONE_FEATURES]
NOT_SIGNALS = frozenset({*BASE, COMPACTION})


@dataclass(frozen=True, slots=True)
class Setting:
    """One candidate: features, target, ridge, the joins' rows' weight (0: labelled rows only)."""

    features: str
    target: str = "task"
    ridge: float = 10.0
    joins: float = 1.0


FEATURE_SETS: dict[str, Callable[[list[str]], list[str]]] = {
    "cue points, zone grades, words' height": lambda names: BASE,
    "the same + new files": lambda names: ["new files", *BASE],
    "the same + every signal by name": lambda names: [
        *(n for n in names if n not in NOT_SIGNALS),
        *BASE,
    ],
}
CHOSEN = Setting("the same + new files", "task", 10.0, 1.0)
CHOSEN_FLOOR = 0.1
FLOORS = (0.05, 0.1, 0.15)
SETTINGS = [
    *(Setting(name, "task", ridge) for name in FEATURE_SETS for ridge in (1.0, 10.0, 30.0)),
    *(Setting(name, "task", 10.0, 0.0) for name in FEATURE_SETS),
    Setting(CHOSEN.features, "task or step"),
    Setting(CHOSEN.features, "task or the newest piece"),
    Setting(CHOSEN.features, "task", 10.0, 0.3),
]


@dataclass(frozen=True, slots=True)
class Case:
    """A prepared session's or join's features and what its pick needs, computed once."""

    name: str
    sessions: frozenset[str]  # the labelled sessions it is made of (a join's pieces)
    columns: list[Column]
    usable: BoolArray
    sc: FloatArray
    bare: BoolArray
    wiggle: float
    uuids: tuple[str | None, ...]
    gold: tuple[int, ...]  # a join's gold stops (piece_gold.py); () for a labelled session
    junctions: tuple[str, ...] = ()
    fallback: int | None = None  # the pick rule before the model's, taken under its floor
    tail: str = ""  # the session its last stop is from (a join's last piece)

    def pick(self, model: Newest) -> int | None:
        k = newest_at(
            model, self.columns, self.usable, sc=self.sc, bare=self.bare, wiggle=self.wiggle
        )
        return self.fallback if k is None else k

    def matrix(self, names: Sequence[str]) -> FloatArray:
        by_name = {name: np.asarray(values, dtype=np.float64) for name, values in self.columns}
        return np.column_stack([by_name[name] for name in names])[self.usable]


def case_of(prepared: Prepared, sessions: Iterable[str], extra: Extra | None = None) -> Case:
    """A prepared session's or join's case; `extra` adds columns of its own (a probe's)."""
    p = prepared
    before = grade(
        p.curve, p.frees, dataclasses.replace(DEFAULT_TUNING, newest=None), p.events, p.cues
    )
    columns = newest_features(p.curve, p.frees, DEFAULT_TUNING, p.events, p.cues)
    return Case(
        p.case.name,
        frozenset(sessions),
        columns + (extra(p) if extra is not None else []),
        usable_stops(p.curve, p.frees, DEFAULT_TUNING),
        p.curve.sc,
        bare_stops(p.cues, len(p.curve)),
        before.wiggle,
        p.uuids,
        p.at_gold() if p.case.pieces else (),
        p.case.junctions,
        None if before.pick is None else before.pick.best,
        p.case.pieces[-1] if p.case.pieces else p.case.name,
    )


def marked(labelled: Sequence[labels.Labelled], target: str) -> set[str]:
    """The prompt uuids of the stops both readers mark as a task (or as either kind, or as a
    task or the stop where both readers' newest piece begins, step or task)."""
    found = set()
    for item in labelled:
        a, b = item.readers
        pairs = (
            agreed(sorted(a.kinds), sorted(b.kinds))
            if target == "task or step"
            else item.task_switches()
        )
        newest = item.newest() if target == "task or the newest piece" else None
        if newest is not None and max(newest) > 0:
            pairs.append(newest)
        found |= {item.prepared.uuids[k] for pair in pairs for k in pair}
    return {uuid for uuid in found if uuid is not None}


def fit(
    x: FloatArray, y: FloatArray, ridge: float, weights: FloatArray
) -> tuple[float, FloatArray]:
    """The ridge logistic fit (evaluation/logistic.py), rows weighted: (intercept, coefficients)."""
    beta = ridge_logistic(x, y, ridge, weights)
    return float(beta[0]), beta[1:]


@dataclass(frozen=True, slots=True)
class Rows:
    """One case's rows: the sessions it is made of, its features and targets, their weight."""

    sessions: frozenset[str]
    x: FloatArray
    y: FloatArray
    weight: float


def rows(cases: Sequence[Case], names: list[str], uuids: set[str], weight: float) -> list[Rows]:
    out = []
    for case in cases:
        target = [u in uuids or u in case.junctions for u in case.uuids]
        y = np.asarray(target, dtype=np.float64)[case.usable]
        out.append(Rows(case.sessions, case.matrix(names), y, weight))
    return out


def fitter(training: list[Rows], names: list[str], ridge: float) -> Fitter:
    """Models fitted without the rows of given sessions (cached per set left out)."""
    fitted: dict[frozenset[str], Newest] = {}

    def model(out: frozenset[str]) -> Newest:
        if out not in fitted:
            kept = [r for r in training if r.weight > 0 and not r.sessions & out]
            weights = np.concatenate([np.full(len(r.y), r.weight) for r in kept])
            x, y = np.vstack([r.x for r in kept]), np.concatenate([r.y for r in kept])
            intercept, coefficients = fit(x, y, ridge, weights)
            pairs = tuple((n, round(float(w), 4)) for n, w in zip(names, coefficients, strict=True))
            fitted[out] = Newest(intercept=round(intercept, 4), weights=pairs, floor=0.0)
        return fitted[out]

    return model


@dataclass(frozen=True, slots=True)
class Figures:
    """Picks within one of the labelled sessions' newest piece; each join group's picks at /
    within one of its gold; each with its standard error."""

    labelled: Outcomes
    joins: dict[str, Outcomes]

    def cells(self) -> list[str]:
        hits = self.labelled.hits
        near = f"{sum(hits)}/{len(hits)} ({percent(sum(hits) / max(len(hits), 1))})"
        return [
            f"{near} {self.labelled.error()}",
            *(f"{found.share()} {found.error()}" for found in self.joins.values()),
        ]

    def gains(self, base: Figures) -> list[str]:
        return [
            self.labelled.gain(base.labelled),
            *(found.gain(base.joins[title]) for title, found in self.joins.items()),
        ]


def figures(
    labelled: Sequence[labels.Labelled],
    cases: dict[str, Case],
    joins: dict[str, list[Case]],
    model: Fitter,
) -> Figures:
    """The picks of `model(sessions left out)` on every labelled session and join, each
    model fitted without every session of the projects its case is made of."""
    every = list(cases)
    verdicts = [
        (
            item.name,
            labels.pick_near(
                item.newest(), cases[item.name].pick(model(same_projects([item.name], every)))
            ),
        )
        for item in labelled
    ]
    judged = [(name, v) for name, v in verdicts if v is not None]
    found = Outcomes(tuple(v for _, v in judged), tuple(name for name, _ in judged))
    shares = {}
    for title, group in joins.items():
        distances = [
            _distance(case.pick(model(same_projects(case.sessions, every))), case.gold)
            for case in group
        ]
        shares[title] = Outcomes(
            tuple(d is not None and d <= 1 for d in distances),
            tuple(case.tail for case in group),
            tuple(d == 0 for d in distances),
        )
    return Figures(found, shares)


def _distance(pick: int | None, gold: tuple[int, ...]) -> int | None:
    return None if pick is None or not gold else min(abs(pick - k) for k in gold)


@dataclass(frozen=True, slots=True)
class Data:
    labelled: list[labels.Labelled]
    cases: dict[str, Case]  # the labelled sessions', by name
    joins: dict[str, list[Case]]  # by group title

    def training(self, setting: Setting) -> tuple[list[str], list[Rows]]:
        names = FEATURE_SETS[setting.features](
            [n for n, _ in next(iter(self.cases.values())).columns]
        )
        uuids = marked(self.labelled, setting.target)
        found = rows(list(self.cases.values()), names, uuids, 1.0)
        for cases in self.joins.values():
            found += rows(cases, names, uuids, setting.joins)
        return names, found

    def model(self, setting: Setting) -> Fitter:
        names, training = self.training(setting)
        return fitter(training, names, setting.ridge)


def load(shared: Path, count: int, extra: Extra | None = None) -> Data:
    """The calibration sessions' and joins' cases (`extra`: columns a probe adds to each)."""
    labelled = labels.load(shared)
    cases = {item.name: case_of(item.prepared, {item.name}, extra) for item in labelled}
    with tempfile.TemporaryDirectory(prefix="keepd-fit-") as folder:
        joins = {
            group.title: [
                case_of(prepare(case), case.pieces, extra)
                for case in group.cases(shared, Path(folder), count)
            ]
            for group in CALIBRATION
        }
    return Data(labelled, cases, joins)


def cross_validated(data: Data) -> str:
    """Every setting's figures left one project out, then their differences from the chosen
    setting's (within one, case by case)."""
    base = figures(data.labelled, data.cases, data.joins, floored(data.model(CHOSEN), CHOSEN_FLOOR))
    found, gains = [], []
    for setting in SETTINGS:
        model = data.model(setting)
        for floor in FLOORS:
            cv = figures(data.labelled, data.cases, data.joins, floored(model, floor))
            joins = "joins' rows" if setting.joins == 1 else f"joins' rows x{setting.joins:g}"
            names = [
                setting.features,
                setting.target,
                f"{setting.ridge:g}",
                joins if setting.joins else "labelled rows only",
                f"{floor:g}",
            ]
            found.append([*names, *cv.cells()])
            gains.append([*names, *cv.gains(base)])
    headers = ["features", "target", "ridge", "rows", "floor"]
    titles = list(data.joins)
    return "\n\n".join(
        [
            table(
                [
                    *headers,
                    "pick within one of the newest",
                    *(f"{title}: at / within one of the gold" for title in titles),
                ],
                found,
            ),
            "the same, within one against the chosen setting's (points, case by case):",
            table([*headers, "pick within one of the newest", *titles], gains),
        ]
    )


def with_extra(data: Data, sets: Mapping[str, Sequence[str]]) -> str:
    """The chosen setting with each set of a probe's extra columns (the first set the base),
    cross-validated as `figures` is, each also paired against the first set, case by case."""
    chosen = CHOSEN
    base = FEATURE_SETS[chosen.features]([])
    uuids = marked(data.labelled, chosen.target)
    found = []
    for title, extra in sets.items():
        names = [*extra, *base]
        training = rows(list(data.cases.values()), names, uuids, 1.0)
        for cases in data.joins.values():
            training += rows(cases, names, uuids, chosen.joins)
        fitted = fitter(training, names, chosen.ridge)
        model = floored(fitted, CHOSEN_FLOOR)
        found.append((title, figures(data.labelled, data.cases, data.joins, model)))
    first = found[0][1]
    headers = [
        "features",
        "pick within one of the newest",
        *(f"{t}: at / within one" for t in data.joins),
        "pick: against the first row",
        *(f"{t}: within one, against the first row" for t in data.joins),
    ]
    return table(headers, [[title, *f.cells(), *f.gains(first)] for title, f in found])


def floored(model: Fitter, floor: float) -> Fitter:
    return lambda out: dataclasses.replace(model(out), floor=floor)


def chosen(data: Data) -> tuple[Newest, str]:
    """The chosen setting fitted on every calibration row, and its in-sample figures."""
    model = dataclasses.replace(data.model(CHOSEN)(frozenset()), floor=CHOSEN_FLOOR)
    lines = [f"intercept {model.intercept:.4f}"]
    lines += [f"{name}: {weight:.4f}" for name, weight in model.weights]
    found = figures(data.labelled, data.cases, data.joins, lambda out: model)
    return model, "\n".join(lines) + "\n\nin sample: " + "; ".join(found.cells())


def data_from_args(
    prog: str, doc: str | None, argv: list[str] | None, extra: Extra | None = None
) -> Data | None:
    """The calibration data a command line names (--shared, --count), `extra` adding a probe's
    columns; None, said on stderr, when no corpus is found."""
    parser = argparse.ArgumentParser(prog=f"python -m evaluation.{prog}", description=doc)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    parser.add_argument("--count", type=int, default=150, help="cross-project joins of two")
    args = parser.parse_args(argv)
    shared = args.shared or find_shared()
    if shared is None or not label_file(shared, False).is_file():
        print(f"{prog}: no ../shared corpus with its labels found (give --shared)", file=sys.stderr)
        return None
    return load(shared, args.count, extra)


def main(argv: list[str] | None = None) -> int:
    data = data_from_args("fit_newest", __doc__, argv)
    if data is None:
        return 2
    print(
        "leave-one-project-out (a join: without every project it is made of); ± a standard"
        " error, joins of one tail counted together\n"
    )
    print(cross_validated(data))
    _, text = chosen(data)
    print(f"\nchosen: {CHOSEN}, floor {CHOSEN_FLOOR:g}, fitted on every calibration row\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
