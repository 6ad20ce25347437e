"""The dropout check of parser_model.py (3(e)(iii)): in train mode, hidden units are dropped at
rate p and the kept ones scaled so that each unit's expected value is unchanged; in eval mode, nothing is dropped."""

from __future__ import annotations

import numpy as np

from a2.checks.helpers import model_shapes
from a2.checks.helpers.model_params import (
    N_CLASSES,
    Instance,
    describe_ctor,
    draw_sizes,
    draw_values,
    record_error,
    try_call,
)
from a2.checks.model import FILES
from grader.run.check_api import CheckContext, Trials, check
from grader.run.compare import ATOL, RTOL, as_float_array, compare
from grader.run.results import Outcome

#: Hidden units observed per dropout trial: the fraction dropped has a standard deviation of
#: at most 0.5 / sqrt(DROPOUT_ROWS) = 1.1 percentage points (p and 1 - p, drawn at least 16 points
#: apart, stay 14 standard deviations apart). Each trial sends 7 batches of this many rows through
#: the student's forward or embedding_lookup: a correct forward that loops over the rows in Python
#: handles about 3,600 rows a second under load (tests/submissions/slow/rows_lookup_forward took
#: 28-29.5 s for 5000 rows a trial), so 2000 keeps the check within 40% of its 30 s limit.
DROPOUT_ROWS = 2000
#: A correct dropout's fraction of zeroed units lies within this many standard deviations
#: of p (a false failure has probability < 1e-8 per trial).
DROPOUT_SIGMAS = 6.0


def _rows_close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.isclose(a, b, rtol=RTOL, atol=ATOL).all(axis=1)


def _dropout_trial(ctx: CheckContext, trials: Trials, p: float) -> None:
    """One dropout instance: 3 trials (eval deterministic, eval without dropout, train statistics).

    Only hidden unit j reaches the logits (every other row of the output weight is 0) and its
    pre-activation is positive on every row, so each row of the batch shows whether unit j was
    dropped (logits = the output with unit j removed) or kept and scaled by gamma (the output
    with unit j's outgoing weights times gamma). The reference for these is the student's own
    model built with dropout_prob=0, so a bug elsewhere in forward is not charged here.
    """
    rng = ctx.rng
    s = draw_sizes(rng, tokens=(20, 40), embed=(3, 6), features=(2, 4), hidden=(6, 12))
    values = draw_values(rng, s)
    j = int(rng.integers(s.hidden))
    w = rng.integers(0, s.n_tokens, (DROPOUT_ROWS, s.n_features))
    x = values["embeddings"].astype(np.float64)[w].reshape(DROPOUT_ROWS, -1)
    wj = rng.normal(0, 1, s.in_dim) / np.sqrt(s.in_dim)
    values["embed_to_hidden_weight"][:, j] = wj
    values["embed_to_hidden_bias"][j] = np.float32(0.5 - (x @ wj).min())  # unit j's value >= 0.5
    u = rng.choice([-1.0, 1.0], N_CLASSES) * rng.uniform(0.5, 1.5, N_CLASSES)
    out_w = np.zeros((s.hidden, N_CLASSES), np.float32)
    out_w[j] = u
    values["hidden_to_logits_weight"] = out_w
    # The kit holds no expected scale (it is written question 2(b)(i)'s answer): there the scale the
    # student's model applies is judged by the expected value it gives a unit (_kit_scale_problem).
    gamma = None if getattr(ctx.ref, "for_kit", False) else float(ctx.ref.grader_math.dropout_scale(p))

    inst = Instance(ctx, s, dropout_prob=p, values=values)
    what = f"{inst.what}, forward(w) with w of shape {w.shape}"
    labels = ("eval mode is deterministic", "eval mode applies no dropout", "train mode drops and scales")
    if "hidden_to_logits_weight" not in inst.matches:
        for label in labels:
            trials.record(False, f"{what} ({label}): cannot be judged: {inst.missing}")
        return

    def with_out(weight: np.ndarray) -> dict[str, np.ndarray]:
        return inst.assign({"hidden_to_logits_weight": weight.astype(np.float32)})

    fwd = {"method": "forward", "w": w, **model_shapes.lookup_override(ctx, inst, w, trials)}
    plain, err = try_call(ctx, "model_run", f"{describe_ctor(s, 0.0)}, forward(w) with w of shape {w.shape}",
                          **inst.ctor(0.0), assign=inst.assign(),
                          calls=[{**fwd, "mode": "eval", "assign": with_out(np.zeros_like(out_w))},
                                 {**fwd, "mode": "eval", "assign": with_out(out_w)},
                                 *([] if gamma is None else
                                   [{**fwd, "mode": "eval", "assign": with_out(gamma * out_w)}])])
    got = None
    if not err:
        got, err = try_call(ctx, "model_run", what, **inst.ctor(), assign=inst.assign(),
                            calls=[{**fwd, "mode": "eval"}, {**fwd, "mode": "eval"}, {**fwd, "mode": "train"}],
                            seed=int(rng.integers(2**31)))
    if err:
        record_error(trials, err, aspects=len(labels))
        return
    maybe = [as_float_array(o.get("value")) for o in plain + got]
    arrays = [a for a in maybe if a is not None and a.shape == (DROPOUT_ROWS, N_CLASSES)]
    if len(arrays) != len(maybe):
        shapes = [None if a is None else a.shape for a in maybe]
        for label in labels:
            trials.record(False, f"{what} ({label}): cannot be judged: forward returned shapes {shapes}; "
                                 f"expected ({DROPOUT_ROWS}, {N_CLASSES}) (see the forward check)")
        return
    without, kept, *given, eval1, eval2, train = arrays

    trials.record(bool(np.array_equal(eval1, eval2)),
                  f"{what}: in eval mode two identical calls returned different logits: dropout must be "
                  "off in eval mode (nn.Dropout is, after model.eval(); F.dropout needs training=self.training)")
    v = compare("eval-mode logits", eval1, kept, factor_hint=False)
    trials.factor("eval-mode logits", v, kept.size)
    trials.record(v.ok, f"{what}: in eval mode the logits differ from those of the same model built with "
                        f"dropout_prob=0, so something is dropped or scaled in eval mode (a mask applied "
                        f"always?): {v.message}")

    informative = ~_rows_close(kept, without)
    n = int(informative.sum())
    if n < DROPOUT_ROWS // 10:
        trials.record(False, f"{what}: cannot be judged: the logits hardly depend on the hidden layer "
                             "(see the forward check)")
        return
    dropped = _rows_close(train, without) & informative
    common = 1.0 if gamma is not None else _common_scale(train, kept, without, informative & ~dropped)
    scaled = given[0] if gamma is not None else without + common * (kept - without)
    as_gamma = _rows_close(train, scaled) & informative & ~dropped
    as_kept = _rows_close(train, kept) & informative & ~dropped
    unscaled = as_kept & ~as_gamma
    other = informative & ~dropped & ~as_gamma & ~unscaled
    frac = dropped.sum() / n
    sigma = np.sqrt(p * (1 - p) / n)
    problems = []
    named = model_shapes.diagnose_dropout(model_shapes.dropout_case(train, kept, without, informative,
                                                                    dropped, other, p))
    if named is not None:
        trials.record(False, f"{what}: {named.message}")
        return
    if dropped.sum() == 0 and as_kept.sum() == n:
        problems.append("in train mode no hidden unit was zeroed: apply dropout (self.dropout) to the "
                        "hidden layer in forward")
    else:
        if abs(frac - p) > DROPOUT_SIGMAS * sigma:
            msg = (f"in train mode {frac:.1%} of the hidden units were zeroed; with dropout_prob = {p:.3g} "
                   f"about {p:.1%} should be (±{DROPOUT_SIGMAS * sigma:.1%})")
            if abs(frac - (1 - p)) <= DROPOUT_SIGMAS * sigma:
                msg += ": 1 - p is being used as the drop probability (p is the probability of dropping)"
            problems.append(msg)
        survivors = n - int(dropped.sum())
        if unscaled.sum() or other.sum():
            if unscaled.sum() >= other.sum():
                scale = 1.0
            else:
                num = ((train - without) * (kept - without)).sum(axis=1)
                den = ((kept - without) ** 2).sum(axis=1)
                scale = float(np.median(num[other] / den[other]))
            problems.append(f"{int(unscaled.sum() + other.sum())} of {survivors} surviving units are scaled by "
                            f"{scale:.3g}, which does not keep the expected value of each unit unchanged (the "
                            "scale of written question 2(b)(i); nn.Dropout applies it itself)")
        elif gamma is None and survivors:
            problems += _kit_scale_problem(survivors / n, common, n)
    trials.record(not problems, f"{what}: " + "; ".join(problems))


def _common_scale(train: np.ndarray, kept: np.ndarray, without: np.ndarray, survived: np.ndarray) -> float:
    """The scale most surviving rows show: each row is ``without + s * (kept - without)``."""
    if not survived.any():
        return 1.0
    num = ((train - without) * (kept - without)).sum(axis=1)
    den = ((kept - without) ** 2).sum(axis=1)
    return float(np.median(num[survived] / den[survived]))


def _kit_scale_problem(kept_share: float, scale: float, n: int) -> list[str]:
    """The kit's judgement of the scale, without the expected one: in train mode a unit's expected
    value (the share of rows that kept it times their scale) must be its eval-mode value, within
    DROPOUT_SIGMAS standard deviations of the kept share."""
    expected_value = kept_share * scale
    sigma = scale * np.sqrt(max(kept_share * (1 - kept_share), 1e-6) / n)
    if abs(expected_value - 1.0) <= DROPOUT_SIGMAS * sigma:
        return []
    return [f"in train mode {kept_share:.1%} of the hidden units were kept, each scaled by {scale:.3g}, so a unit's "
            f"expected value is {expected_value:.3g} times its value in eval mode; it must stay the same (the scale "
            "of written question 2(b)(i); nn.Dropout applies it itself)"]


@check("model_dropout", files=FILES, names=("parser_model.ParserModel",))
def dropout(ctx: CheckContext) -> Outcome:
    """Dropout: train mode zeroes about p of the hidden units and scales the rest so that each keeps its expected value;
    eval mode is deterministic and applies no dropout."""
    trials = Trials()
    for t in range(3):
        # p away from 0.5, so that using 1 - p as the drop probability shows.
        low, high = [(0.15, 0.42), (0.58, 0.85), (0.15, 0.42)][t]
        p = float(np.round(ctx.rng.uniform(low, high), 3))
        _dropout_trial(ctx, trials, p)
    return trials.outcome()
