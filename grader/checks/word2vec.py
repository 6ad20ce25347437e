"""Checks of word2vec.py: sigmoid, both losses with their gradients, and skipgram.

Inputs are drawn from the check's generator; expected values come from the reference.
Negative sampling replays a sequence of draws chosen here, so the negatives a correct
implementation picks are known exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks.api import CheckContext, Trials, check
from grader.checks.compare import FD_ATOL, FD_RTOL, as_float_array, compare
from grader.results import Outcome

FILES = ("word2vec.py",)
TRIALS = 6
FD_STEP = 1e-5
NAIVE = "naiveSoftmaxLossAndGradient"
NEG = "negSamplingLossAndGradient"


class _Replay:
    """The trusted twin of the worker's ReplayDataset (feeds the reference the same draws)."""

    def __init__(self, draws: list[int]):
        self.draws, self.used = list(draws), 0

    def sampleTokenIdx(self) -> int:  # noqa: N802
        value = self.draws[self.used]
        self.used += 1
        return value


def _instance(rng: np.random.Generator, *, v_range=(4, 12), d_range=(2, 7)) -> dict[str, Any]:
    V = int(rng.integers(*v_range))
    d = int(rng.integers(*d_range))
    return {"center": rng.normal(0, 1, d), "outside": rng.normal(0, 1, (V, d)),
            "outside_idx": int(rng.integers(V))}


def _draws(rng: np.random.Generator, V: int, o: int, k: int, *, duplicates: bool) -> list[int]:
    """A draw sequence for k negatives: some draws equal o (to be redrawn), the rest valid.

    Without duplicates the valid draws are distinct, so a bug that loses repeated negatives
    only shows in the duplicates check.
    """
    others = [i for i in range(V) if i != o]
    if duplicates:
        valid = list(rng.choice(others, size=k, replace=True))
        while len(set(valid)) == len(valid):
            valid = list(rng.choice(others, size=k, replace=True))
    else:
        valid = list(rng.permutation(others)[:k])
    draws: list[int] = []
    for v in valid:
        if rng.random() < 0.25:
            draws.append(o)  # a collision the implementation must redraw
        draws.append(int(v))
    return [int(x) for x in draws]


def _shape(x: np.ndarray) -> str:
    return "x".join(map(str, x.shape)) if x.ndim else "scalar"


def _reference_loss(ctx: CheckContext, function: str, inst: dict, draws, k):
    fn = getattr(ctx.ref.word2vec, function)
    ds = _Replay(draws or [])
    if k is None:
        return fn(inst["center"].copy(), inst["outside_idx"], inst["outside"].copy(), ds)
    return fn(inst["center"].copy(), inst["outside_idx"], inst["outside"].copy(), ds, K=k)


def _own_fd(ctx: CheckContext, function: str, inst: dict, draws, k, what: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Central differences of the student's own loss, for the diagnosis of a wrong gradient."""
    c, u = inst["center"], inst["outside"]
    points = []
    for i in range(c.size):
        for sign in (1, -1):
            cc = c.copy()
            cc[i] += sign * FD_STEP
            points.append([cc, u])
    for idx in np.ndindex(u.shape):
        for sign in (1, -1):
            uu = u.copy()
            uu[idx] += sign * FD_STEP
            points.append([c, uu])
    losses, err = ctx.try_call("w2v_losses", what, function=function, outside_idx=inst["outside_idx"],
                               points=points, draws=draws, k=k)
    arr = as_float_array(losses)
    if err or arr is None or arr.size != len(points):
        return None
    diffs = (arr[0::2] - arr[1::2]) / (2 * FD_STEP)
    return diffs[:c.size], diffs[c.size:].reshape(u.shape)


def _loss_trial(ctx: CheckContext, trials: Trials, function: str, inst: dict,
                draws: list[int] | None, k: int | None, label: str) -> None:
    V, d = inst["outside"].shape
    what = (f"{function}(centerWordVec of shape ({d},), outsideWordIdx={inst['outside_idx']}, "
            f"outsideVectors of shape ({V}, {d}){'' if k is None else f', K={k}'})")
    got, err = ctx.try_call("w2v_loss", what, function=function, center=inst["center"],
                            outside_idx=inst["outside_idx"], outside=inst["outside"], draws=draws, k=k)
    if err:
        trials.record(False, err)
        return
    loss, gc, go = _reference_loss(ctx, function, inst, draws, k)
    verdicts = [compare("loss", got["loss"], loss),
                compare("gradCenterVec", got["grad_center"], gc, expected_shape_note=" (the shape of centerWordVec)"),
                compare("gradOutsideVecs", got["grad_outside"], go, expected_shape_note=" (the shape of outsideVectors)")]
    for v in verdicts:
        if v.ok and v.message:
            trials.note(v.message)
    bad = [v.message for v in verdicts if not v.ok]
    if not bad:
        trials.record(True)
        return
    message = f"{label}: {what}: " + "; ".join(bad)
    if k is not None and got.get("draws_used") != len(draws or []):
        message += (f". It drew {got.get('draws_used')} token(s) from the dataset where a correct "
                    f"getNegativeSamples draws {len(draws or [])}: keep the provided sampling call")
    grads_bad = not (verdicts[1].ok and verdicts[2].ok)
    # Finite differences can tell a wrong loss from a wrong gradient only when shapes are right.
    if grads_bad and all(v.ok or v.kind == "values" for v in verdicts):
        fd = _own_fd(ctx, function, inst, draws, k, what)
        if fd is not None:
            own_ok = (compare("", got["grad_center"], fd[0], rtol=FD_RTOL, atol=FD_ATOL).ok
                      and compare("", got["grad_outside"], fd[1], rtol=FD_RTOL, atol=FD_ATOL).ok)
            if verdicts[0].ok and not own_ok:
                message += ". Your loss is right but your gradients do not match its finite differences: the gradient formula is wrong"
            elif not verdicts[0].ok and own_ok:
                message += ". Your gradients are consistent with your own loss, so the loss itself is wrong"
            elif not verdicts[0].ok:
                message += ". Both the loss and the gradients are off"
    trials.record(False, message)


@check("w2v_sigmoid", files=FILES, names=("word2vec.sigmoid",))
def sigmoid(ctx: CheckContext) -> Outcome:
    rng = ctx.rng
    shapes = [(), (int(rng.integers(1, 8)),), (int(rng.integers(2, 5)), int(rng.integers(2, 6)))]
    inputs: list[Any] = [float(rng.normal(0, 3))]
    inputs += [rng.normal(0, 4, s) for s in shapes[1:]]
    inputs.append(np.array([-1000.0, -750.0, -30.0, 0.0, 30.0, 750.0, 1000.0]))
    labels = ["a Python float", f"an array of shape {shapes[1]}", f"an array of shape {shapes[2]}",
              "large |x| (±1000, ±750, ±30)"]
    got = ctx.call("w2v_sigmoid", "sigmoid(x)", inputs=inputs)
    trials = Trials()
    for x, y, label in zip(inputs, got, labels):
        expected = ctx.ref.word2vec.sigmoid(np.array(x) if np.ndim(x) else x)
        v = compare(f"sigmoid(x) for {label}", y, expected)
        trials.record(v.ok, v.message)
    return trials.outcome()


@check("w2v_naive_softmax", files=FILES, names=("word2vec.naiveSoftmaxLossAndGradient",))
def naive_softmax(ctx: CheckContext) -> Outcome:
    trials = Trials()
    for t in range(TRIALS):
        inst = _instance(ctx.rng)
        _loss_trial(ctx, trials, NAIVE, inst, None, None, f"trial {t + 1}")
    return trials.outcome()


@check("w2v_neg_sampling", files=FILES, names=("word2vec.negSamplingLossAndGradient",))
def neg_sampling(ctx: CheckContext) -> Outcome:
    trials = Trials()
    for t in range(TRIALS):
        k = int(ctx.rng.integers(2, 6))
        inst = _instance(ctx.rng, v_range=(k + 2, 14))
        draws = _draws(ctx.rng, inst["outside"].shape[0], inst["outside_idx"], k, duplicates=False)
        _loss_trial(ctx, trials, NEG, inst, draws, k, f"trial {t + 1} (distinct negatives)")
    return trials.outcome()


@check("w2v_neg_sampling_dups", files=FILES, names=("word2vec.negSamplingLossAndGradient",))
def neg_sampling_duplicates(ctx: CheckContext) -> Outcome:
    trials = Trials()
    for t in range(4):
        k = int(ctx.rng.integers(6, 12))
        inst = _instance(ctx.rng, v_range=(3, 5))
        draws = _draws(ctx.rng, inst["outside"].shape[0], inst["outside_idx"], k, duplicates=True)
        _loss_trial(ctx, trials, NEG, inst, draws, k,
                    f"trial {t + 1} (a negative drawn more than once must count each time)")
    return trials.outcome()


@check("w2v_skipgram", files=FILES, names=("word2vec.skipgram",))
def skipgram(ctx: CheckContext) -> Outcome:
    trials = Trials()
    rng = ctx.rng
    for t in range(TRIALS):
        function = NAIVE if t % 2 == 0 else NEG
        V, d = int(rng.integers(5, 12)), int(rng.integers(2, 6))
        words = [f"w{i}" for i in range(V)]
        word2ind = {w: i for i, w in enumerate(words)}
        C = int(rng.integers(1, 4))
        center_word = words[int(rng.integers(V))]
        outside_words = [words[int(i)] for i in rng.integers(0, V, size=int(rng.integers(1, 2 * C + 1)))]
        centers, outsides = rng.normal(0, 1, (V, d)), rng.normal(0, 1, (V, d))
        draws = None
        if function == NEG:
            # Plenty of draws for the default K=10 negatives per outside word, redraws included.
            draws = [int(x) for x in rng.integers(0, V, size=40 * len(outside_words))]
        what = (f"skipgram('{center_word}', {C}, {len(outside_words)} outside words, |V|={V}, d={d}, "
                f"word2vecLossAndGradient={function})")
        got, err = ctx.try_call("w2v_skipgram", what, function=function, center_word=center_word,
                                window_size=C, outside_words=outside_words, word2ind=word2ind,
                                center_vectors=centers, outside_vectors=outsides, draws=draws)
        if err:
            trials.record(False, err)
            continue
        if "parts_error" in got:
            trials.skip(f"skipgram was not judged with {function}, because {got['parts_error']} "
                        "(that bug is charged to the loss function's own check)")
            continue
        parts = got["parts"]
        ci = word2ind[center_word]
        exp_loss = sum(float(np.asarray(p["loss"], dtype=float).reshape(())) for p in parts)
        exp_gc = np.zeros((V, d))
        exp_go = np.zeros((V, d))
        for p in parts:
            exp_gc[ci] += np.asarray(p["grad_center"], dtype=float)
            exp_go += np.asarray(p["grad_outside"], dtype=float)
        verdicts = [compare("loss", got["loss"], exp_loss),
                    compare("gradCenterVecs", got["grad_center"], exp_gc),
                    compare("gradOutsideVectors", got["grad_outside"], exp_go)]
        bad = [v.message for v in verdicts if not v.ok]
        if bad and not verdicts[1].ok:
            gc = as_float_array(got["grad_center"])
            if gc is not None and gc.shape == (V, d) and np.allclose(gc.sum(0), exp_gc[ci]) \
                    and not np.allclose(gc[ci], exp_gc[ci]):
                bad.append(f"the center gradient is right but sits in the wrong row: it belongs "
                           f"in row word2Ind[currentCenterWord] = {ci}")
        trials.record(not bad, f"trial {t + 1}: {what}: " + "; ".join(bad) +
                      " (expected: the sum of your own loss function's outputs over the window)")
    return trials.outcome()
