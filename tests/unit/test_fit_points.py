"""The points' fit (evaluation/fit_points.py): the ridge logistic, its rounding, shares, and
the folds left one project out."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import orjson

from evaluation import labels
from evaluation.cases import project
from evaluation.fit_points import (
    fit,
    fold_tunings,
    kept,
    lower,
    replayed_left_out,
    stops_of,
    table_of,
)
from keepd.core.points import DEFAULT_POINTS


def _stops(rate_with: float, rate_without: float, n: int = 4000) -> tuple[np.ndarray, np.ndarray]:
    """Stops half of which carry a signal; a task at the given rates with and without it."""
    signal = np.arange(n) % 2 == 0
    rng = np.random.default_rng(7)
    task = rng.random(n) < np.where(signal, rate_with, rate_without)
    return signal[:, None].astype(np.float64), task


def test_the_fit_recovers_a_signal_s_log_odds() -> None:
    features, task = _stops(0.5, 0.1)  # log odds 0 against -2.20: a coefficient of 2.20
    intercept, coefficient = fit(features, task, ridge=0.0)
    assert abs(intercept - np.log(0.1 / 0.9)) < 0.2
    assert abs(coefficient - np.log(9)) < 0.3


def test_the_ridge_shrinks_the_coefficient_not_the_intercept() -> None:
    features, task = _stops(0.5, 0.1, n=200)
    free, ridged = fit(features, task, ridge=0.0), fit(features, task, ridge=50.0)
    assert 0 < ridged[1] < free[1]
    assert ridged[0] > free[0]  # the intercept takes up what the signal gives up
    none = fit(np.zeros((200, 1)), task, ridge=1.0)
    assert none[1] == 0.0  # a signal never present earns nothing


def test_the_table_rounds_to_halves_and_leaves_out_what_was_not_fitted() -> None:
    fields = ("finished", "branch", "new_files")
    table = table_of(np.array([-3.0, 1.26, 0.74]), ["finished", "branch"], fields)
    assert (table.finished, table.branch, table.new_files) == (1.5, 0.5, 0.0)
    assert table.clear == DEFAULT_POINTS.clear and table.long_words == DEFAULT_POINTS.long_words


def test_a_share_one_standard_error_down() -> None:
    assert abs(lower(50, 55) - (50 / 55 - np.sqrt(50 / 55 * 5 / 55 / 55))) < 1e-12
    assert lower(0, 0) == 0.0 and lower(4, 4) == 1.0


def _small_sessions(shared: Path, tmp_path: Path, projects: int) -> list[labels.Labelled]:
    """The smallest labelled calibration session of each of the `projects` first projects."""
    every = orjson.loads((shared / "corpus" / "labels" / "boundaries.json").read_bytes())
    folder = shared / "corpus" / "sessions"
    smallest: dict[str, str] = {}
    for name in sorted(every, key=lambda n: (folder / n).stat().st_size):
        smallest.setdefault(project(name), name)
    chosen = sorted(smallest.values())[:projects]
    path = tmp_path / "some.json"
    path.write_bytes(orjson.dumps({n: every[n] for n in chosen}))
    return labels.load(shared, path)


def test_a_session_s_fold_never_reads_its_own_project_s_labels(
    shared: Path, tmp_path: Path
) -> None:
    cases = _small_sessions(shared, tmp_path, 3)
    sessions = [stops_of(case) for case in cases]
    keep = kept(sessions)
    tunings = fold_tunings(sessions, keep)
    every_task = dataclasses.replace(sessions[0], task=np.ones_like(sessions[0].task))
    changed = fold_tunings([every_task, *sessions[1:]], keep)
    assert changed[0] == tunings[0]
    assert replayed_left_out(cases[:1]) == []  # one project: nothing to fit on
