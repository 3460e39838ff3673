"""`python -m evaluation.probes.choice_pick`: the pick as one choice per session, fitted to where
the readers' newest piece begins, each project's sessions picked by a model fitted on the others.

keepd's newest-work model (core/newest.py) is fitted per stop, a task start against every other
stop, and picks among the stops the curve can grade. Here the pick is fitted as what it is: one
choice among a session's stops, or none (one piece of work), a conditional logit whose target is
the stops within one of both readers' newest (stop 0 or 1, or none, where the readers' newest is
0). Each stop's features are keepd's own (core/grade.py `newest_features`: the cue points and
new files, the words' height and zones), whether the curve can grade it, and how far it lies
from the end (the last three stops by name, and the log of the distance), which every session
has and which no project owns. Calibration only (boundaries.json); nothing held out is read.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from evaluation import labels
from evaluation.cases import project, shared_or_none
from evaluation.fit_newest import case_of
from evaluation.labels import pick_near

FloatArray = npt.NDArray[np.float64]
POSITION = ("the last stop", "one before the end", "two before the end", "log stops to the end")
CURVE = ("words' height", "●●● zone (words)", "●●● zone (cues)", "●● zone", "● zone", "usable")
CUES = ("cue points", "new files")
FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "position alone": POSITION,
    "cues": CUES,
    "cues + position": CUES + POSITION,
    "cues + curve": CUES + CURVE,
    "cues + curve + position": CUES + CURVE + POSITION,
}


@dataclass(frozen=True, slots=True)
class Choice:
    """One session: each stop's features (row 0 is "no pick"), the stops the target names,
    the readers' agreed newest and the project."""

    name: str
    project: str
    x: FloatArray  # (stops, features); row 0 stands for no pick
    target: tuple[int, ...]
    newest: tuple[int, int]


def choice_of(item: labels.Labelled, names: Sequence[str]) -> Choice | None:
    """A labelled session as a choice on the features `names` (None: its readers' newest
    differ by more than one stop)."""
    newest = item.newest()
    if newest is None:
        return None
    case = case_of(item.prepared, [item.name])
    by_name = {n: np.asarray(v, dtype=np.float64) for n, v in case.columns}
    count = len(case.uuids)
    to_end = count - 1 - np.arange(count)
    by_name["usable"] = case.usable.astype(np.float64)
    by_name[POSITION[0]] = (to_end == 0).astype(np.float64)
    by_name[POSITION[1]] = (to_end == 1).astype(np.float64)
    by_name[POSITION[2]] = (to_end == 2).astype(np.float64)
    by_name[POSITION[3]] = np.log1p(to_end)
    by_name["words' height"] = np.minimum(by_name["words' height"], 10.0)
    x = np.column_stack([by_name[n] for n in names] + [np.zeros(count)])
    x[0, :] = 0.0
    x[0, -1] = 1.0  # "no pick" has its own constant; stop 0 is never a pick
    a, b = newest
    target = tuple(k for k in range(count) if abs(k - a) <= 1 and abs(k - b) <= 1)
    if max(newest) == 0:
        target = (0, 1) if count > 1 else (0,)
    return Choice(item.name, project(item.name), x, target, newest)


def _loss(
    w: FloatArray, choices: Sequence[Choice], ridge: float
) -> tuple[float, FloatArray, FloatArray]:
    """The negative log chance of the target stops, its gradient and its Hessian (the ridge
    spares "no pick"'s constant, the last weight)."""
    penalty = np.append(np.full(len(w) - 1, ridge), 0.0)
    total, grad, hess = 0.5 * float(penalty @ (w * w)), penalty * w, np.diag(penalty)
    for c in choices:
        u = c.x @ w
        t = list(c.target)
        p, q = np.exp(u - u.max()), np.exp(u[t] - u[t].max())
        total += float(u.max() + np.log(p.sum()) - u[t].max() - np.log(q.sum()))
        p, q = p / p.sum(), q / q.sum()
        mean_p, mean_q = p @ c.x, q @ c.x[t]
        grad -= mean_q - mean_p
        hess += (c.x.T * p) @ c.x - np.outer(mean_p, mean_p)
        hess -= (c.x[t].T * q) @ c.x[t] - np.outer(mean_q, mean_q)
    return total, grad, hess


def fitted(choices: Sequence[Choice], ridge: float, steps: int = 100) -> FloatArray:
    """The weights of least loss: Newton steps on the Hessian made positive definite (the
    target's part of it can make it indefinite), halved until the loss falls."""
    w = np.zeros(choices[0].x.shape[1])
    loss, grad, hess = _loss(w, choices, ridge)
    for _ in range(steps):
        lowest = float(np.linalg.eigvalsh(hess)[0])
        shift = max(0.0, 1e-3 - lowest)
        step = np.linalg.solve(hess + shift * np.eye(len(w)), grad)
        rate = 1.0
        while rate > 1e-6:
            trial = w - rate * step
            trial_loss, trial_grad, trial_hess = _loss(trial, choices, ridge)
            if trial_loss < loss:
                break
            rate /= 2
        if rate <= 1e-6 or loss - trial_loss < 1e-10:
            break
        w, loss, grad, hess = trial, trial_loss, trial_grad, trial_hess
    return w


def picked(c: Choice, w: FloatArray) -> int | None:
    """The stop of highest utility under `w` (None: no pick)."""
    k = int(np.argmax(c.x @ w))
    return None if k == 0 else k


def left_out(choices: Sequence[Choice], ridge: float) -> list[bool]:
    """Each session's pick within one of its readers' newest, fitted on the other projects."""
    by_project: dict[str, FloatArray] = {}
    for c in choices:
        if c.project not in by_project:
            by_project[c.project] = fitted([o for o in choices if o.project != c.project], ridge)
    return [bool(pick_near(c.newest, picked(c, by_project[c.project]))) for c in choices]


def main(argv: list[str] | None = None) -> int:
    prog = "python -m evaluation.probes.choice_pick"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--shared", type=Path, help="the shared folder (default: ../shared)")
    shared = shared_or_none(parser.parse_args(argv).shared, prog)
    if shared is None:
        return 2
    items = labels.load(shared)
    for title, names in FEATURE_SETS.items():
        choices = [c for c in (choice_of(item, names) for item in items) if c is not None]
        for ridge in (0.3, 1.0, 3.0):
            hits = left_out(choices, ridge)
            every = fitted(choices, ridge)
            inside = [bool(pick_near(c.newest, picked(c, every))) for c in choices]
            print(
                f"{title}, ridge {ridge}: left one project out {sum(hits)}/{len(hits)}; "
                f"in sample {sum(inside)}/{len(inside)}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
