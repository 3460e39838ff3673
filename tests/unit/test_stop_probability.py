"""The per-stop probability probe (evaluation/probes/stop_probability.py): its features are
signals keepd reads, its thresholds probabilities, and a fit on one session's stops ranks its
tasks first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson

from evaluation import labels
from evaluation.probes.stop_probability import BINARY, CHANCES, EXTRA, VARIANTS, chances
from evaluation.stop_score import NAMES, fit, session_of
from keepd.core.points import SIGNAL_NAMES


def test_the_features_are_signals_keepd_reads() -> None:
    assert set(BINARY) <= set(SIGNAL_NAMES)
    assert set(EXTRA) <= set(NAMES)
    assert all(
        set(v.extra) <= set(NAMES) and set(v.cues or ()) <= set(SIGNAL_NAMES) for v in VARIANTS
    )


def test_the_thresholds_are_probabilities_in_order() -> None:
    assert all(0 < c < 1 for c in CHANCES) and list(CHANCES) == sorted(CHANCES)


def test_a_fit_gives_tasks_higher_chances(shared: Path, tmp_path: Path) -> None:
    every = orjson.loads((shared / "corpus" / "labels" / "boundaries.json").read_bytes())
    names = sorted(every)[:6]
    path = tmp_path / "some.json"
    path.write_bytes(orjson.dumps({name: every[name] for name in names}))
    sessions = [session_of(case) for case in labels.load(shared, path)]
    _, model = fit(sessions, VARIANTS[0])
    found = np.concatenate([chances(model(s))[s.fitted] for s in sessions])
    task = np.concatenate([s.task[s.fitted] for s in sessions])
    assert ((found >= 0) & (found <= 1)).all()
    assert found[task].mean() > found[~task].mean()
