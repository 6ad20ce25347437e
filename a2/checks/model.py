"""Checks of parser_model.py (3(e)(iii)): ParserModel's structure, initialisation, embedding
lookup, forward pass and gradients (dropout: model_dropout.py; instances and parameter
matching: helpers/model_params.py).

Student parameters are matched to the five roles of the model (embeddings, W, b1, U, b2) by
name, else by shape, transposes and (1, n) biases included, so a model laid out differently
but computing the right thing gets full marks on the numeric checks; only model_structure
looks at names. The numeric checks overwrite the matched parameters with random values drawn
here and compare the outputs with the reference model holding the same values. Instance sizes
are drawn so that every dimension differs (the shape of a parameter then says its role).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from a2.checks.helpers import model_shapes
from a2.checks.helpers.model_params import (
    N_CLASSES,
    ROLES,
    Instance,
    Match,
    call,
    ctor_args,
    describe_ctor,
    draw_sizes,
    forward_hint,
    layout,
    layout_note,
    lookup_hint,
    match_parameters,
    output_value,
    reference_output,
    reference_pieces,
    try_call,
)
from grader.run.check_api import CheckContext, Trials, check, check_label
from grader.run.compare import compare
from grader.run.results import Outcome, Proof

FILES = ("parser_model.py",)

#: Xavier-uniform statistics: every |w| <= bound * (1 + INIT_BOUND_RTOL) (float32 rounding),
#: the largest |w| above INIT_MAX_FRACTION * bound, the mean of w^2 within INIT_VAR_RTOL of
#: bound^2 / 3 and the mean within INIT_MEAN_SIGMAS standard errors of 0.
INIT_BOUND_RTOL = 1e-5
INIT_MAX_FRACTION = 0.97
INIT_VAR_RTOL = 0.2
INIT_MEAN_SIGMAS = 8.0

# -- the checks -------------------------------------------------------------------------------------


@check("model_structure", files=FILES, names=("parser_model.ParserModel",))
def structure(ctx: CheckContext) -> Outcome:
    """Names and shapes of the five parameters, embeddings as a Parameter, dropout, no nn.Linear."""
    trials = Trials()
    for _ in range(2):
        s = draw_sizes(ctx.rng)
        p = float(np.round(ctx.rng.uniform(0.05, 0.7), 3))
        embeddings = ctx.rng.normal(0, 1, (s.n_tokens, s.embed_size)).astype(np.float32)
        what = describe_ctor(s, p)
        got = call(ctx, "model_describe", what, **ctor_args(s, embeddings, p))
        if not got.get("is_module"):
            for _aspect in range(4):
                trials.record(False, f"{what} returned a {got.get('type')}, not a torch.nn.Module")
            continue
        shapes = {q["name"]: tuple(q["shape"]) for q in got["parameters"]}
        wanted = s.role_shapes()

        problems = []
        for role in ROLES:
            lay = layout(shapes[role], wanted[role]) if role in shapes else None
            if role in shapes and lay is None:
                problems.append(f"{role} has shape {shapes[role]}; expected {wanted[role]}")
            elif role in shapes and lay is not None and lay != "same":
                trials.note(layout_note(role, Match(role, lay, shapes[role]),
                                        tolerated="as long as forward computes the right thing"))
            elif role not in shapes and not (role == "embeddings" and got["embeddings"]["kind"] == "tensor"):
                same = [n for n, sh in shapes.items() if n not in ROLES and layout(sh, wanted[role])]
                hint = (f"; your parameter {same[0]} has that shape: name it {role}" if same else "")
                problems.append(f"no parameter named {role} {wanted[role]}{hint}")
        trials.record(not problems, f"{what}: parameters: " + "; ".join(problems) +
                      f" (your parameters: {', '.join(f'{n} {sh}' for n, sh in shapes.items()) or 'none'})")

        emb = got["embeddings"]
        if emb["kind"] != "parameter":
            kind = {"missing": "there is no attribute self.embeddings",
                    "tensor": "self.embeddings is a plain tensor"}.get(emb["kind"], f"self.embeddings is a {emb['kind']}")
            trials.record(False, f"{what}: {kind}; it must be an nn.Parameter holding the embeddings "
                                 "passed in (nn.Parameter(torch.tensor(embeddings)); no nn.Embedding)")
        else:
            v = compare("self.embeddings", emb["value"], embeddings, rtol=1e-6, atol=1e-7, factor_hint=False)
            trials.factor("self.embeddings", v, embeddings.size)
            trials.record(v.ok, f"{what}: self.embeddings must hold the embeddings passed to the constructor: {v.message}")

        drop = got["dropout"]
        if not drop["exists"]:
            trials.record(False, f"{what}: there is no self.dropout; define self.dropout = nn.Dropout(dropout_prob)")
        elif not drop["is_module"] or drop["p"] is None:
            trials.record(False, f"{what}: self.dropout is a {drop['type']}; expected nn.Dropout(dropout_prob)")
        else:
            trials.record(abs(drop["p"] - p) < 1e-9,
                          f"{what}: self.dropout.p is {drop['p']:.6g}; expected dropout_prob = {p:.6g} "
                          "(use the argument, not a constant)")

        banned = [f"{m['name']} ({m['type']})" for m in got["modules"] if m["linear"] or m["embedding"]]
        trials.record(not banned, f"{what}: the model uses {', '.join(banned)}: torch.nn.Linear and "
                                  "torch.nn.Embedding are not allowed in this assignment; hold the weights "
                                  "as nn.Parameter and compute x @ W + b yourself")
    return trials.outcome()


def _init_verdict(name: str, w: np.ndarray, fan_in: int, fan_out: int) -> str:
    """'' when ``w`` looks Xavier-uniform for its fans, else what is off."""
    bound = float(np.sqrt(6.0 / (fan_in + fan_out)))
    a = np.abs(w.ravel())
    n = a.size
    biggest = float(a.max()) if n else 0.0
    mean_sq = float(np.mean(a ** 2)) if n else 0.0
    mean = float(np.mean(w)) if n else 0.0
    mean_bound = INIT_MEAN_SIGMAS * bound / np.sqrt(3 * n)
    expected = (f"Xavier-uniform draws from U(-{bound:.4g}, {bound:.4g}) for fan_in + fan_out = "
                f"{fan_in} + {fan_out} (nn.init.xavier_uniform_)")
    if biggest > bound * (1 + INIT_BOUND_RTOL):
        return f"{name}: the largest |value| is {biggest:.4g}, above the bound {bound:.4g}; {expected}"
    if biggest < INIT_MAX_FRACTION * bound or abs(mean_sq / (bound ** 2 / 3) - 1) > INIT_VAR_RTOL:
        return (f"{name}: values lie within ±{biggest:.4g} with mean square {mean_sq:.4g}; {expected}, "
                f"whose mean square is {bound ** 2 / 3:.4g}")
    if abs(mean) > mean_bound:
        return f"{name}: the mean value is {mean:.4g}, not about 0; {expected}"
    return ""


@check("model_init", files=FILES, names=("parser_model.ParserModel",))
def init(ctx: CheckContext) -> Outcome:
    """Both weight matrices Xavier-uniform (checked statistically), both biases present."""
    trials = Trials()
    for _ in range(2):
        while True:  # sizes where nn.Linear's default bound 1/sqrt(fan_in) differs from Xavier's
            s = draw_sizes(ctx.rng, tokens=(40, 80), embed=(10, 25), features=(4, 11), hidden=(400, 600))
            if abs(1 / np.sqrt(s.in_dim) / np.sqrt(6 / (s.in_dim + s.hidden)) - 1) > 0.1:
                break
        embeddings = ctx.rng.normal(0, 1, (s.n_tokens, s.embed_size)).astype(np.float32)
        what = describe_ctor(s, 0.5)
        got = call(ctx, "model_describe", what, **ctor_args(s, embeddings, 0.5), values=True)
        if not got.get("is_module"):
            for _aspect in range(3):
                trials.record(False, f"{what} returned a {got.get('type')}, not a torch.nn.Module")
            continue
        matches = match_parameters(got["parameters"], s)
        values = {q["name"]: np.asarray(q["value"], dtype=np.float64) for q in got["parameters"]}
        for role, fans in (("embed_to_hidden_weight", (s.in_dim, s.hidden)),
                           ("hidden_to_logits_weight", (s.hidden, N_CLASSES))):
            m = matches.get(role)
            if m is None:
                trials.record(False, f"{what}: no parameter of shape {s.role_shapes()[role]} ({role}) was found")
                continue
            problem = _init_verdict(m.name, values[m.name], *fans)
            trials.record(not problem, f"{what}: {problem}")
        absent = [r for r in ("embed_to_hidden_bias", "hidden_to_logits_bias") if r not in matches]
        if absent:  # a missing parameter is charged by model_structure only
            trials.note("no bias parameter " + ", ".join(f"{r} {s.role_shapes()[r]}" for r in absent) +
                        f" was found, so its initialisation was not judged ({check_label('model_structure')} "
                        "charges the missing parameter)")
        else:
            trials.record(True)
    return trials.outcome()


@check("model_embedding_lookup", files=FILES, names=("parser_model.ParserModel",))
def check_embedding_lookup(ctx: CheckContext) -> Outcome:
    """embedding_lookup(w) against the reference, with the same embeddings set in both models."""
    return _output_trials(ctx, _OutputCheck(
        "embedding_lookup", "x", trials=4,
        batch=lambda t, rng: [1, int(rng.integers(2, 10)), int(rng.integers(10, 60)), int(rng.integers(2, 60))][t],
        what=lambda inst, w: f"{inst.what}.embedding_lookup(w) with w a LongTensor of shape {w.shape}",
        prepare=_needs_embeddings,
        cause=lambda ctx, inst, w, value: (lookup_hint(value, inst, w), "")))


@check("model_forward", files=FILES, names=("parser_model.ParserModel",))
def forward(ctx: CheckContext) -> Outcome:
    """forward(w) in eval mode (built with dropout_prob=0) against the reference's logits."""
    return _output_trials(ctx, _OutputCheck(
        "forward", "logits", trials=5,
        batch=lambda t, rng: 1 if t == 0 else int(rng.integers(2, 40)),
        what=lambda inst, w: f"{inst.what} in eval mode, forward(w) with w a LongTensor of shape {w.shape}",
        prepare=lambda ctx, inst, w, trials, what: model_shapes.lookup_override(ctx, inst, w, trials),
        cause=lambda ctx, inst, w, value: (forward_hint(value, reference_pieces(ctx, inst, w)), inst.missing)))


@dataclass(frozen=True)
class _OutputCheck:
    """What differs between the checks of one method's output against the reference's."""

    method: str
    quantity: str
    """The compared output's name in the feedback ("x", "logits")."""
    trials: int
    batch: Callable[[int, np.random.Generator], int]
    """Trial number, the check's generator -> the batch size of w."""
    what: Callable[[Instance, np.ndarray], str]
    prepare: Callable[[CheckContext, Instance, np.ndarray, Trials, str], dict[str, Any] | None]
    """Extra arguments of the call (the right lookup values for forward), or None when the trial
    was recorded already (nothing to call)."""
    cause: Callable[[CheckContext, Instance, np.ndarray, np.ndarray], tuple[str, str]]
    """(likely cause, note) of a wrong output; either may be empty."""


def _needs_embeddings(ctx: CheckContext, inst: Instance, w: np.ndarray, trials: Trials, what: str) -> dict[str, Any] | None:
    if "embeddings" not in inst.matches:
        trials.record(False, f"{what}: {inst.missing}")
        return None
    return {}


def _output_trials(ctx: CheckContext, spec: _OutputCheck) -> Outcome:
    """``spec.method(w)`` in eval mode on new instances, its output compared with the reference's."""
    trials = Trials()
    for t in range(spec.trials):
        inst = Instance(ctx, draw_sizes(ctx.rng))
        for note in inst.notes:
            trials.note(note)
        w = inst.indices(ctx.rng, spec.batch(t, ctx.rng))
        what = spec.what(inst, w)
        extra = spec.prepare(ctx, inst, w, trials, what)
        if extra is None:
            continue
        got, err = try_call(ctx, "model_run", what, **inst.ctor(), assign=inst.assign(),
                            calls=[{"method": spec.method, "mode": "eval", "w": w, **extra}])
        if err:
            trials.record(False, err)
            continue
        value, note = output_value(got[0], spec.method)
        trials.note(note)
        if value is None:
            trials.record(False, f"{what}: {note}")
            continue
        expected = reference_output(ctx, inst, w, spec.method)
        v = compare(spec.quantity, value, expected, factor_hint=False)
        trials.factor(spec.quantity, v, expected.size)
        if v.ok:
            trials.record(True)
            continue
        hint, note = spec.cause(ctx, inst, w, value)
        trials.record(False, f"{what}: {v.message}" + (f". Likely cause: {hint}" if hint else "")
                      + (f". Note: {note}" if note else ""))
    return trials.outcome()


def _logits_without(ctx: CheckContext, inst: Instance, w: np.ndarray, role: str) -> np.ndarray:
    """The right logits for ``w`` with ``role`` left out ("" for none), from the grader's reference math."""
    x = reference_output(ctx, inst, w, "embedding_lookup")
    return ctx.ref.grader_math.mlp(inst.values, x, without=role)


@check("model_gradients", files=FILES, names=("parser_model.ParserModel",))
def gradients(ctx: CheckContext) -> Outcome:
    """A backward pass through forward reaches every one of the five parameters, embeddings included."""
    trials = Trials()
    for _ in range(3):
        inst = Instance(ctx, draw_sizes(ctx.rng))
        batch = int(ctx.rng.integers(4, 30))
        w = inst.indices(ctx.rng, batch)
        upstream = ctx.rng.normal(0, 1, (batch, N_CLASSES))
        what = (f"{inst.what} in train mode, logits = forward(w) for w of shape {w.shape}, "
                "then (logits * R).sum().backward()")
        lookup = model_shapes.lookup_override(ctx, inst, w, trials)
        got, err = try_call(ctx, "model_gradients", what, **{k: v for k, v in inst.ctor().items() if k != "dropout_prob"},
                            assign=inst.assign(), w=w, upstream=upstream, **lookup)
        if err:
            trials.record(False, err)
            continue
        if got["backward_error"]:
            trials.record(False, f"{what}: backward failed ({got['backward_error']}): the logits are not "
                                 "connected to the parameters (no torch.no_grad(), .numpy() or new tensors in forward)")
            continue
        problems = []
        proof: Proof | None = None
        for role in ROLES:
            m = inst.matches.get(role)
            if m is None or m.name in inst.plain or (role == "embeddings" and lookup):
                continue  # reported by model_structure / model_embedding_lookup (noted); nothing to look at here
            grad = got["grads"].get(m.name)
            if grad is None and (shape := model_shapes.diagnose_gradient(
                    model_shapes.GradientCase(role, got.get("logits"), functools.partial(_logits_without, ctx, inst, w)))):
                trials.note(f"`{m.name}` {shape.message}")
                # What model_forward is charged with: its logits on this trial's own arguments, wrong.
                proof = Proof(f"the logits of forward(w), {inst.what} in train mode, w of shape {w.shape}",
                              tuple(np.ravel(got["logits"])),
                              tuple(np.ravel(_logits_without(ctx, inst, w, ""))))
                continue
            if grad is None:
                if not got["requires_grad"].get(m.name, True):
                    problems.append(f"{m.name} has requires_grad=False, so it is never trained")
                elif role == "embeddings":
                    problems.append("no gradient reached `embeddings`: don't use .data or .detach() (or a "
                                    "numpy copy) in embedding_lookup; index the parameter self.embeddings")
                else:
                    problems.append(f"no gradient reached `{m.name}`: is it used in forward?")
                continue
            if not np.any(np.asarray(grad, dtype=np.float64) != 0):
                problems.append(f"the gradient of `{m.name}` is all zeros: is it cut off from the "
                                "logits (e.g. a copy of it is used in forward)?")
        if inst.missing:
            trials.note(inst.missing)
        for note in inst.notes:
            trials.note(note)
        if proof is not None and not problems:  # passes only because model_forward charges the unused parameter
            trials.charge("model_forward", "", proof)
        else:
            trials.record(not problems, f"{what}: " + "; ".join(problems))
    return trials.outcome()
