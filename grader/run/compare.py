"""Numeric comparison with feedback that says how far off, where, and the likely cause.

Tolerances are the code checks' set of :mod:`grader.common.numerics` (``CODE``, ``CODE_FD``). They are
loose enough that a correct float32 or loop-based solution passes on every seed, and tight
enough that a wrong sign, a transpose, a missing term or a factor of 2 never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.common.numerics import CODE, CODE_FD, largest_difference

RTOL, ATOL = CODE.rtol, CODE.atol
FD_RTOL, FD_ATOL = CODE_FD.rtol, CODE_FD.atol


@dataclass(frozen=True)
class Verdict:
    """ok: the values agree; message: why not (or a note worth telling even when ok)."""

    ok: bool
    message: str = ""
    kind: str = ""  # why not ok: "type", "shape", "nonfinite" or "values"
    #: got/expected when one factor (not 1 or -1) explains every entry of this comparison, else None.
    #: A scalar has one entry, so one comparison proves nothing: the caller shows the factor hint
    #: only when the same factor explains every failing trial (Trials.factor).
    factor: float | None = None


def _fmt(x: Any) -> str:
    arr = np.asarray(x)
    if arr.size == 1:
        return f"{float(arr.reshape(())):.6g}"
    return np.array2string(arr, precision=4, threshold=8, edgeitems=2, separator=", ")


def as_float_array(value: Any) -> np.ndarray | None:
    """The value as a float64 array, or None when it is not numeric data."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return arr


def close(got: Any, value: Any, *, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """Whether ``got`` holds ``value``'s numbers (singleton dimensions aside); False for odd data."""
    arr = as_float_array(got)
    exp = as_float_array(value)
    if arr is None or exp is None or arr.size != exp.size or arr.squeeze().shape != exp.squeeze().shape:
        return False
    arr = arr.reshape(exp.shape)
    return bool(np.all(np.isfinite(arr)) and np.allclose(arr, exp, rtol=rtol, atol=atol))


def compare(name: str, got: Any, expected: Any, *, rtol: float = RTOL, atol: float = ATOL,
            expected_shape_note: str = "", hints: bool = True, factor_hint: bool = True) -> Verdict:
    """Compare ``got`` with ``expected`` elementwise; explain the first kind of difference.

    ``factor_hint``: say "look for a missing or extra factor" when one factor explains every
    entry of an array; never for a single number (one entry proves nothing). Checks that judge
    several trials pass False and let ``Trials.factor`` give the hint across trials.
    """
    exp = np.asarray(expected, dtype=np.float64)
    arr = as_float_array(got)
    if arr is None:
        return Verdict(False, f"{name}: got {type(got).__name__}; expected numbers of shape {exp.shape}",
                       "type")
    note = ""
    if arr.shape != exp.shape:
        if arr.size == exp.size and arr.squeeze().shape == exp.squeeze().shape:
            note = (f"{name} has shape {arr.shape}; the contract is {exp.shape}"
                    f"{expected_shape_note} (values compared after dropping the extra dimension)")
            arr = arr.reshape(exp.shape)
        elif arr.ndim == 2 and arr.T.shape == exp.shape and np.allclose(arr.T, exp, rtol=rtol, atol=atol):
            return Verdict(False, f"{name} has shape {arr.shape}; expected {exp.shape}{expected_shape_note}. "
                                  "Its transpose has the right values: return it transposed", "shape")
        else:
            return Verdict(False, f"{name} has shape {arr.shape}; expected {exp.shape}{expected_shape_note}",
                           "shape")
    bad_finite = ~np.isfinite(arr)
    if bad_finite.any():
        idx = tuple(int(i) for i in np.argwhere(bad_finite)[0])
        return Verdict(False, f"{name} contains {int(bad_finite.sum())} NaN/inf value(s), the first at "
                              f"index {list(idx)} (expected {_fmt(exp[idx] if exp.ndim else exp)}); "
                              "look for an overflow in exp() or a log of 0", "nonfinite")
    close = np.isclose(arr, exp, rtol=rtol, atol=atol)
    if close.all():
        return Verdict(True, note)
    diff = np.abs(arr - exp)
    where = largest_difference(arr, exp, among=~close)
    n_bad = int((~close).sum())
    msg = f"{name}: {n_bad} of {exp.size} value(s) differ"
    if exp.ndim:
        msg += (f"; largest |difference| {diff[where]:.3g} at index {list(map(int, where))}: "
                f"got {arr[where]:.6g}, expected {exp[where]:.6g}")
    else:
        msg = f"{name}: got {float(arr):.6g}, expected {float(exp):.6g}"
    factor = _factor(arr, exp, rtol, atol)
    hint = _hint(arr, exp, rtol, atol, factor if factor_hint and exp.size > 1 else None) if hints else ""
    if hint:
        msg += f". {hint}"
    if note:
        msg += f" ({note})"
    return Verdict(False, msg, "values", factor)


def _factor(arr: np.ndarray, exp: np.ndarray, rtol: float, atol: float) -> float | None:
    """got/expected when one factor other than 1 and -1 explains every entry, else None."""
    denom = float(np.vdot(exp, exp))
    if denom <= 0:
        return None
    c = float(np.vdot(arr, exp)) / denom
    if abs(c) > 1e-3 and abs(c - 1) > 1e-3 and abs(c + 1) > 1e-3 \
            and np.allclose(arr, c * exp, rtol=rtol, atol=atol):
        return c
    return None


def factor_message(name: str, factor: float) -> str:
    """The factor hint, for a factor that explains every entry of every failing trial."""
    return f"{name} is {factor:.4g} times the expected value: look for a missing or extra factor"


def _hint(arr: np.ndarray, exp: np.ndarray, rtol: float, atol: float, factor: float | None) -> str:
    """The smallest hint that explains the difference, if a simple one does."""
    if np.allclose(arr, -exp, rtol=rtol, atol=atol):
        return "It is the expected value with the opposite sign: check the sign"
    if arr.ndim == 2 and arr.shape[0] == arr.shape[1] and np.allclose(arr.T, exp, rtol=rtol, atol=atol):
        return "It is the transpose of the expected value"
    if factor is not None:
        return f"It is {factor:.4g} times the expected value: look for a missing or extra factor"
    if np.allclose(arr, 0, atol=atol):
        return "It is all zeros: was the value computed and returned?"
    return ""
