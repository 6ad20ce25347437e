"""True derivatives by central differences, and the comparison of an answer's values with them.

The expected value of every gradient question is computed from the *loss itself* (never from
the answer key's formula), so an answer is judged by what it computes, not by how it is written.
Central differences in float64 with step :data:`FD_STEP` are accurate to about 1e-9 on these
well-scaled instances, far inside :data:`RTOL`/:data:`ATOL`; a wrong formula is off by O(1).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from grader.common.numerics import WRITTEN, WRITTEN_FD_STEP, largest_difference
from grader.common.numerics import softmax as softmax  # formulas.py takes it from here

FD_STEP = WRITTEN_FD_STEP
"""Step of the central differences."""
RTOL = WRITTEN.rtol
"""Relative tolerance of an answer's value against the true one."""
ATOL = WRITTEN.atol
"""Absolute tolerance (for entries that are zero)."""


def central_difference_batch(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    """∂f/∂x for every entry of ``x`` (any shape), by central differences: each entry moved by
    ±:data:`FD_STEP`, every step at once (``f`` takes a stack ``(n, *x.shape)`` of points and
    returns their ``n`` values)."""
    x = np.array(x, dtype=float)
    steps = np.eye(x.size).reshape(x.size, *x.shape) * FD_STEP
    up = np.asarray(f(x[None] + steps), dtype=float)
    down = np.asarray(f(x[None] - steps), dtype=float)
    return ((up - down) / (2 * FD_STEP)).reshape(x.shape)


def close(got: np.ndarray | float, expected: np.ndarray | float) -> bool:
    return bool(np.all(np.isfinite(got)) and np.allclose(got, expected, rtol=RTOL, atol=ATOL))


def difference(got: np.ndarray | float, expected: np.ndarray | float) -> str:
    """How far off, in words: the largest absolute difference and where."""
    got_a = np.asarray(got, dtype=float)
    exp_a = np.asarray(expected, dtype=float)
    diff = np.abs(got_a - exp_a)
    k = largest_difference(got_a, exp_a)
    where = "" if not diff.ndim or diff.size == 1 else f" (entry {tuple(int(i) + 1 for i in k)})"
    return (f"largest difference {float(diff[k]):.3g}{where}: yours {float(got_a[k]):.4g}, "
            f"true {float(exp_a[k]):.4g}")
