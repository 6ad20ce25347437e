"""Probes for word2vec.py and sgd.py. Runs next to untrusted student code, in the worker.

Each probe calls the student's functions on the inputs the trusted grader sent and returns
plain data. Nothing here compares or scores: the trusted process does that.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


class ReplayDataset:
    """A dataset whose sampleTokenIdx() replays a fixed sequence of draws chosen by the grader.

    The grader knows the sequence, so it can reproduce exactly which negatives a correct
    getNegativeSamples picks (redraws included). Running past the end is an error.
    """

    def __init__(self, draws: list[int]):
        self.draws = [int(d) for d in draws]
        self.used = 0

    def sampleTokenIdx(self) -> int:  # the assignment's name
        if self.used >= len(self.draws):
            raise RuntimeError(f"dataset.sampleTokenIdx() was called more than {len(self.draws)} "
                               "times for one loss evaluation; with K negatives a correct "
                               "implementation draws K times plus one redraw per collision")
        value = self.draws[self.used]
        self.used += 1
        return value

    def getRandomContext(self, C: int):  # the assignment's name
        raise RuntimeError("getRandomContext is not used by this check")


def _w2v():
    return importlib.import_module("word2vec")


def _loss_call(function: str, center: np.ndarray, outside_idx: int, outside: np.ndarray,
               draws: list[int] | None, k: int | None):
    fn = getattr(_w2v(), function)
    dataset = ReplayDataset(draws or [])
    if k is None:
        out = fn(center.copy(), int(outside_idx), outside.copy(), dataset)
    else:
        out = fn(center.copy(), int(outside_idx), outside.copy(), dataset, K=int(k))
    return out, dataset.used


def w2v_sigmoid(*, inputs: list[Any]) -> list[Any]:
    """sigmoid of each input (a float or an array), returned as given."""
    sigmoid = _w2v().sigmoid
    return [sigmoid(x if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else np.array(x))
            for x in inputs]


def w2v_loss(*, function: str, center: np.ndarray, outside_idx: int, outside: np.ndarray,
             draws: list[int] | None = None, k: int | None = None) -> dict[str, Any]:
    """(loss, gradCenterVec, gradOutsideVecs) of one loss function, and the draws it used."""
    out, used = _loss_call(function, center, outside_idx, outside, draws, k)
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        raise TypeError(f"{function} returned {type(out).__name__}"
                        f"{' of length ' + str(len(out)) if isinstance(out, (tuple, list)) else ''}; "
                        "expected a tuple (loss, gradCenterVec, gradOutsideVecs)")
    return {"loss": out[0], "grad_center": out[1], "grad_outside": out[2], "draws_used": used}


def w2v_losses(*, function: str, outside_idx: int, points: list[list[np.ndarray]],
               draws: list[int] | None = None, k: int | None = None) -> list[Any]:
    """The loss alone at many (center, outside) points: finite differences of the student's loss."""
    return [_loss_call(function, c, outside_idx, u, draws, k)[0][0] for c, u in points]


def w2v_skipgram(*, function: str, center_word: str, window_size: int, outside_words: list[str],
                 word2ind: dict[str, int], center_vectors: np.ndarray, outside_vectors: np.ndarray,
                 draws: list[int] | None = None) -> dict[str, Any]:
    """skipgram with the student's own loss function, plus that function's per-word outputs.

    The per-word outputs replay the same draws in the same order, so the trusted side can
    judge skipgram's sum against the student's loss function (a loss bug is not charged twice).
    When the loss function itself raises or returns gradients of the wrong shape, skipgram is
    not called: the trial cannot judge it, and says so.
    """
    w2v = _w2v()
    loss_fn = getattr(w2v, function)
    V, d = outside_vectors.shape
    parts = []
    try:
        replay = ReplayDataset(draws or [])
        center = center_vectors[word2ind[center_word]]
        for word in outside_words:
            loss, gc, go = loss_fn(center.copy(), word2ind[word], outside_vectors.copy(), replay)
            if np.size(gc) != d or np.size(go) != V * d or np.shape(go)[0] != V:
                return {"parts_error": f"{function} returned gradients of shapes {np.shape(gc)} "
                                       f"and {np.shape(go)}; expected ({d},) and ({V}, {d})"}
            parts.append({"loss": loss, "grad_center": np.reshape(gc, (d,)),
                          "grad_outside": np.reshape(go, (V, d))})
    except Exception as exc:  # the loss function is broken: skipgram can't be judged
        return {"parts_error": f"{function} raised {type(exc).__name__}: {exc}"}
    dataset = ReplayDataset(draws or [])
    out = w2v.skipgram(center_word, int(window_size), list(outside_words), dict(word2ind),
                       center_vectors.copy(), outside_vectors.copy(), dataset, loss_fn)
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        raise TypeError(f"skipgram returned {type(out).__name__}; expected a tuple "
                        "(loss, gradCenterVecs, gradOutsideVectors)")
    return {"loss": out[0], "grad_center": out[1], "grad_outside": out[2], "parts": parts}


def _scripted_loss_function(table: dict[str, np.ndarray], given: Any, calls: list[dict[str, Any]]):
    """The grader's loss function for skipgram: random tables sent by the grader, so the trusted
    process knows every output (it computes the same formula); every call is recorded. Its
    parameters are the assignment's loss functions' (a skipgram may pass any of them by name)."""

    def word2vecLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset=None,
                                K=10):  # students may pass the assignment's K
        v = np.asarray(centerWordVec, dtype=float).reshape(-1)
        u = np.asarray(outsideVectors, dtype=float)
        o = int(outsideWordIdx)
        calls.append({"center": v.copy(), "outside_idx": o, "outside": u.copy(),
                      "dataset_given": dataset is given})
        loss = float(table["loss"][o] + table["a"] @ v + np.sum(table["b"] * u))
        return loss, table["gc"][o] + table["m"] @ v, table["go"][o] + table["c"][o] * u

    return word2vecLossAndGradient


def w2v_skipgram_scripted(*, center_word: str, window_size: int, outside_words: list[str],
                          word2ind: dict[str, int], center_vectors: np.ndarray,
                          outside_vectors: np.ndarray, table: dict[str, np.ndarray]) -> dict[str, Any]:
    """skipgram with the grader's scripted loss function; its outputs and the calls it made."""
    calls: list[dict[str, Any]] = []
    dataset = ReplayDataset([])
    fn = _scripted_loss_function(table, dataset, calls)
    out = _w2v().skipgram(center_word, int(window_size), list(outside_words), dict(word2ind),
                          center_vectors.copy(), outside_vectors.copy(), dataset, fn)
    if not isinstance(out, (tuple, list)) or len(out) != 3:
        raise TypeError(f"skipgram returned {type(out).__name__}; expected a tuple "
                        "(loss, gradCenterVecs, gradOutsideVectors)")
    return {"loss": out[0], "grad_center": out[1], "grad_outside": out[2], "calls": calls}


def sgd_run(*, kind: str, x0: np.ndarray, step: float, iterations: int,
            a: np.ndarray | None = None, b: np.ndarray | None = None,
            postprocess_scale: float | None = None) -> dict[str, Any]:
    """Run the student's sgd on a function chosen by the grader; record every call.

    kind "quadratic": f(x) = 0.5 x.A.x - b.x, gradient A x - b.
    kind "constant":  f(x) = 0, gradient 1 everywhere (the path reveals each step size).
    postprocess_scale: if set, postprocessing multiplies x by it (and is recorded).
    """
    sgd = importlib.import_module("sgd").sgd
    seen: list[np.ndarray] = []
    post_seen: list[np.ndarray] = []

    def f(x):
        x = np.array(x, dtype=float)
        seen.append(x.copy())
        if kind == "quadratic":
            return float(0.5 * x @ a @ x - b @ x), a @ x - b
        return 0.0, np.ones_like(x)

    post = None
    if postprocess_scale is not None:
        def post(x):
            post_seen.append(np.array(x, dtype=float).copy())
            return x * postprocess_scale

    x = sgd(f, x0.copy(), float(step), int(iterations), postprocessing=post, PRINT_EVERY=10**9)
    keep = 50  # the path is long for annealing runs: keep its ends and its size
    path = np.array(seen) if seen else np.zeros((0,) + x0.shape)
    return {"x": x, "calls": len(seen), "first_points": path[:keep],
            "points_at": {str(i): path[i] for i in (19999, 20000, 20001, 39999, 40000) if i < len(path)},
            "post_calls": len(post_seen)}


PROBES = {
    "w2v_sigmoid": w2v_sigmoid,
    "w2v_loss": w2v_loss,
    "w2v_losses": w2v_losses,
    "w2v_skipgram": w2v_skipgram,
    "w2v_skipgram_scripted": w2v_skipgram_scripted,
    "sgd_run": sgd_run,
}
