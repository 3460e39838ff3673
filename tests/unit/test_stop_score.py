"""The stop score (evaluation/stop_score.py, behind evaluation/probes/grade_probe.py): its fit
in each column's own units, and its grading, which must be keepd's own for keepd's points."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson

from evaluation import labels
from evaluation.stop_score import NAMES, Session, graded, raw_weights, session_of


def _stops(n: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    """A 0/1 cue and a continuous value, each raising the chance of a task."""
    rng = np.random.default_rng(3)
    cue = (rng.random(n) < 0.3).astype(np.float64)
    value = rng.normal(5.0, 2.0, n)
    logit = -3.0 + 1.5 * cue + 0.5 * (value - 5.0)
    task = rng.random(n) < 1 / (1 + np.exp(-logit))
    return np.column_stack([cue, value]), task


def test_weights_come_back_in_each_column_s_own_units() -> None:
    x, task = _stops()
    intercept, weights = raw_weights(x, task, 0.0, rounded=False)
    assert abs(weights[0] - 1.5) < 0.3 and abs(weights[1] - 0.5) < 0.1
    assert abs(intercept - (-3.0 - 2.5)) < 0.5
    # The same values in tenths: the weight ten times smaller, every logit the same.
    tenths, scaled = raw_weights(x * np.array([1.0, 10.0]), task, 0.0, rounded=False)
    assert abs(scaled[1] * 10 - weights[1]) < 1e-6
    assert abs(tenths - intercept) < 1e-6


def test_rounded_weights_are_halves() -> None:
    x, task = _stops()
    _, weights = raw_weights(x[:, :1], task, 1.0, rounded=True)
    assert weights[0] * 2 == round(weights[0] * 2) and weights[0] > 0


def _one(shared: Path, tmp_path: Path) -> Session:
    every = orjson.loads((shared / "corpus" / "labels" / "boundaries.json").read_bytes())
    name = next(n for n, label in sorted(every.items()) if len(label["readers"]) == 2)
    path = tmp_path / "one.json"
    path.write_bytes(orjson.dumps({name: every[name]}))
    (case,) = labels.load(shared, path)
    return session_of(case)


def test_keepd_s_points_grade_as_keepd_grades(shared: Path, tmp_path: Path) -> None:
    session = _one(shared, tmp_path)
    today = np.array([signal.value for signal in session.signals])
    found = graded(session, session.binary @ today, 3.0)
    keepd = labels.score_session(session.case)
    assert (found.clear, found.false_clear, found.found, found.pick) == (
        keepd.clear,
        keepd.false_clear,
        keepd.found,
        keepd.pick,
    )
    words_only = graded(session, session.binary @ today, 99.0)  # no cue reaches it
    assert set(words_only.clear) < set(found.clear)  # the cues made ●●● zones of their own here
    assert session.extra.shape == (len(session.task), len(NAMES))
