"""Checks of sgd.py: the update rule with postprocessing, and the step annealing.

Each check judges its own part of sgd only: the update check compares paths shorter than
20000 iterations (where the step never halves; a step that changes anyway is the annealing
check's bug), and the annealing check compares the sizes of successive steps with each other,
so a wrong update (a sign, a factor) is charged to the update check alone. A wrong path is
tested against the declared bug shapes below and named when one fits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from a2.bug_shapes import BugShape, diagnose
from grader.run.check_api import CheckContext, Trials, check, check_label, fix_first
from grader.run.compare import as_float_array, compare
from grader.run.replay import ReplayMiss
from grader.run.results import Outcome, Proof

FILES = ("sgd.py",)
ANNEAL_EVERY = 20000
PATH_RTOL, PATH_ATOL = 1e-6, 1e-9


@dataclass
class PathCase:
    """One sgd run on a quadratic: its inputs, and the student's path (points f was called at) and result."""

    x0: np.ndarray
    step: float
    iterations: int
    a: np.ndarray
    b: np.ndarray
    scale: float | None
    points: np.ndarray | None
    x: np.ndarray | None
    post_calls: int
    #: path(**variant): the points and result of sgd_path on these inputs (ctx.ref.grader_math, so
    #: the kit replays the recorded answers; a variant it lacks means no match)
    path: Callable[..., tuple[np.ndarray, np.ndarray]]


def _path_shape(shape_id: str, message: str, credit: float = 0.0, *, needs_post: bool = False,
                post_called: bool | None = None, **variant: Any) -> BugShape[PathCase]:
    def matches(case: PathCase) -> bool:
        if needs_post and case.scale is None:
            return False
        if post_called is not None and (case.post_calls > 0) != post_called:
            return False
        try:
            points, x = case.path(**variant)
            right_points, right_x = case.path()
        except ReplayMiss:  # the kit: this variant was not recorded for these inputs
            return False
        if np.allclose(x, right_x, rtol=PATH_RTOL, atol=PATH_ATOL):
            return False
        return (case.x is not None and case.x.shape == x.shape
                and np.allclose(case.x, x, rtol=PATH_RTOL, atol=PATH_ATOL)
                and case.points is not None and case.points.shape == points.shape
                and np.allclose(case.points, points, rtol=PATH_RTOL, atol=PATH_ATOL))
    return BugShape(shape_id, matches, message, credit)


SGD_UPDATE: tuple[BugShape[PathCase], ...] = (
    _path_shape("sgd_anneals_every_iteration",
                f"the step halves after every iteration, not after every {ANNEAL_EVERY}; the update "
                f"itself is right, so this is charged to {check_label('sgd_anneal')} only",
                credit=1.0, anneal_every=1),
    _path_shape("sgd_uphill", "x moves up the gradient: gradient descent subtracts step·grad from x",
                sign=-1.0),
    _path_shape("sgd_postprocessing_discarded",
                "postprocessing was called but its result was thrown away: it returns the new x, "
                "so assign its return value to x", needs_post=True, post_called=True, post="discarded"),
    _path_shape("sgd_postprocessing_never_called",
                "postprocessing was never called: apply it to x after every update",
                needs_post=True, post_called=False, post="discarded"),
    _path_shape("sgd_postprocessing_first",
                "postprocessing is applied before the update: apply it after each update",
                needs_post=True, post="before"),
)


@check("sgd_update", files=FILES, names=("sgd.sgd",))
def update(ctx: CheckContext) -> Outcome:
    trials = Trials()
    rng = ctx.rng
    for t in range(5):
        n = int(rng.integers(1, 6))
        m = rng.normal(0, 1, (n, n))
        a = m @ m.T + np.eye(n)
        b = rng.normal(0, 1, n)
        step = float(rng.uniform(0.05, 0.5) / np.linalg.eigvalsh(a).max())
        iterations = int(rng.integers(5, 40))
        scale = float(rng.uniform(0.8, 0.99)) if t % 2 else None
        x0 = rng.normal(0, 2, n)
        what = (f"sgd(f, x0 of shape ({n},), step={step:.4g}, iterations={iterations}"
                f"{f', postprocessing=lambda x: x * {scale:.3g}' if scale else ''}) on f(x) = ½xᵀAx − bᵀx")
        got, err = ctx.try_call("sgd_run", what, kind="quadratic", x0=x0, step=step,
                                iterations=iterations, a=a, b=b, postprocess_scale=scale)
        if err:
            trials.record(False, err)
            continue
        path = functools.partial(ctx.ref.grader_math.sgd_path, x0, step, iterations, a, b, scale)
        points, x_final = path()
        got_points = as_float_array(got["first_points"])
        got_x = as_float_array(got["x"])
        case = PathCase(x0, step, iterations, a, b, scale, got_points,
                        None if got_x is None else got_x.reshape(-1) if got_x.size == n else got_x,
                        int(got["post_calls"]), path)
        problems = []
        if got["calls"] != iterations:
            problems.append(f"f was called {got['calls']} times; expected once per iteration ({iterations})")
        v = compare("the returned x", got["x"], x_final, rtol=PATH_RTOL, atol=PATH_ATOL, factor_hint=False)
        shape = None if v.ok else diagnose(SGD_UPDATE, case)
        if shape is not None and shape.credit == 1.0 and not problems:
            trials.charge("sgd_anneal", shape.message,
                          Proof(f"trial {t + 1} of {check_label('sgd_update')}: {what}: the returned x "
                                "(the step halved after every iteration)",
                                () if got_x is None else tuple(got_x.ravel()), tuple(np.ravel(x_final))))
            continue
        if scale is not None and got["post_calls"] != iterations and \
                (shape is None or shape.id != "sgd_postprocessing_never_called"):
            problems.append(f"postprocessing was called {got['post_calls']} times; expected once per "
                            f"iteration ({iterations}), after each update")
        if not v.ok:
            n_cmp = min(len(points), len(got["first_points"]))
            for i in range(n_cmp):
                if not np.allclose(got["first_points"][i], points[i], rtol=PATH_RTOL, atol=PATH_ATOL):
                    v = compare(f"x at iteration {i + 1}", got["first_points"][i], points[i],
                                rtol=PATH_RTOL, atol=PATH_ATOL, factor_hint=False)
                    break
            problems.append(v.message + (f". {shape.message}" if shape is not None else
                                         " (each iteration: x ← x − step·grad, then x ← postprocessing(x))"))
        trials.record(not problems, f"trial {t + 1}: {what}: " + "; ".join(problems))
    return trials.outcome()


# ---------------------------------------------------------------------------------------------
# Annealing: judged on the sizes of the steps, relative to the student's own first step.
# ---------------------------------------------------------------------------------------------

@dataclass
class StepCase:
    """Step sizes of a run with a constant gradient (x moves by the current step each iteration):
    ``first`` the first two steps, then the steps of iterations 20000, 20001 and 40000, and the
    two steps of iterations 40001-40002 together."""

    first: tuple[float, float]
    s20000: float
    s20001: float
    s40000: float
    s_end: float


def _ratio(a: float, b: float) -> float:
    return a / b if b != 0 else float("nan")


def _isclose(a: float, b: float) -> bool:
    return bool(np.isfinite(a) and np.isclose(a, b, rtol=1e-6, atol=0))


ANNEAL: tuple[BugShape[StepCase], ...] = (
    BugShape("sgd_anneals_every_iteration",
             lambda c: _isclose(_ratio(c.first[1], c.first[0]), 0.5),
             f"the step halves after every iteration; it must halve only after every {ANNEAL_EVERY} "
             "iterations"),
    BugShape("sgd_never_anneals",
             lambda c: _isclose(_ratio(c.s20001, c.s20000), 1.0) and _isclose(_ratio(c.s40000, c.first[0]), 1.0),
             f"the step never halves: halve it after every {ANNEAL_EVERY} iterations"),
    BugShape("sgd_anneals_one_early",
             lambda c: _isclose(_ratio(c.s20000, c.first[0]), 0.5) and _isclose(_ratio(c.s20001, c.s20000), 1.0),
             f"the step halves one iteration early (after iteration {ANNEAL_EVERY - 1}): iterations are "
             f"numbered from 1, and the step halves after iteration {ANNEAL_EVERY}, {2 * ANNEAL_EVERY}, ..."),
    BugShape("sgd_anneals_one_late",
             lambda c: _isclose(_ratio(c.s20001, c.s20000), 1.0) and _isclose(_ratio(c.s40000, c.s20000), 0.5),
             f"the step halves one iteration late (after iteration {ANNEAL_EVERY + 1}): iterations are "
             f"numbered from 1, and the step halves after iteration {ANNEAL_EVERY}, {2 * ANNEAL_EVERY}, ..."),
    BugShape("sgd_anneal_wrong_factor",
             lambda c: not _isclose(_ratio(c.s20001, c.s20000), 0.5)
             and np.isfinite(_ratio(c.s20001, c.s20000)) and 0 < _ratio(c.s20001, c.s20000) < 1
             and _isclose(_ratio(c.s40000, c.s20001), 1.0),
             "the step shrinks at the right iteration but not by half: multiply it by 0.5"),
)


def _steps(got: dict[str, Any]) -> StepCase | None:
    at = got.get("points_at", {})
    first = as_float_array(got.get("first_points"))
    x = as_float_array(got.get("x"))
    need = ("19999", "20000", "20001", "39999", "40000")
    if first is None or x is None or first.shape[0] < 3 or any(k not in at for k in need):
        return None
    p = {k: float(np.asarray(at[k], dtype=float).reshape(-1)[0]) for k in need}
    f = first.reshape(first.shape[0], -1)[:, 0]
    return StepCase((float(f[1] - f[0]), float(f[2] - f[1])), p["20000"] - p["19999"],
                    p["20001"] - p["20000"], p["40000"] - p["39999"],
                    float(x.reshape(-1)[0]) - p["40000"])


@check("sgd_anneal", files=FILES, names=("sgd.sgd",))
def anneal(ctx: CheckContext) -> Outcome:
    trials = Trials()
    step = float(ctx.rng.uniform(1e-4, 1e-3))
    iterations = 2 * ANNEAL_EVERY + 2
    x0 = np.zeros(1)
    what = f"sgd(f, 0, step={step:.4g}, iterations={iterations}) with a constant gradient of 1"
    got = ctx.call("sgd_run", what, kind="constant", x0=x0, step=step, iterations=iterations)
    if got["calls"] != iterations:
        trials.record(False, f"{what}: f was called {got['calls']} times; expected {iterations}")
        return trials.outcome()
    case = _steps(got)
    if case is None or not np.isfinite(case.first[0]) or case.first[0] == 0:
        trials.record(False, f"{what}: x does not move in the first iteration, so the step sizes cannot "
                             f"be judged; {fix_first('sgd_update')}")
        return trials.outcome()
    s = case.first[0]
    judged = [
        (case.s20000, s, f"the step of iteration {ANNEAL_EVERY}", "the first iteration's step (no halving before)"),
        (case.s20001, s / 2, f"the step of iteration {ANNEAL_EVERY + 1}", "half the first step"),
        (case.s40000, s / 2, f"the step of iteration {2 * ANNEAL_EVERY}", "half the first step (no halving in between)"),
        (case.s_end, s / 2, f"iterations {2 * ANNEAL_EVERY + 1}-{2 * ANNEAL_EVERY + 2} together",
         "a quarter of the first step each"),
    ]
    shape = None
    for value, expected, name, meaning in judged:
        ok = _isclose(_ratio(value, expected), 1.0)
        message = ""
        if not ok:
            shape = shape or diagnose(ANNEAL, case)
            message = (f"{what}: {name} is {_ratio(value, s) + 0.0:.6g} times the first step; expected "
                       f"{_ratio(expected, s):.6g} ({meaning})"
                       + (f". {shape.message}" if shape is not None else
                          f" (the step must halve after every {ANNEAL_EVERY} iterations)"))
        trials.record(ok, message)
    if abs(s + step) > 1e-9 * step:
        trials.note(f"your first step moved x by {s:+.6g} where a right update moves it by {-step:+.6g}: only the "
                    f"sizes of the steps relative to each other are judged here ({check_label('sgd_update')} "
                    "judges the update)")
    return trials.outcome()


