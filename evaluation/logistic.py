"""Fits a ridge logistic regression by Newton's method: the one fit behind the cue points
(evaluation/fit_points.py) and the newest-work model (evaluation/fit_newest.py)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def ridge_logistic(
    x: FloatArray,
    y: npt.ArrayLike,
    ridge: float,
    weights: FloatArray | None = None,
    steps: int = 100,
) -> FloatArray:
    """The intercept, then one coefficient per column of `x`, minimising the (row-weighted)
    log loss plus `ridge / 2 * |w|^2`; the penalty spares the intercept.

    >>> x = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    >>> ridge_logistic(x, np.array([0, 1, 0, 1, 1]), ridge=0.0).round(3)  # log 1, log 2
    array([0.   , 0.693])
    """
    design = np.column_stack([np.ones(len(x)), x])
    target = np.asarray(y, dtype=np.float64)
    rows = np.ones(len(design)) if weights is None else np.asarray(weights, dtype=np.float64)
    penalty = np.full(design.shape[1], ridge)
    penalty[0] = 0.0
    beta = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ beta)))
        gradient = design.T @ (rows * (p - target)) + penalty * beta
        curvature = (design * (rows * p * (1 - p))[:, None]).T @ design
        step = np.linalg.solve(curvature + np.diag(penalty) + 1e-9 * np.eye(len(beta)), gradient)
        beta -= step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    return np.asarray(beta, dtype=np.float64)
