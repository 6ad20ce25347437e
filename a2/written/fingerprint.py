"""What a formula answer evaluates to at fixed points: the key that groups equal answers.

Runs in the writeup reader's child process (request ``fingerprint`` of
:mod:`a2.written.process`), never in the trusted grader: the text is a student's. Given the
written checker of a question and the raw text the batch report kept for it, the formula is read
as the checker reads it and evaluated at :data:`POINTS` fixed instances of the question (drawn
from :data:`GROUP_SEED`, so the same for every submission and every run), plus, for the
word2vec questions, instances where U is square (d = |V|) so that a transposed product such as
Uᵀ(ŷ − y), which does not fit the assignment's shapes, still has values that tell it apart from
other wrong forms. The reply is plain data (numbers, shapes, error kinds); the grader compares
them (:mod:`grader.classroom.groups.cluster`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from a2.written.checker_registry import Verdict
from a2.written.formulas import read_formula
from a2.written.instances import CENTER, MATRIX, OUTSIDE_EQ, OUTSIDE_NEQ, RELU, SOFTMAX_CE, MathQuestion, _w2v_env
from a2.written.sections import Section
from grader.reading.answers import candidates
from grader.reading.evaluate import Env, EvalError, Evaluator, ShapeMismatch, show
from grader.reading.mathparse import Formula

GROUP_SEED = 915_015
"""Seed of the fixed instances every answer of a class is evaluated at."""
POINTS = 4
"""Fixed instances per question (as many as the checkers' trials, which cover every case)."""
SQUARE_D = 5
"""Size of U (d = |V|) at the square instances."""
RAW_SEPARATOR = "  |  "
"""How the report joins several formulas read for one item (1(d)'s two cases, two rival answers)."""

Evaluated = dict[str, Any]


def _square(case: str | None) -> Callable[[int], Env]:
    """Square word2vec instances (d = |V|): every product of U, v_c, y, ŷ fits."""
    def make(k: int) -> Env:
        rng = np.random.default_rng(GROUP_SEED + 100 + k)
        U = rng.normal(size=(SQUARE_D, SQUARE_D))
        v = rng.normal(size=(SQUARE_D, 1))
        o = int(rng.integers(SQUARE_D))
        w = None if case is None else (o if case == "eq" else (o + 1 + k) % SQUARE_D)
        return _w2v_env(SQUARE_D, SQUARE_D, U, v, o, w)
    return make


QUESTIONS: dict[str, tuple[MathQuestion, str | None]] = {
    "grad_center": (CENTER, None), "grad_outside_matrix": (MATRIX, None),
    "relu_jacobian": (RELU, None), "softmax_ce_grad": (SOFTMAX_CE, None),
}
SCALAR: dict[str, tuple[str, tuple[float, ...]]] = {
    "dropout_gamma": ("p", (0.1, 0.35, 0.6, 0.85)),
    "step_count": ("n", (3.0, 8.0, 17.0, 40.0)),
}
W2V = {"grad_center", "grad_outside_matrix", "grad_outside_cases"}


def _value(formula: Formula, env: Env, orientation_free: bool) -> Evaluated:
    try:
        with np.errstate(all="ignore"):
            value = Evaluator(formula, env).value()
    except ShapeMismatch:
        return {"error": "shapes"}
    except EvalError as exc:
        return {"error": type(exc).__name__ + ": " + str(exc)[:80]}
    array = np.asarray(value, dtype=float)
    if array.size == 1:
        return {"shape": [], "values": [float(array.reshape(-1)[0])]}
    shape = [int(array.size)] if orientation_free and 1 in array.shape else [int(n) for n in array.shape]
    return {"shape": shape, "values": [float(x) for x in array.reshape(-1)]}


def evaluations(formula: Formula, question: MathQuestion, square: Callable[[int], Env] | None) -> list[Evaluated]:
    """The formula at the fixed instances of ``question`` (and the square ones, if any)."""
    envs = [question.make(np.random.default_rng(GROUP_SEED + k), k).env for k in range(POINTS)]
    if square is not None:
        envs += [square(k) for k in range(2)]
    return [_value(formula, env, question.vector_orientation_free) for env in envs]


def _read(raw: str, question: MathQuestion, qid: str) -> Formula | str:
    got = read_formula(Section(qid, f"$${raw}$$"), question)
    if isinstance(got, Verdict):
        return "; ".join(line for line in got.feedback if not line.startswith("read:")) or "no formula"
    return got.formula


def _scalar(raw: str, var: str, points: tuple[float, ...]) -> dict[str, Any]:
    from grader.reading.mathparse import FormulaError, parse_formula

    found = candidates(f"$${raw}$$") or candidates(raw)
    if not found:
        return {"unreadable": "no formula"}
    try:
        formula = parse_formula(found[0].rhs)
    except FormulaError as exc:
        return {"unreadable": str(exc)}
    evaluated = [_value(formula, Env({var: x}), True) for x in points]
    return {"shown": show(formula.tree, formula), "cases": [evaluated]}


def fingerprint(checker: str, question: str, raw: str) -> dict[str, Any]:
    """``{"shown": str, "cases": [[evaluation, ...], ...]}`` or ``{"unreadable": why}``.

    An evaluation is ``{"shape", "values"}`` or ``{"error"}``; ``cases`` has one list per case of
    the question (two for 1(d): w = o, w ≠ o).
    """
    raw = raw.strip()
    if not raw:
        return {"unreadable": "no text"}
    if checker in SCALAR:
        return _scalar(raw, *SCALAR[checker])
    if checker == "grad_outside_cases":
        pieces = [p for p in raw.split(RAW_SEPARATOR) if p.strip()][-2:]
        if len(pieces) == 1:
            pieces *= 2
        cases, shown = [], []
        for piece, (q, case) in zip(pieces, ((OUTSIDE_EQ, "eq"), (OUTSIDE_NEQ, "neq"))):
            got = _read(piece, q, question)
            if isinstance(got, str):
                return {"unreadable": got}
            shown.append(show(got.tree, got))
            cases.append(evaluations(got, q, _square(case)))
        text = shown[0] if shown[0] == shown[1] else f"w = o: {shown[0]}; w ≠ o: {shown[1]}"
        return {"shown": text, "cases": cases}
    if checker not in QUESTIONS:
        return {"unreadable": f"no formula checker {checker!r}"}
    q, _ = QUESTIONS[checker]
    if checker == "grad_outside_matrix":
        from a2.written.columns import column_breakdown

        layout = next((column_breakdown(c.rhs) for c in candidates(f"$${raw}$$") if column_breakdown(c.rhs)), None)
        if layout:
            return {"shown": f"the ∂J/∂u_w as {layout}", "cases": [[{"error": f"layout: {layout}"}]]}
    if RAW_SEPARATOR in raw:
        raw = raw.split(RAW_SEPARATOR)[0]
    got = _read(raw, q, question)
    if isinstance(got, str):
        return {"unreadable": got}
    return {"shown": show(got.tree, got), "cases": [evaluations(got, q, _square(None) if checker in W2V else None)]}


FORMULA_CHECKERS = frozenset({*QUESTIONS, *SCALAR, "grad_outside_cases"})
"""Written checkers whose answers are grouped by their values."""
