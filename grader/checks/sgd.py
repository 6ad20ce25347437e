"""Checks of sgd.py: the update rule with postprocessing, and the step annealing."""

from __future__ import annotations

import numpy as np

from grader.checks.api import CheckContext, Trials, check
from grader.checks.compare import compare
from grader.results import Outcome

FILES = ("sgd.py",)
ANNEAL_EVERY = 20000


def _reference_path(x0, step, iterations, a, b, scale):
    """The points a correct sgd evaluates f at, and its result (the rule, computed here)."""
    x = x0.copy()
    points = []
    for it in range(1, iterations + 1):
        points.append(x.copy())
        x = x - step * (a @ x - b)
        if scale is not None:
            x = x * scale
        if it % ANNEAL_EVERY == 0:
            step *= 0.5
    return np.array(points), x


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
        points, x_final = _reference_path(x0, step, iterations, a, b, scale)
        problems = []
        if got["calls"] != iterations:
            problems.append(f"f was called {got['calls']} times; expected once per iteration ({iterations})")
        if scale is not None and got["post_calls"] != iterations:
            problems.append(f"postprocessing was called {got['post_calls']} times; expected once per "
                            f"iteration ({iterations}), after each update")
        v = compare("the returned x", got["x"], x_final, rtol=1e-6, atol=1e-9)
        if not v.ok:
            n_cmp = min(len(points), len(got["first_points"]))
            for i in range(n_cmp):
                if not np.allclose(got["first_points"][i], points[i], rtol=1e-6, atol=1e-9):
                    v = compare(f"x at iteration {i + 1}", got["first_points"][i], points[i],
                                rtol=1e-6, atol=1e-9)
                    break
            problems.append(v.message + " (each iteration: x ← x − step·grad, then x ← postprocessing(x))")
        trials.record(not problems, f"trial {t + 1}: {what}: " + "; ".join(problems))
    return trials.outcome()


@check("sgd_anneal", files=FILES, names=("sgd.sgd",))
def anneal(ctx: CheckContext) -> Outcome:
    trials = Trials()
    step = float(ctx.rng.uniform(1e-4, 1e-3))
    iterations = 2 * ANNEAL_EVERY + 2
    x0 = np.zeros(1)
    what = f"sgd(f, 0, step={step:.4g}, iterations={iterations}) with a constant gradient of 1"
    got = ctx.call("sgd_run", what, kind="constant", x0=x0, step=step, iterations=iterations)
    at = got["points_at"]
    # With gradient 1, x drops by the current step each iteration.
    expected = {
        "20000": -step * 20000,                     # x before iteration 20001: 20000 full steps
        "20001": -step * 20000 - step / 2,          # one halved step later
        "40000": -step * 20000 - step / 2 * 20000,  # 20000 halved steps
    }
    final = -step * 20000 - step / 2 * 20000 - step / 4 * 2
    for key in ("20000", "20001", "40000"):
        if key not in at:
            trials.record(False, f"{what}: f was called only {got['calls']} times; expected {iterations}")
            continue
        v = compare(f"x after {int(key)} iterations", at[key], [expected[key]], rtol=1e-9, atol=1e-12,
                    hints=False)
        trials.record(v.ok, v.message + " (the step must halve after every 20000 iterations)")
    v = compare("the returned x", got["x"], [final], rtol=1e-9, atol=1e-12, hints=False)
    trials.record(v.ok, v.message)
    return trials.outcome()
