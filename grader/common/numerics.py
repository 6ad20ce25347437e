"""Numbers the grader compares, in one place: the two tolerance sets, softmax, and where the
largest difference between two arrays is (which "how far off" messages report).

Two tolerance sets, because two kinds of values are compared:

* :data:`CODE`: what student code returns against the reference, computed in float32 or float64
  by either (``grader/run/compare.py``); plus :data:`CODE_FD`, for gradients checked against
  finite differences of the student's own loss.
* :data:`WRITTEN`: a written answer's formula, evaluated in float64, against central differences
  of the true loss (``grader/reading/numeric.py``), with its finite-difference step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Tolerance:
    """``|got - expected| <= atol + rtol * |expected|``, elementwise (numpy's isclose)."""

    rtol: float
    atol: float


CODE = Tolerance(rtol=1e-4, atol=1e-5)
"""Values of O(1) computed in float32 agree with float64 to ~1e-6 relative; allow 1e-4."""
CODE_FD = Tolerance(rtol=1e-3, atol=1e-5)
"""Finite differences of a student's own loss (central, h = 1e-5, float64): error ~1e-7."""
WRITTEN = Tolerance(rtol=1e-5, atol=1e-6)
"""A written answer's value against the true one (atol for entries that are zero)."""
WRITTEN_FD_STEP = 1e-6
"""Step of the central differences that give the true value of a written gradient; accurate to
about 1e-9 on the well-scaled instances, far inside :data:`WRITTEN`."""


def softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax along the last axis, shifted by its maximum so that exp never overflows."""
    e = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(scores: np.ndarray) -> np.ndarray:
    """log(softmax) along the last axis, computed without forming the softmax."""
    shifted = scores - np.max(scores, axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def largest_difference(got: np.ndarray, expected: np.ndarray, *,
                       among: np.ndarray | None = None) -> tuple[int, ...]:
    """The index of the largest ``|got - expected|`` (among the entries where ``among`` is True,
    when given); ``()`` for scalars."""
    diff = np.abs(np.asarray(got, dtype=float) - np.asarray(expected, dtype=float))
    if not diff.ndim:
        return ()
    if among is not None:
        diff = np.where(among, diff, -1.0)
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(diff)), diff.shape))
