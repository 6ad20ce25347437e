"""Checks of word2vec.py: sigmoid and both losses with their gradients (skipgram: skipgram.py).

Inputs are drawn from the check's generator; expected values come from the reference.
Negative sampling replays a sequence of draws chosen here, so the negatives a correct
implementation picks are known exactly. A wrong answer is tested against the declared bug
shapes of ``word2vec_shapes`` and named when one fits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from a2.bug_shapes import diagnose
from a2.checks.helpers import word2vec_shapes as shapes
from grader.run.check_api import CheckContext, Trials, check, check_label, fix_first
from grader.run.compare import ATOL, FD_ATOL, FD_RTOL, RTOL, as_float_array, close, compare
from grader.run.replay import ReplayMiss
from grader.run.results import Outcome, Proof

FILES = ("word2vec.py",)
TRIALS = 6
FD_STEP = 1e-5
NAIVE = "naiveSoftmaxLossAndGradient"
NEG = "negSamplingLossAndGradient"


class _Replay:
    """The trusted twin of the worker's ReplayDataset (feeds the reference the same draws)."""

    def __init__(self, draws: list[int]):
        self.draws, self.used = list(draws), 0

    def sampleTokenIdx(self) -> int:
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


def _negatives(draws: list[int] | None, o: int, k: int | None) -> list[int]:
    """The K negatives a correct getNegativeSamples picks from ``draws`` (redraws included)."""
    if k is None:
        return []
    picks, it = [], iter(draws or [])
    for _ in range(k):
        idx = next(it)
        while idx == o:
            idx = next(it)
        picks.append(int(idx))
    return picks


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


def readable(got: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    arr = as_float_array(got)
    if arr is None or arr.size != int(np.prod(shape)) or not np.all(np.isfinite(arr)):
        return None
    return arr.reshape(shape)


def _loss_case(function: str, inst: dict, draws, k, expected: tuple, got: dict) -> shapes.LossCase:
    exp = {"loss": np.asarray(float(expected[0])), "grad_center": np.asarray(expected[1], dtype=float),
           "grad_outside": np.asarray(expected[2], dtype=float)}
    return shapes.LossCase(
        function, inst["center"], inst["outside"], inst["outside_idx"],
        _negatives(draws, inst["outside_idx"], k), exp,
        {name: readable(got.get(name), exp[name].shape) for name in exp})


def _named(catalogue, case) -> list[str]:
    """The message of the first matching shape of each output (loss, both gradients)."""
    messages: list[str] = []
    for fieldname in ("loss", "grad_center", "grad_outside"):
        shape = diagnose([s for s in catalogue if s.message.startswith(shapes.FIELD_NAMES[fieldname] + ":")],
                         case)
        if shape is not None:
            messages.append(shape.message)
    return messages


def _sigmoid_args(inst: dict, draws: list[int] | None, k: int) -> np.ndarray:
    """What negative sampling applies σ to: u_o·v_c, then −u_k·v_c for each negative k."""
    scores = inst["outside"] @ inst["center"]
    return np.concatenate([[scores[inst["outside_idx"]]], -scores[_negatives(draws, inst["outside_idx"], k)]])


def _student_sigmoid_on(ctx: CheckContext, args: np.ndarray, what: str) -> np.ndarray | None:
    """The student's sigmoid on the arguments negative sampling is about to need, asked before it
    runs on them: a sigmoid that learns its arguments from negative sampling (to be wrong only
    there) has not seen them yet. None when it raised or returned something unreadable."""
    got, err = ctx.try_call("w2v_sigmoid", f"sigmoid on the arguments of {what}", inputs=[args])
    return readable(got[0], args.shape) if not err and isinstance(got, list) and got else None


def _student_sigmoid_isolation(ctx: CheckContext, case: shapes.LossCase, values: np.ndarray | None,
                               what: str) -> tuple[bool, str, Proof | None]:
    """When negative sampling is wrong: is the student's sigmoid wrong where it is needed
    (``values``: its outputs on the trial's arguments, asked before the trial), and is their
    negSamplingLossAndGradient right on top of it? (Its bug is then charged to the sigmoid check,
    with the proof: those arguments, the student's values and the right ones.)

    Returns (judged right with their sigmoid, message, proof); message "" when their sigmoid is right.
    """
    args = np.concatenate([[case.x_o], -case.x_neg])
    right = ctx.ref.word2vec.sigmoid(args)
    if values is None or close(values, right):
        return False, "", None
    try:
        with_theirs = ctx.ref.grader_math.neg_outputs_with_sigmoid(case.outside, case.center, case.outside_idx,
                                                                   case.negatives, float(values[0]), values[1:])
    except ReplayMiss:  # the kit: what a right function gives on a wrong sigmoid is not recorded
        return False, f"your sigmoid is wrong at these inputs, so {fix_first('w2v_sigmoid')}", None
    if all(case.got[f] is not None and close(case.got[f], with_theirs[f]) for f in with_theirs):
        shown = ", ".join(f"{v:.4g}" for v in args[:6]) + (", ..." if args.size > 6 else "")
        proof = Proof(f"sigmoid([{shown}]) (the σ arguments of {what})", tuple(values.ravel()), tuple(right.ravel()))
        return True, (f"negSamplingLossAndGradient is right given your sigmoid, which is wrong: that bug "
                      f"is charged to {check_label('w2v_sigmoid')} only"), proof
    return False, f"your sigmoid is wrong at these inputs, so {fix_first('w2v_sigmoid')}", None


def _loss_trial(ctx: CheckContext, trials: Trials, function: str, inst: dict,
                draws: list[int] | None, k: int | None, label: str) -> tuple[shapes.LossCase, dict] | None:
    """One call judged against the reference; returns the case and the raw reply when it failed
    on values (for a check that judges further), else None."""
    V, d = inst["outside"].shape
    what = (f"{function}(centerWordVec of shape ({d},), outsideWordIdx={inst['outside_idx']}, "
            f"outsideVectors of shape ({V}, {d}){'' if k is None else f', K={k}'})")
    own_sigmoid = None if k is None else _student_sigmoid_on(ctx, _sigmoid_args(inst, draws, k), what)
    got, err = ctx.try_call("w2v_loss", what, function=function, center=inst["center"],
                            outside_idx=inst["outside_idx"], outside=inst["outside"], draws=draws, k=k)
    if err:
        trials.record(False, err)
        return None
    expected = _reference_loss(ctx, function, inst, draws, k)
    loss, gc, go = expected
    verdicts = [compare("loss", got["loss"], loss, factor_hint=False),
                compare("gradCenterVec", got["grad_center"], gc, factor_hint=False,
                        expected_shape_note=" (the shape of centerWordVec)"),
                compare("gradOutsideVecs", got["grad_outside"], go, factor_hint=False,
                        expected_shape_note=" (the shape of outsideVectors)")]
    for v, name, size in zip(verdicts, ("loss", "gradCenterVec", "gradOutsideVecs"), (1, gc.size, go.size)):
        if v.ok and v.message:
            trials.note(v.message)
        trials.factor(name, v, size)
    bad = [v.message for v in verdicts if not v.ok]
    if not bad:
        trials.record(True)
        return None
    case = _loss_case(function, inst, draws, k, expected, got)
    if k is not None:
        isolated, sig_message, proof = _student_sigmoid_isolation(ctx, case, own_sigmoid, what)
        if isolated:
            trials.charge("w2v_sigmoid", sig_message, proof)
            return None
    else:
        sig_message = ""
    message = f"{label}: {what}: " + "; ".join(bad)
    if k is not None and got.get("draws_used") != len(draws or []):
        message += (f". It drew {got.get('draws_used')} token(s) from the dataset where a correct "
                    f"getNegativeSamples draws {len(draws or [])}: keep the provided sampling call")
    named = _named(shapes.LOSS_SHAPES[function], case)
    if named:
        message += ". " + ". ".join(named)
    elif sig_message:
        message += f". {sig_message[0].upper()}{sig_message[1:]}"
    else:
        message += _fd_diagnosis(ctx, function, inst, draws, k, what, got, verdicts)
    trials.record(False, message)
    return case, got


def _fd_diagnosis(ctx: CheckContext, function: str, inst: dict, draws, k, what: str, got: dict,
                  verdicts: list) -> str:
    """Tell a wrong loss from a wrong gradient with finite differences of the student's own loss
    (only when shapes are right, and never from a loss that does not change: that proves nothing)."""
    grads_bad = not (verdicts[1].ok and verdicts[2].ok)
    if not grads_bad or not all(v.ok or v.kind == "values" for v in verdicts):
        return ""
    fd = _own_fd(ctx, function, inst, draws, k, what)
    if fd is None or (np.allclose(fd[0], 0, atol=FD_ATOL) and np.allclose(fd[1], 0, atol=FD_ATOL)):
        return ""
    own_ok = (compare("", got["grad_center"], fd[0], rtol=FD_RTOL, atol=FD_ATOL).ok
              and compare("", got["grad_outside"], fd[1], rtol=FD_RTOL, atol=FD_ATOL).ok)
    if verdicts[0].ok and not own_ok:
        wrong = [name for name, v in (("gradCenterVec", verdicts[1]), ("gradOutsideVecs", verdicts[2])) if not v.ok]
        return (f". Your loss is right but {' and '.join(wrong)} do not match its finite differences: "
                "the gradient formula is wrong there")
    if not verdicts[0].ok and own_ok:
        return ". Your gradients are consistent with your own loss, so the loss itself is wrong"
    if not verdicts[0].ok:
        return ". Both the loss and the gradients are off"
    return ""


@check("w2v_sigmoid", files=FILES, names=("word2vec.sigmoid",))
def check_sigmoid(ctx: CheckContext) -> Outcome:
    rng = ctx.rng
    shapes_ = [(), (int(rng.integers(1, 8)),), (int(rng.integers(2, 5)), int(rng.integers(2, 6)))]
    inputs: list[Any] = [float(rng.normal(0, 3))]
    inputs += [rng.normal(0, 4, s) for s in shapes_[1:]]
    inputs.append(np.array([-1000.0, -750.0, -30.0, 0.0, 30.0, 750.0, 1000.0]))
    labels = ["a Python float", f"an array of shape {shapes_[1]}", f"an array of shape {shapes_[2]}",
              "large |x| (±1000, ±750, ±30)"]
    got = ctx.call("w2v_sigmoid", "sigmoid(x)", inputs=inputs)
    trials = Trials()
    for x, y, label in zip(inputs, got, labels):
        expected = ctx.ref.word2vec.sigmoid(np.array(x) if np.ndim(x) else x)
        name = f"sigmoid(x) for {label}"
        v = compare(name, y, expected, factor_hint=False)
        message = v.message
        if not v.ok:
            shape = diagnose(shapes.SIGMOID, shapes.SigmoidCase(np.asarray(x, dtype=float),
                                                                 np.asarray(expected, dtype=float), y))
            if shape is not None:
                message += f". {shape.message}"
        trials.factor("sigmoid(x)", v, int(np.size(expected)))
        trials.record(v.ok, message)
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


def _outputs(got: dict, V: int, d: int) -> dict[str, np.ndarray] | None:
    out = {"loss": readable(got.get("loss"), ()), "grad_center": readable(got.get("grad_center"), (d,)),
           "grad_outside": readable(got.get("grad_outside"), (V, d))}
    return None if any(v is None for v in out.values()) else out  # type: ignore[return-value]


def _repeats_count(ctx: CheckContext, inst: dict, negatives: list[int], what: str) -> tuple[bool, str]:
    """Whether every draw of a repeated negative adds its own term, judged on the student's own
    function (so a bug elsewhere in it, charged to the distinct-negatives check, is not charged here).

    With a the repeated word (c copies) and R the other draws: f(R + c·a) − f(R) must be c times
    f(R + a) − f(R), for the loss and both gradients. A function whose outputs do not change when
    a negative is added cannot be judged this way (a do-nothing function would pass): not passed.
    """
    counts = {w: negatives.count(w) for w in negatives}
    a = max(counts, key=lambda w: (counts[w], -w))
    c = counts[a]
    rest = [w for w in negatives if w != a]
    V, d = inst["outside"].shape
    outs = []
    for draws in (negatives, rest + [a], rest):
        got, err = ctx.try_call("w2v_loss", what, function=NEG, center=inst["center"],
                                outside_idx=inst["outside_idx"], outside=inst["outside"],
                                draws=draws, k=len(draws))
        out = None if err or not isinstance(got, dict) else _outputs(got, V, d)
        if out is None:
            return False, ""
        outs.append(out)
    full, one, none = outs
    if np.allclose(one["grad_outside"][a] - none["grad_outside"][a], 0, atol=ATOL):
        return False, (f"adding negative {a} once does not change row {a} of gradOutsideVecs, so your "
                       "function cannot be judged on repeated negatives")
    problems = []
    for f, name in (("loss", "the loss"), ("grad_center", "gradCenterVec"), ("grad_outside", "gradOutsideVecs")):
        single = one[f] - none[f]
        if not np.allclose(full[f] - none[f], c * single, rtol=10 * RTOL, atol=10 * ATOL):
            if np.allclose(full[f] - none[f], single, rtol=10 * RTOL, atol=10 * ATOL):
                problems.append(f"{name} counts negative {a} once although it was drawn {c} times")
            else:
                problems.append(f"{name} does not add one term per draw of negative {a} ({c} draws)")
    return not problems, "; ".join(problems)


@check("w2v_neg_sampling_dups", files=FILES, names=("word2vec.negSamplingLossAndGradient",))
def neg_sampling_duplicates(ctx: CheckContext) -> Outcome:
    """Repeated negatives. A function right on distinct negatives is judged against the reference;
    one that is wrong there too (check 1.3 names that bug) is judged on whether each draw adds its
    own term, so one bug is not charged twice."""
    trials = Trials()
    for t in range(4):
        k = int(ctx.rng.integers(6, 12))
        inst = _instance(ctx.rng, v_range=(3, 5))
        draws = _draws(ctx.rng, inst["outside"].shape[0], inst["outside_idx"], k, duplicates=True)
        label = f"trial {t + 1} (a negative drawn more than once must count each time)"
        sub = Trials()
        failed = _loss_trial(ctx, sub, NEG, inst, draws, k, label)
        for note in sub.notes:
            trials.note(note)
        if failed is None:
            if sub.charged:
                target = next(iter(sub.charged))
                proofs = sub.proofs.get(target, [])
                trials.charge(target, sub.notes[0] if sub.notes else "", proofs[0] if proofs else None)
            else:
                trials.record(sub.passed == sub.total, sub.messages[0] if sub.messages else "")
            continue
        case, _ = failed
        shape = diagnose(shapes.NEG_GRAD_OUTSIDE[:1] + shapes.NEG_GRAD_CENTER[:1] + shapes.NEG_LOSS[-1:], case)
        if shape is not None:  # the function is right but for repeats: its message names the shape
            trials.record(False, sub.messages[0] if sub.messages else f"{label}: {shape.message}")
            continue
        V, d = inst["outside"].shape
        what = (f"{NEG}(centerWordVec of shape ({d},), outsideWordIdx={inst['outside_idx']}, "
                f"outsideVectors of shape ({V}, {d}), K=...)")
        ok, problem = _repeats_count(ctx, inst, case.negatives, what)
        if ok:
            trials.note(f"negSamplingLossAndGradient is wrong (see {check_label('w2v_neg_sampling')}), but each "
                        "draw of a repeated negative adds its own term, which is what this check judges")
            trials.record(True)
        else:
            extra = (". With fancy indexing (g[indices] += ...) a repeated index is written once: accumulate "
                     "with np.add.at or a loop over the draws") if "gradOutsideVecs counts" in problem else ""
            trials.record(False, (sub.messages[0] if sub.messages else label)
                                 + (f". {problem[0].upper()}{problem[1:]}{extra}" if problem else ""))
    return trials.outcome()
