"""Bug shapes of parser_model.py and run.py, and the helpers that keep one bug on one check.

Everything here runs in the trusted process: the known-wrong variants are computed with numpy
from the values the grader placed in the student's model; the worker only runs the student's
code and, where a check must be judged apart from a wrong embedding_lookup, is given the values
a correct lookup has (data, never code). Messages name the bug and the fix in words.

- A role held by a plain tensor (``self.embeddings = torch.tensor(embeddings)``) or a buffer
  is still given the grader's test values (model_params.match_roles), so embedding_lookup and
  forward are judged on what they compute; only model_structure charges the representation.
- forward, dropout and gradients run with the grader's lookup values when the student's
  embedding_lookup is wrong for the trial's w: a lookup bug is charged to model_embedding_lookup
  only (the note says so).
- A parameter forward never uses gets no gradient; when the logits are exactly those without it,
  that is charged to model_forward only (GRADIENTS, credit 1).
- DROPOUT names dropout applied before the hidden layer (to x or the embeddings), and the wrong
  scale factors; TRAINING_ERRORS names the one-hot targets given to the loss as Long.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from a2.bug_shapes import BugShape, diagnose
from a2.checks.helpers.model_params import Instance, reference_output, try_call
from grader.run.check_api import CheckContext, Trials, check_label, fix_first
from grader.run.compare import close
from grader.run.replay import ReplayMiss

#: Per-row scale factors of a surviving hidden unit that vary by more than this (standard
#: deviation) cannot come from one dropout mask on the hidden layer (it gives 0 or γ exactly).
SCALE_SPREAD = 0.02


# ---------------------------------------------------------------------------------------------
# Judging forward, dropout and gradients apart from a wrong embedding_lookup
# ---------------------------------------------------------------------------------------------

def lookup_override(ctx: CheckContext, inst: Instance, w: np.ndarray, trials: Trials) -> dict[str, Any]:
    """{} when the student's embedding_lookup is right for ``w`` (or cannot be judged), else
    {"lookup": the right values}: the worker then hands forward those values from
    self.embedding_lookup, so that the calling check judges only its own part."""
    if "embeddings" not in inst.matches:
        return {}
    got, err = try_call(ctx, "model_run", f"{inst.what}.embedding_lookup(w)", **inst.ctor(0.0),
                        assign=inst.assign(), calls=[{"method": "embedding_lookup", "mode": "eval", "w": w}])
    right = reference_output(ctx, inst, w, "embedding_lookup")
    if not err and close(got[0].get("value"), right):
        return {}
    trials.note(f"embedding_lookup is wrong (see {check_label('model_embedding_lookup')}), so this check "
                "ran forward with the right embedding_lookup values: the lookup bug is charged there only")
    return {"lookup": right.astype(np.float32)}


@dataclass(frozen=True)
class GradientCase:
    """A parameter without a gradient: its role, the logits of that forward, and
    ``logits_without(role)``: the right logits with that role left out ("" for none), from
    ``ctx.ref.grader_math`` (the kit replays recorded answers; one it lacks means no match)."""

    role: str
    logits: Any
    logits_without: Callable[[str], np.ndarray]


def _unused_in_forward(c: GradientCase) -> bool:
    try:
        return c.role != "embeddings" and close(c.logits, c.logits_without(c.role)) \
            and not close(c.logits, c.logits_without(""))
    except ReplayMiss:
        return False


GRADIENTS: tuple[BugShape[GradientCase], ...] = (
    BugShape("param_unused_in_forward",
             _unused_in_forward,
             "is not used in forward (the logits are those without it), so no gradient can reach it: "
             f"{check_label('model_forward')} charges that; fix forward and its gradient follows",
             credit=1.0),
)


def diagnose_gradient(case: GradientCase) -> BugShape[GradientCase] | None:
    return diagnose(GRADIENTS, case)


# ---------------------------------------------------------------------------------------------
# Dropout
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DropoutCase:
    """Train-mode rows of the dropout check where the one hidden unit reaching the logits was not
    zeroed: ``scales`` is, per row, that unit's value relative to its eval-mode value."""

    p: float
    dropped_fraction: float
    #: of the rows where the unit was not zeroed, the fraction neither scaled by γ nor unscaled
    other_fraction: float
    scales: np.ndarray  # per such row


def row_scales(train: np.ndarray, kept: np.ndarray, without: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per row, the factor c with train = without + c (kept - without) (least squares)."""
    num = ((train - without) * (kept - without)).sum(axis=1)
    den = ((kept - without) ** 2).sum(axis=1)
    return num[rows] / den[rows]


def _spread(c: DropoutCase) -> bool:
    return c.scales.size >= 10 and c.other_fraction > 0.5 and float(np.std(c.scales)) > SCALE_SPREAD


def _one_scale(c: DropoutCase, factor: float) -> bool:
    return c.scales.size >= 10 and c.other_fraction > 0.9 and float(np.std(c.scales)) <= SCALE_SPREAD \
        and bool(np.allclose(c.scales, factor, rtol=1e-3))


DROPOUT: tuple[BugShape[DropoutCase], ...] = (
    BugShape("dropout_before_hidden_layer", _spread,
             "in train mode the hidden unit is neither zeroed nor scaled as dropout scales it: it changes by a "
             "different amount in every example, as it does when dropout is applied to the input x (the "
             "embeddings) instead of the hidden layer. Apply self.dropout to h = ReLU(x W + b1), before "
             "the output layer"),
    BugShape("dropout_scaled_by_keep_probability",
             lambda c: abs(c.dropped_fraction - c.p) < 0.1 and _one_scale(c, 1 - c.p) and c.p > 0,
             "the surviving hidden units are multiplied by the keep probability, which shrinks their expected "
             "value; they must be scaled so that each unit keeps its expected value (written question "
             "2(b)(i); nn.Dropout does this itself)"),
    BugShape("dropout_scaled_by_p",
             lambda c: abs(c.dropped_fraction - c.p) < 0.1 and (_one_scale(c, 1 / c.p) or _one_scale(c, c.p)),
             "the surviving hidden units are scaled with p (the drop probability), where the keep "
             "probability belongs (written question 2(b)(i); nn.Dropout does this itself)"),
)


def dropout_case(train: np.ndarray, kept: np.ndarray, without: np.ndarray, informative: np.ndarray,
                 dropped: np.ndarray, other: np.ndarray, p: float) -> DropoutCase:
    """``other``: the informative rows neither zeroed, scaled by γ nor unscaled (as the check
    classifies them against the student's own model built with dropout_prob=0)."""
    n = max(int(informative.sum()), 1)
    survivors = max(int((informative & ~dropped).sum()), 1)
    return DropoutCase(p, float(dropped.sum()) / n, float(other.sum()) / survivors,
                       row_scales(train, kept, without, other))


def diagnose_dropout(case: DropoutCase) -> BugShape[DropoutCase] | None:
    """The named dropout bug of one train-mode call, or None."""
    return diagnose(DROPOUT, case)


# ---------------------------------------------------------------------------------------------
# Training errors
# ---------------------------------------------------------------------------------------------

TRAINING_ERRORS: tuple[BugShape[str], ...] = (
    BugShape("onehot_long_targets",
             lambda text: "class probabilities, got Long" in text or "multi-target not supported" in text,
             "the targets given to the loss function are the one-hot rows of train_y (shape (batch, 3)) "
             "as integers: CrossEntropyLoss takes the gold transition of each example as a class index, "
             "a LongTensor of shape (batch,) (the column of the 1 in each row, e.g. via nonzero or argmax)"),
)


def training_error_hint(text: str, *, dependent: str = "") -> str:
    """The named cause of a training error, or ''; ``dependent``: the check whose bug it is, when
    the caller is a check that depends on it."""
    shape = diagnose(TRAINING_ERRORS, text)
    if shape is None:
        return ""
    return shape.message + (f" ({fix_first(dependent)})" if dependent else "")
