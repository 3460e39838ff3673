"""The pick fitted as one choice per session (evaluation/probes/choice_pick.py): its loss's
gradient is the loss's slope, and a fit learns a feature that marks the readers' newest
among sessions that include one piece of work (the target "no pick")."""

from __future__ import annotations

import numpy as np

from evaluation.probes.choice_pick import Choice, _loss, fitted, picked


def _choice(marked: int, stops: int = 6, seed: int = 0) -> Choice:
    rng = np.random.default_rng(seed)
    x = np.column_stack([np.zeros(stops), rng.normal(size=stops), np.zeros(stops)])
    x[marked, 0] = 1.0  # the feature that marks the newest piece
    x[0, :] = 0.0
    x[0, -1] = 1.0  # "no pick"
    target = (0, 1) if marked == 0 else (marked,)
    return Choice(f"s{seed}", f"p{seed}", x, target, (marked, marked))


def test_the_gradient_is_the_slope_of_the_loss() -> None:
    choices = [_choice(k % 5 + 1, seed=k) for k in range(6)]
    w = np.array([0.3, -0.2, 0.1])
    _, grad, _ = _loss(w, choices, 1.0)
    step = 1e-6
    for i in range(len(w)):
        up, down = w.copy(), w.copy()
        up[i] += step
        down[i] -= step
        slope = (_loss(up, choices, 1.0)[0] - _loss(down, choices, 1.0)[0]) / (2 * step)
        assert abs(slope - grad[i]) < 1e-4


def test_a_fit_picks_the_marked_stop() -> None:
    marked = [_choice(k % 4 + 2, seed=k) for k in range(8)]
    whole = [_choice(0, seed=20 + k) for k in range(2)]
    w = fitted(marked + whole, 0.1)
    assert w[0] > 0
    assert [picked(c, w) for c in marked] == [k % 4 + 2 for k in range(8)]
