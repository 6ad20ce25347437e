"""The declared bug shapes of word2vec.py: what each known-wrong variant returns, and its message.

Every variant is computed here, in the trusted process, with plain numpy from the same inputs
the student's function got; nothing here is sent to the worker. Catalogues list specific shapes
first. Messages name the bug and the fix in words (an operation may be named), never code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from a2.bug_shapes import BugShape
from grader.run.compare import close

FIELD_NAMES = {"loss": "loss", "grad_center": "gradCenterVec", "grad_outside": "gradOutsideVecs"}


def _sigma(x: Any) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return np.exp(-np.logaddexp(0.0, -x))


# ---------------------------------------------------------------------------------------------
# sigmoid
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SigmoidCase:
    x: np.ndarray
    expected: np.ndarray
    got: Any


def _sigmoid_shape(shape_id: str, variant: Callable[[np.ndarray], np.ndarray], message: str) -> BugShape[SigmoidCase]:
    def matches(case: SigmoidCase) -> bool:
        value = variant(case.x)
        return close(case.got, value) and not close(value, case.expected)
    return BugShape(shape_id, matches, message)


SIGMOID: tuple[BugShape[SigmoidCase], ...] = (
    _sigmoid_shape("sigmoid_negated", lambda x: _sigma(-x),
                   "sigmoid returns σ(−x): the sign of x in the exponent is flipped "
                   "(σ(x) = 1/(1 + e^(−x)) is near 1 for large positive x)"),
    _sigmoid_shape("sigmoid_derivative", lambda x: _sigma(x) * _sigma(-x),
                   "sigmoid returns σ(x)(1 − σ(x)), the derivative of σ, not σ itself"),
)


# ---------------------------------------------------------------------------------------------
# naiveSoftmaxLossAndGradient, negSamplingLossAndGradient
# ---------------------------------------------------------------------------------------------

@dataclass
class LossCase:
    """One call of a loss function: its inputs, the right outputs and the student's (float arrays
    reshaped to the contract's shapes, or None when they could not be read)."""

    function: str
    center: np.ndarray
    outside: np.ndarray
    outside_idx: int
    negatives: list[int]
    expected: dict[str, np.ndarray]
    got: dict[str, Any]
    cache: dict[str, Any] = field(default_factory=dict)

    # Quantities of negative sampling: x_o = u_o·v_c and x_k = u_k·v_c per draw.
    @property
    def x_o(self) -> float:
        return float(self.outside[self.outside_idx] @ self.center)

    @property
    def x_neg(self) -> np.ndarray:
        return self.outside[self.negatives] @ self.center if self.negatives else np.zeros(0)

    @property
    def y_hat(self) -> np.ndarray:
        scores = self.outside @ self.center
        e = np.exp(scores - scores.max())
        return e / e.sum()


def _field_shape(shape_id: str, fieldname: str, variant: Callable[[LossCase], Any], message: str,
                 *, alternatives: bool = False) -> BugShape[LossCase]:
    """A shape of one output: the student's ``fieldname`` is ``variant(case)`` (or, with
    ``alternatives``, one of the values it returns) and the right answer is not."""
    def matches(case: LossCase) -> bool:
        got = case.got.get(fieldname)
        if got is None:
            return False
        values = variant(case) if alternatives else [variant(case)]
        return any(close(got, v) and not close(v, case.expected[fieldname]) for v in values)
    return BugShape(shape_id, matches, f"{FIELD_NAMES[fieldname]}: {message}")


def _neg_grads(case: LossCase, a_o: float, b: np.ndarray, *, accumulate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """gradCenterVec and gradOutsideVecs of negative sampling for the coefficients a_o and b."""
    from a2 import solution_math  # noqa: PLC0415 - trusted side only (never in the kit)

    return solution_math.neg_grads(case.outside, case.center, case.outside_idx, case.negatives, a_o, b,
                                   accumulate=accumulate)


def _right_coefficients(case: LossCase) -> tuple[float, np.ndarray]:
    return float(_sigma(case.x_o)) - 1.0, _sigma(case.x_neg)


def _neg_variant(fieldname: str, a_o: Callable[[LossCase], float] | None = None,
                 b: Callable[[LossCase], np.ndarray] | None = None) -> Callable[[LossCase], np.ndarray]:
    def value(case: LossCase) -> np.ndarray:
        right_a, right_b = _right_coefficients(case)
        gc, go = _neg_grads(case, a_o(case) if a_o else right_a, b(case) if b else right_b)
        return gc if fieldname == "grad_center" else go
    return value


def _distinct(case: LossCase) -> LossCase:
    """The same case with each distinct negative once (what set() or np.unique would give)."""
    return LossCase(case.function, case.center, case.outside, case.outside_idx,
                    sorted(set(case.negatives)), case.expected, case.got)


def _neg_loss(x_o: float, x_neg: np.ndarray) -> float:
    return float(-np.log(_sigma(x_o)) - np.sum(np.log(_sigma(-x_neg))))


NEG_LOSS: tuple[BugShape[LossCase], ...] = (
    _field_shape("neg_loss_no_log", "loss",
                 lambda c: [s * (float(_sigma(c.x_o)) + float(np.sum(_sigma(-c.x_neg)))) for s in (-1, 1)],
                 "the loss adds up σ values without their log: each term of the loss is −log σ(·)",
                 alternatives=True),
    _field_shape("neg_loss_sign_outside", "loss",
                 lambda c: _neg_loss(-c.x_o, c.x_neg),
                 "the sign inside σ is flipped in the true outside word's term: it is −log σ(u_o·v_c), "
                 "with a plus sign inside σ"),
    _field_shape("neg_loss_sign_negatives", "loss",
                 lambda c: _neg_loss(c.x_o, -c.x_neg),
                 "the sign inside σ is flipped in the negative samples' terms: they are −log σ(−u_k·v_c), "
                 "with a minus sign inside σ"),
    _field_shape("neg_loss_sign_both", "loss",
                 lambda c: _neg_loss(-c.x_o, -c.x_neg),
                 "the sign inside σ is flipped in every term: the true outside word's term has "
                 "σ(u_o·v_c) and the negatives' terms σ(−u_k·v_c)"),
    _field_shape("neg_loss_negatives_subtracted", "loss",
                 lambda c: float(-np.log(_sigma(c.x_o)) + np.sum(np.log(_sigma(-c.x_neg)))),
                 "the negative samples' terms have the wrong sign: each adds −log σ(−u_k·v_c), a "
                 "positive amount, to the loss, as the outside word's term does"),
    _field_shape("neg_loss_distinct_once", "loss",
                 lambda c: _neg_loss(c.x_o, _distinct(c).x_neg),
                 "a negative drawn more than once is counted once (as after set() or np.unique): "
                 "every draw adds its own term, repeats included"),
)


def _neg_grad_shapes(fieldname: str) -> tuple[BugShape[LossCase], ...]:
    o_term = ("the term of the true outside word u_o" if fieldname == "grad_center"
              else "row outsideWordIdx (the true outside word)")
    k_terms = ("the negative samples' terms" if fieldname == "grad_center"
               else "the rows of the negative samples")
    prefix = "neg_gc" if fieldname == "grad_center" else "neg_go"
    out = []
    if fieldname == "grad_outside":
        def fancy(case: LossCase) -> np.ndarray:
            a, b = _right_coefficients(case)
            return _neg_grads(case, a, b, accumulate=False)[1]
        out.append(_field_shape(
            "neg_go_repeats_lost", fieldname, fancy,
            "a negative drawn more than once adds to its row only once. With fancy indexing "
            "(g[indices] += ...) a repeated index is written once, not added twice: accumulate with "
            "np.add.at or a loop over the draws"))
    else:
        def distinct_gc(case: LossCase) -> np.ndarray:
            d = _distinct(case)
            a, b = _right_coefficients(d)
            return _neg_grads(d, a, b)[0]
        out.append(_field_shape(
            "neg_gc_distinct_once", fieldname, distinct_gc,
            "a negative drawn more than once is counted once (as after set() or np.unique): every "
            "draw adds its own term, repeats included"))
    out += [
        _field_shape(f"{prefix}_o_missing_minus_one", fieldname,
                     _neg_variant(fieldname, a_o=lambda c: float(_sigma(c.x_o))),
                     f"{o_term} has σ(u_o·v_c) as its coefficient, off by exactly 1: the derivative of "
                     "−log σ(x) is σ(x) − 1"),
        _field_shape(f"{prefix}_o_sign", fieldname,
                     _neg_variant(fieldname, a_o=lambda c: 1.0 - float(_sigma(c.x_o))),
                     f"{o_term} has the opposite sign (the derivative of −log σ(x) is σ(x) − 1, "
                     "which is negative)"),
        _field_shape(f"{prefix}_neg_sigma", fieldname,
                     _neg_variant(fieldname, b=lambda c: _sigma(-c.x_neg)),
                     f"{k_terms} use σ(−u_k·v_c) as their coefficient where 1 − σ(−u_k·v_c) belongs "
                     "(the derivative of −log σ(−x) is 1 − σ(−x))"),
        _field_shape(f"{prefix}_neg_sign", fieldname,
                     _neg_variant(fieldname, b=lambda c: -_sigma(c.x_neg)),
                     f"{k_terms} have the opposite sign (the derivative of −log σ(−x) with respect "
                     "to x is 1 − σ(−x), which is positive)"),
        _field_shape(f"{prefix}_neg_missing", fieldname,
                     _neg_variant(fieldname, b=lambda c: np.zeros(len(c.negatives))),
                     f"{k_terms} are missing: every negative sample contributes to the gradient"),
        _field_shape(f"{prefix}_o_missing", fieldname,
                     _neg_variant(fieldname, a_o=lambda c: 0.0),
                     f"{o_term} is missing: the true outside word contributes to the gradient"),
    ]
    return tuple(out)


NEG_GRAD_CENTER = _neg_grad_shapes("grad_center")
NEG_GRAD_OUTSIDE = _neg_grad_shapes("grad_outside")


def _naive_delta(case: LossCase, *, with_y: bool) -> np.ndarray:
    delta = case.y_hat.copy()
    if with_y:
        delta[case.outside_idx] -= 1.0
    return delta


NAIVE_LOSS: tuple[BugShape[LossCase], ...] = (
    _field_shape("naive_loss_no_log", "loss",
                 lambda c: [-c.y_hat[c.outside_idx], c.y_hat[c.outside_idx], 1 - c.y_hat[c.outside_idx]],
                 "the loss is the probability ŷ_o itself, without the log: it is −log ŷ_o",
                 alternatives=True),
    _field_shape("naive_loss_no_normalizer", "loss",
                 lambda c: -float(c.outside[c.outside_idx] @ c.center),
                 "the loss is the raw score −u_o·v_c: the log of the softmax's denominator "
                 "(log Σ_w exp(u_w·v_c)) is missing"),
)

NAIVE_GRADS: tuple[BugShape[LossCase], ...] = (
    _field_shape("naive_gc_missing_y", "grad_center",
                 lambda c: c.outside.T @ _naive_delta(c, with_y=False),
                 "it leaves out the one-hot y of the true outside word: its −1 is missing"),
    _field_shape("naive_go_missing_y", "grad_outside",
                 lambda c: np.outer(_naive_delta(c, with_y=False), c.center),
                 "it leaves out the one-hot y of the true outside word: row outsideWordIdx lacks its share"),
)

#: Per function: the catalogue of shapes that name a wrong output.
LOSS_SHAPES: dict[str, tuple[BugShape[LossCase], ...]] = {
    "naiveSoftmaxLossAndGradient": NAIVE_LOSS + NAIVE_GRADS,
    "negSamplingLossAndGradient": NEG_LOSS + NEG_GRAD_CENTER + NEG_GRAD_OUTSIDE,
}


# ---------------------------------------------------------------------------------------------
# skipgram, judged with the grader's scripted loss function
# ---------------------------------------------------------------------------------------------

@dataclass
class SkipgramCase:
    """One skipgram call with the scripted loss function: the inputs, each outside word's right
    loss output, the right sums, the student's outputs and the calls the loss function got."""

    center_idx: int
    outside_idx: list[int]
    centers: np.ndarray
    outsides: np.ndarray
    parts: list[tuple[float, np.ndarray, np.ndarray]]
    expected: dict[str, Any]
    got: dict[str, Any]
    calls: list[dict[str, Any]]


def _sk_value(fieldname: str, variant: Callable[[SkipgramCase], Any], message: str,
              shape_id: str) -> BugShape[SkipgramCase]:
    def matches(case: SkipgramCase) -> bool:
        if len(case.parts) < 2 or case.got.get(fieldname) is None:
            return False
        value = variant(case)
        return close(case.got[fieldname], value) and not close(value, case.expected[fieldname])
    names = {"loss": "loss", "grad_center": "gradCenterVecs", "grad_outside": "gradOutsideVectors"}
    return BugShape(shape_id, matches, f"{names[fieldname]}: {message}")


def _wrong_rows(case: SkipgramCase) -> np.ndarray:
    g = np.zeros_like(case.centers)
    for o, (_, gc, _) in zip(case.outside_idx, case.parts):
        g[o] += gc
    return g


def _last_center(case: SkipgramCase) -> np.ndarray:
    g = np.zeros_like(case.centers)
    g[case.center_idx] = case.parts[-1][1]
    return g


def _calls_shape(shape_id: str, test: Callable[[SkipgramCase], bool], message: str) -> BugShape[SkipgramCase]:
    return BugShape(shape_id, lambda case: bool(case.calls) and test(case), message)


def _center_passed_wrong(case: SkipgramCase) -> bool:
    right = case.centers[case.center_idx]
    return any(not close(c.get("center"), right) for c in case.calls)


def _center_is_outside_row(case: SkipgramCase) -> bool:
    return all(close(c.get("center"), case.outsides[case.center_idx]) for c in case.calls) and \
        not close(case.outsides[case.center_idx], case.centers[case.center_idx])


SKIPGRAM: tuple[BugShape[SkipgramCase], ...] = (
    BugShape("skipgram_ignores_loss_function", lambda case: not case.calls,
             "skipgram never called the word2vecLossAndGradient it was given (the grader passed its "
             "own loss function): call the function passed as that argument, not a loss function "
             "by name"),
    _calls_shape("skipgram_center_from_outside_vectors", _center_is_outside_row,
                 "the loss function was given the center word's row of outsideVectors as "
                 "centerWordVec: the center word's vector is its row of centerWordVectors"),
    _calls_shape("skipgram_wrong_center_vector", _center_passed_wrong,
                 "the loss function was not given the center word's vector (its row "
                 "word2Ind[currentCenterWord] of centerWordVectors) as centerWordVec"),
    _calls_shape("skipgram_wrong_outside_matrix",
                 lambda case: any(not close(c.get("outside"), case.outsides) for c in case.calls),
                 "the loss function was not given outsideVectors as its outsideVectors argument"),
    _calls_shape("skipgram_wrong_outside_words",
                 lambda case: sorted(int(c.get("outside_idx", -1)) for c in case.calls) != sorted(case.outside_idx),
                 "the loss function was not called once per outside word with that word's index "
                 "(word2Ind[outsideWord]) as outsideWordIdx"),
    _sk_value("grad_center", _wrong_rows,
              "the center gradient is right but sits in the wrong row: it belongs in row "
              "word2Ind[currentCenterWord]", "skipgram_center_grad_wrong_row"),
    _sk_value("grad_outside", lambda c: c.parts[-1][2],
              "only the last outside word's gradient is kept: each outside word's gradient must be "
              "added to it (+=), not assigned (=)", "skipgram_outside_grad_overwritten"),
    _sk_value("grad_center", _last_center,
              "only the last outside word's center gradient is kept: each must be added (+=), "
              "not assigned (=)", "skipgram_center_grad_overwritten"),
    _sk_value("loss", lambda c: c.parts[-1][0],
              "only the last outside word's loss is kept: the losses of all outside words must be "
              "added up", "skipgram_loss_overwritten"),
    _sk_value("loss", lambda c: c.expected["loss"] / len(c.parts),
              "is the average over the outside words; skipgram returns their sum", "skipgram_loss_averaged"),
    _sk_value("grad_center", lambda c: c.expected["grad_center"] / len(c.parts),
              "is the average over the outside words; skipgram returns their sum", "skipgram_center_grad_averaged"),
    _sk_value("grad_outside", lambda c: c.expected["grad_outside"] / len(c.parts),
              "is the average over the outside words; skipgram returns their sum", "skipgram_outside_grad_averaged"),
)
