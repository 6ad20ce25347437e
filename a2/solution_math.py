"""The grader's own solution-derived math, on the trusted side only (never in the student kit).

What the checks compute from the assignment's formulas (the parser model's forward pass, an sgd
path, negative sampling's outputs on top of a given sigmoid) lives here, and checks reach it
through the reference namespace: ``ctx.ref.grader_math`` (``a2/reference.py`` adds this
module to it). So the kit's RecordingRef records these answers at build time like any reference
call, and the kit ships the recorded values, never this code (``grader/kit/assemble.py`` lists it in
NEVER_SHIPPED; tests/test_kit.py scans the kit for its names and code lines). numpy only: the
trusted process must not import torch for the model checks (tests/test_memory.py).
"""

from __future__ import annotations

import numpy as np

ANNEAL_EVERY = 20000


def model_forward(values: dict[str, np.ndarray], w: np.ndarray) -> dict[str, np.ndarray]:
    """The parser model's eval-mode pieces in float64 for indices ``w`` and parameter ``values``
    (by role): x (embedding_lookup), z, h and logits (forward), and the values themselves."""
    v = {k: np.asarray(a).astype(np.float64) for k, a in values.items()}
    w = np.asarray(w)
    x = v["embeddings"][w].reshape(w.shape[0], -1)
    z = x @ v["embed_to_hidden_weight"] + v["embed_to_hidden_bias"]
    h = np.maximum(z, 0)
    logits = h @ v["hidden_to_logits_weight"] + v["hidden_to_logits_bias"]
    return {"x": x, "z": z, "h": h, "logits": logits, **v}


def mlp(values: dict[str, np.ndarray], x: np.ndarray, *, without: str = "") -> np.ndarray:
    """Logits of the contract's network on the looked-up ``x`` (float64), with role ``without``
    left out (taken as zero)."""
    v = {k: np.zeros_like(a, dtype=np.float64) if k == without else a.astype(np.float64)
         for k, a in values.items()}
    hidden = np.maximum(x @ v["embed_to_hidden_weight"] + v["embed_to_hidden_bias"], 0)
    return hidden @ v["hidden_to_logits_weight"] + v["hidden_to_logits_bias"]


def sgd_path(x0, step, iterations, a, b, scale, *, sign: float = 1.0, post: str = "after",
             anneal_every: int = ANNEAL_EVERY) -> tuple[np.ndarray, np.ndarray]:
    """The points an sgd evaluates f(x) = ½xᵀAx − bᵀx at, and its result. The defaults are the
    rule; the keywords give the known-wrong variants: ``sign`` -1 steps uphill, ``post``
    "before" applies postprocessing first, "discarded" drops its result, ``anneal_every`` 1
    halves the step after every iteration."""
    x = np.array(x0, dtype=float, copy=True)
    points = []
    for it in range(1, iterations + 1):
        if scale is not None and post == "before":
            x = x * scale
        points.append(x.copy())
        x = x - sign * step * (a @ x - b)
        if scale is not None and post == "after":
            x = x * scale
        if it % anneal_every == 0:
            step *= 0.5
    return np.array(points), x


def neg_grads(outside: np.ndarray, center: np.ndarray, o: int, negatives: list[int], a_o: float,
              b: np.ndarray, *, accumulate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """gradCenterVec and gradOutsideVecs of negative sampling for the coefficients a_o (of u_o) and
    b (one per draw); ``accumulate=False`` writes each repeated row once (fancy-index ``+=``)."""
    gc = a_o * outside[o] + (b @ outside[negatives] if negatives else 0.0)
    go = np.zeros_like(outside)
    go[o] += a_o * center
    if negatives:
        if accumulate:
            np.add.at(go, negatives, np.outer(b, center))
        else:
            go[negatives] += np.outer(b, center)
    return gc, go


def neg_outputs_with_sigmoid(outside: np.ndarray, center: np.ndarray, o: int, negatives: list[int],
                             s_o: float, s_neg: np.ndarray) -> dict[str, object]:
    """Negative sampling's outputs computed with given values of σ(u_o·v_c) and σ(−u_k·v_c) (the
    student's sigmoid at those points): what a right negSamplingLossAndGradient returns on top
    of a wrong sigmoid."""
    with np.errstate(all="ignore"):
        loss = float(-np.log(s_o) - np.sum(np.log(s_neg)))
        gc, go = neg_grads(outside, center, o, negatives, s_o - 1.0, 1.0 - np.asarray(s_neg))
    return {"loss": loss, "grad_center": gc, "grad_outside": go}


def scripted_output(table: dict[str, np.ndarray], center: np.ndarray, o: int,
                    outside: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The grader's loss function (the worker's probe computes the same): random, reproducible,
    and dependent on every argument, so a wrong argument shows in the result."""
    loss = float(table["loss"][o] + table["a"] @ center + np.sum(table["b"] * outside))
    gc = table["gc"][o] + table["m"] @ center
    go = table["go"][o] + table["c"][o] * outside
    return loss, gc, go


def dropout_scale(p: float) -> float:
    """The scale of the units inverted dropout keeps (written question 2(b)(i))."""
    return 1.0 / (1.0 - float(p))


def is_gold_3a_sequence(transitions: list[str]) -> bool:
    """Whether ``transitions`` is the gold sequence of the 3(a) sentence (written question 3(a)):
    the example check never sends it to student code."""
    return " ".join(transitions) == "S S LA S S LA RA S S S S LA LA LA RA RA"
