"""Checks of parser_model.py (3(e)(iii)): ParserModel's structure, initialisation, embedding
lookup, forward pass, dropout and gradients.

Student parameters are matched to the five roles of the model (embeddings, W, b1, U, b2) by
name, else by shape, transposes and (1, n) biases included, so a model laid out differently
but computing the right thing gets full marks on the numeric checks; only model_structure
looks at names. The numeric checks overwrite the matched parameters with random values drawn
here and compare the outputs with the reference model holding the same values. Instance sizes
are drawn so that every dimension differs (the shape of a parameter then says its role).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.checks import model_shapes
from grader.checks.api import CheckAborted, CheckContext, Trials, check, check_label
from grader.checks.compare import ATOL, RTOL, as_float_array, compare
from grader.results import Outcome

FILES = ("parser_model.py",)
N_CLASSES = 3

#: The model's parameters in the reference's names, with the names a 2019-style model
#: (nn.Embedding / nn.Linear layers) gives the same tensors.
ROLES: dict[str, tuple[str, ...]] = {
    "embeddings": ("embeddings", "embeddings.weight"),
    "embed_to_hidden_weight": ("embed_to_hidden_weight", "embed_to_hidden.weight"),
    "embed_to_hidden_bias": ("embed_to_hidden_bias", "embed_to_hidden.bias"),
    "hidden_to_logits_weight": ("hidden_to_logits_weight", "hidden_to_logits.weight"),
    "hidden_to_logits_bias": ("hidden_to_logits_bias", "hidden_to_logits.bias"),
}

#: Hidden units observed per dropout trial: the fraction dropped has a standard deviation of
#: at most 0.5 / sqrt(DROPOUT_ROWS) = 0.7 percentage points.
DROPOUT_ROWS = 5000
#: A correct dropout's fraction of zeroed units lies within this many standard deviations
#: of p (a false failure has probability < 1e-8 per trial).
DROPOUT_SIGMAS = 6.0
#: Xavier-uniform statistics: every |w| <= bound * (1 + INIT_BOUND_RTOL) (float32 rounding),
#: the largest |w| above INIT_MAX_FRACTION * bound, the mean of w^2 within INIT_VAR_RTOL of
#: bound^2 / 3 and the mean within INIT_MEAN_SIGMAS standard errors of 0.
INIT_BOUND_RTOL = 1e-5
INIT_MAX_FRACTION = 0.97
INIT_VAR_RTOL = 0.2
INIT_MEAN_SIGMAS = 8.0

GPU_HINT = ("There is no GPU on the grading machine (as on Gradescope): don't call .cuda() "
            "unconditionally; keep tensors on the CPU, or use "
            ".to('cuda' if torch.cuda.is_available() else 'cpu').")


def gpu_hint(text: str) -> str:
    """The GPU hint when ``text`` is torch's complaint about a missing CUDA device, else ''."""
    markers = ("Torch not compiled with CUDA", "no NVIDIA driver", "CUDA driver", "cuda runtime",
               "No CUDA GPUs")
    return GPU_HINT if any(m.lower() in text.lower() for m in markers) else ""


def call(ctx: CheckContext, probe: str, what: str, **args: Any) -> Any:
    """ctx.call, with the GPU hint added when student code asked for CUDA."""
    try:
        return ctx.call(probe, what, **args)
    except CheckAborted as aborted:
        hint = gpu_hint("\n".join(aborted.feedback))
        if hint:
            aborted.feedback.append(hint)
        raise


def try_call(ctx: CheckContext, probe: str, what: str, **args: Any) -> tuple[Any, str | None]:
    """ctx.try_call, with the GPU hint added when student code asked for CUDA."""
    value, err = ctx.try_call(probe, what, **args)
    if err and gpu_hint(err):
        err += "\n" + GPU_HINT
    return value, err


def record_error(trials: Trials, err: str, *, aspects: int) -> None:
    """A call that raised fails every aspect it would have shown; the error is told once."""
    trials.record(False, err)
    for _aspect in range(aspects - 1):
        trials.record(False, "(the other aspects of that call could not be judged: it raised)")


# -- instances ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    """One model instance: n_tokens x embed_size embeddings, n_features, hidden units."""

    n_tokens: int
    embed_size: int
    n_features: int
    hidden: int

    @property
    def in_dim(self) -> int:
        return self.n_features * self.embed_size

    def role_shapes(self) -> dict[str, tuple[int, ...]]:
        return {"embeddings": (self.n_tokens, self.embed_size),
                "embed_to_hidden_weight": (self.in_dim, self.hidden),
                "embed_to_hidden_bias": (self.hidden,),
                "hidden_to_logits_weight": (self.hidden, N_CLASSES),
                "hidden_to_logits_bias": (N_CLASSES,)}


def draw_sizes(rng: np.random.Generator, *, tokens=(20, 60), embed=(3, 9), features=(2, 7),
               hidden=(5, 30)) -> Sizes:
    """Random sizes in which n_tokens, embed_size, n_features*embed_size, hidden and 3 all differ."""
    while True:
        s = Sizes(int(rng.integers(*tokens)), int(rng.integers(*embed)),
                  int(rng.integers(*features)), int(rng.integers(*hidden)))
        if len({s.n_tokens, s.embed_size, s.in_dim, s.hidden, N_CLASSES}) == 5:
            return s


def draw_values(rng: np.random.Generator, s: Sizes) -> dict[str, np.ndarray]:
    """Parameter values (float32) for every role; about half the hidden pre-activations < 0."""
    f32 = np.float32
    return {"embeddings": rng.normal(0, 1, (s.n_tokens, s.embed_size)).astype(f32),
            "embed_to_hidden_weight": (rng.normal(0, 1, (s.in_dim, s.hidden)) / np.sqrt(s.in_dim)).astype(f32),
            "embed_to_hidden_bias": rng.uniform(-0.5, 0.5, s.hidden).astype(f32),
            "hidden_to_logits_weight": (rng.normal(0, 1, (s.hidden, N_CLASSES)) / np.sqrt(s.hidden)).astype(f32),
            "hidden_to_logits_bias": rng.normal(0, 1, N_CLASSES).astype(f32)}


def ctor_args(s: Sizes, embeddings: np.ndarray, dropout_prob: float) -> dict[str, Any]:
    return {"embeddings": embeddings, "n_features": s.n_features, "hidden_size": s.hidden,
            "n_classes": N_CLASSES, "dropout_prob": float(dropout_prob)}


def describe_ctor(s: Sizes, dropout_prob: float) -> str:
    return (f"ParserModel(embeddings of shape ({s.n_tokens}, {s.embed_size}), "
            f"n_features={s.n_features}, hidden_size={s.hidden}, n_classes={N_CLASSES}, "
            f"dropout_prob={dropout_prob:.3g})")


# -- matching student parameters to roles ---------------------------------------------------------


def layout(shape: tuple[int, ...], wanted: tuple[int, ...]) -> str | None:
    """How a parameter of ``shape`` holds a tensor of shape ``wanted``: same, T, reshape, or None."""
    shape = tuple(shape)
    if shape == wanted:
        return "same"
    if len(wanted) == 2 and shape == wanted[::-1]:
        return "T"
    if len(wanted) == 1 and shape and int(np.prod(shape)) == wanted[0] \
            and sum(1 for d in shape if d != 1) <= 1:
        return "reshape"
    return None


@dataclass(frozen=True)
class Match:
    name: str
    layout: str
    shape: tuple[int, ...]


def match_parameters(params: list[dict[str, Any]], s: Sizes) -> dict[str, Match]:
    """Map each role to a student parameter: by the usual names first, then by shape."""
    shapes = {p["name"]: tuple(p["shape"]) for p in params}
    wanted = s.role_shapes()
    found: dict[str, Match] = {}
    for role, aliases in ROLES.items():
        for alias in aliases:
            if alias in shapes and (lay := layout(shapes[alias], wanted[role])):
                found[role] = Match(alias, lay, shapes[alias])
                break
    taken = {m.name for m in found.values()}
    for role in ROLES:
        if role in found:
            continue
        for preferred in ("same", "T", "reshape"):
            names = [n for n, sh in shapes.items() if n not in taken and layout(sh, wanted[role]) == preferred]
            if names:
                found[role] = Match(names[0], preferred, shapes[names[0]])
                taken.add(names[0])
                break
    return found


def to_student(value: np.ndarray, match: Match) -> np.ndarray:
    if match.layout == "T":
        return np.ascontiguousarray(value.T)
    return value.reshape(match.shape)


def assignment(matches: dict[str, Match], values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The values to set, keyed by the student's parameter names, in the student's layouts."""
    return {matches[role].name: to_student(v, matches[role]) for role, v in values.items() if role in matches}


#: The contract's shape of each role, in words (notes must not depend on a trial's sizes).
SYMBOLIC_SHAPES = {"embeddings": ("n_tokens", "embed_size"),
                   "embed_to_hidden_weight": ("n_features * embed_size", "hidden_size"),
                   "embed_to_hidden_bias": ("hidden_size",),
                   "hidden_to_logits_weight": ("hidden_size", "n_classes"),
                   "hidden_to_logits_bias": ("n_classes",)}


def symbolic(role: str, lay: str = "same", shape: tuple[int, ...] = ()) -> str:
    """The shape of ``role`` in words, as the contract has it or in the student's layout."""
    names = SYMBOLIC_SHAPES[role]
    if lay == "T":
        names = names[::-1]
    elif lay == "reshape":
        names = tuple("1" if d == 1 else names[0] for d in shape)
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def layout_note(role: str, match: Match, *, tolerated: str = "the values were set in your layout") -> str:
    """The note for a tolerated layout or a parameter found by shape, or ''."""
    notes = []
    if match.layout != "same":
        notes.append(f"{match.name} has shape {symbolic(role, match.layout, match.shape)} rather than "
                     f"{symbolic(role)}{' (transposed)' if match.layout == 'T' else ''}: tolerated, "
                     f"{tolerated}")
    if match.name not in ROLES[role]:
        notes.append(f"your parameter {match.name} was taken to be {role} (by its shape)")
    return "; ".join(notes)


def layout_notes(matches: dict[str, Match]) -> list[str]:
    return [n for role, m in matches.items() if (n := layout_note(role, m))]


def missing_roles(matches: dict[str, Match], s: Sizes, params: list[dict[str, Any]]) -> str:
    """'' when every role has a parameter, else a sentence saying which could not be set."""
    missing = [r for r in ROLES if r not in matches]
    if not missing:
        return ""
    wanted = s.role_shapes()
    have = ", ".join(f"{p['name']} {tuple(p['shape'])}" for p in params) or "none"
    return ("no parameter of your model could be matched to " +
            ", ".join(f"{r} {wanted[r]}" for r in missing) +
            f" (by name or shape), so it kept its own values (your parameters: {have})")


class Instance:
    """A model instance: sizes, values, and the student's parameters matched to roles."""

    def __init__(self, ctx: CheckContext, s: Sizes, *, dropout_prob: float = 0.0,
                 values: dict[str, np.ndarray] | None = None):
        self.s = s
        self.dropout_prob = dropout_prob
        self.values = values if values is not None else draw_values(ctx.rng, s)
        # The constructor gets other embeddings than the ones set afterwards: a lookup that
        # reads a stale copy instead of the parameter then shows.
        self.ctor_embeddings = ctx.rng.normal(0, 1, (s.n_tokens, s.embed_size)).astype(np.float32)
        self.what = describe_ctor(s, dropout_prob)
        described = call(ctx, "model_describe", self.what,
                         **ctor_args(s, self.ctor_embeddings, dropout_prob))
        if not described.get("is_module"):
            raise CheckAborted("failed", [f"{self.what} returned a {described.get('type')}, not a "
                                          "torch.nn.Module: ParserModel must subclass nn.Module"])
        self.params = described["parameters"]
        self.matches, self.plain = model_shapes.match_roles(described, s)
        self.missing = missing_roles(self.matches, s, self.params)
        self.notes = layout_notes(self.matches) + [model_shapes.plain_note(n) for n in sorted(self.plain)]

    def ctor(self, dropout_prob: float | None = None) -> dict[str, Any]:
        p = self.dropout_prob if dropout_prob is None else dropout_prob
        return ctor_args(self.s, self.ctor_embeddings, p)

    def assign(self, overrides: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        return assignment(self.matches, {**self.values, **(overrides or {})})

    def indices(self, rng: np.random.Generator, batch: int) -> np.ndarray:
        return rng.integers(0, self.s.n_tokens, (batch, self.s.n_features))


def reference_output(ctx: CheckContext, inst: Instance, w: np.ndarray, method: str) -> np.ndarray:
    """The reference model's eval-mode output for ``w`` with the instance's values."""
    import torch  # noqa: PLC0415 - torch is only needed by the model checks

    s = inst.s
    with torch.random.fork_rng():
        ref = ctx.ref.parser_model.ParserModel(inst.values["embeddings"], n_features=s.n_features,
                                               hidden_size=s.hidden, n_classes=N_CLASSES, dropout_prob=0.0)
    with torch.no_grad():
        for role, value in inst.values.items():
            getattr(ref, role).copy_(torch.as_tensor(value))
        ref.eval()
        out = getattr(ref, method)(torch.as_tensor(w, dtype=torch.long))
    return out.double().numpy()


def _manual_forward(inst: Instance, w: np.ndarray) -> dict[str, np.ndarray]:
    """Pieces of the forward pass in float64, for the hints."""
    v = {k: a.astype(np.float64) for k, a in inst.values.items()}
    x = v["embeddings"][w].reshape(w.shape[0], -1)
    z = x @ v["embed_to_hidden_weight"] + v["embed_to_hidden_bias"]
    h = np.maximum(z, 0)
    logits = h @ v["hidden_to_logits_weight"] + v["hidden_to_logits_bias"]
    return {"x": x, "z": z, "h": h, "logits": logits, **v}


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _close(a: Any, b: np.ndarray) -> bool:
    arr = as_float_array(a)
    return arr is not None and arr.shape == b.shape and bool(np.allclose(arr, b, rtol=RTOL, atol=ATOL))


def forward_hint(got: Any, inst: Instance, w: np.ndarray) -> str:
    """The likeliest cause of wrong logits, when one simple variant explains them."""
    f = _manual_forward(inst, w)
    W, U, b2 = f["embed_to_hidden_weight"], f["hidden_to_logits_weight"], f["hidden_to_logits_bias"]
    logits = f["logits"]
    variants = [
        (_softmax(logits), "they equal softmax of the expected logits: forward must return the raw "
                           "logits (torch.nn.CrossEntropyLoss applies the softmax itself)"),
        (np.log(_softmax(logits)), "they equal log_softmax of the expected logits: return the raw logits"),
        (f["z"] @ U + b2, "they equal the output without the ReLU: h = ReLU(x W + b1)"),
        (np.maximum(f["x"] @ W, 0) @ U + b2, "they equal the output without embed_to_hidden_bias: add b1 "
                                             "before the ReLU"),
        (f["h"] @ U, "they equal the output without hidden_to_logits_bias: add b2 to the logits"),
        (np.maximum(logits, 0), "a ReLU is applied to the logits too; apply it to the hidden layer only"),
    ]
    for value, hint in variants:
        if _close(got, value):
            return hint
    return ""


def lookup_hint(got: Any, inst: Instance, w: np.ndarray) -> str:
    E = inst.values["embeddings"].astype(np.float64)
    B, F = w.shape
    d = E.shape[1]
    arr = as_float_array(got)
    if arr is None:
        return ""
    if arr.shape == (B, F, d) and np.allclose(arr, E[w], rtol=RTOL, atol=ATOL):
        return (f"the values are right but have shape {(B, F, d)}: concatenate each row's feature "
                f"embeddings into shape ({B}, {F * d}), e.g. with .reshape({B}, -1) or .view")
    if arr.shape == (B, F * d) and np.allclose(arr, E[w].transpose(0, 2, 1).reshape(B, -1), rtol=RTOL, atol=ATOL):
        return ("the values are interleaved: row b must be embeddings[w[b, 0]] followed by "
                "embeddings[w[b, 1]] and so on; don't transpose before reshaping")
    stale = inst.ctor_embeddings.astype(np.float64)
    if arr.shape == (B, F * d) and np.allclose(arr, stale[w].reshape(B, -1), rtol=RTOL, atol=ATOL):
        return ("the values are rows of the embeddings passed to the constructor, not of the model's "
                "current `self.embeddings` parameter: look up self.embeddings so that training updates "
                "what forward uses")
    return ""


def _output_value(out: dict[str, Any], method: str) -> tuple[Any, str]:
    if out.get("value") is None:
        return None, f"{method} returned a {out.get('type')}; expected a torch tensor"
    note = "" if out.get("type") == "tensor" else f"{method} returned a {out.get('type')}, not a tensor"
    return out["value"], note


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
def embedding_lookup(ctx: CheckContext) -> Outcome:
    """embedding_lookup(w) against the reference, with the same embeddings set in both models."""
    trials = Trials()
    for t in range(4):
        inst = Instance(ctx, draw_sizes(ctx.rng))
        for note in inst.notes:
            trials.note(note)
        batch = [1, int(ctx.rng.integers(2, 10)), int(ctx.rng.integers(10, 60)), int(ctx.rng.integers(2, 60))][t]
        w = inst.indices(ctx.rng, batch)
        what = f"{inst.what}.embedding_lookup(w) with w a LongTensor of shape {w.shape}"
        if "embeddings" not in inst.matches:
            trials.record(False, f"{what}: {inst.missing}")
            continue
        got, err = try_call(ctx, "model_run", what, **inst.ctor(),
                            assign=inst.assign(), calls=[{"method": "embedding_lookup", "mode": "eval", "w": w}])
        if err:
            trials.record(False, err)
            continue
        value, note = _output_value(got[0], "embedding_lookup")
        trials.note(note)
        if value is None:
            trials.record(False, f"{what}: {note}")
            continue
        expected = reference_output(ctx, inst, w, "embedding_lookup")
        v = compare("x", value, expected, factor_hint=False)
        trials.factor("x", v, expected.size)
        hint = "" if v.ok else lookup_hint(value, inst, w)
        trials.record(v.ok, f"{what}: {v.message}" + (f". Likely cause: {hint}" if hint else ""))
    return trials.outcome()


@check("model_forward", files=FILES, names=("parser_model.ParserModel",))
def forward(ctx: CheckContext) -> Outcome:
    """forward(w) in eval mode (built with dropout_prob=0) against the reference's logits."""
    trials = Trials()
    for t in range(5):
        inst = Instance(ctx, draw_sizes(ctx.rng))
        for note in inst.notes:
            trials.note(note)
        batch = 1 if t == 0 else int(ctx.rng.integers(2, 40))
        w = inst.indices(ctx.rng, batch)
        what = f"{inst.what} in eval mode, forward(w) with w a LongTensor of shape {w.shape}"
        lookup = model_shapes.lookup_override(ctx, inst, w, trials)
        got, err = try_call(ctx, "model_run", what, **inst.ctor(), assign=inst.assign(),
                            calls=[{"method": "forward", "mode": "eval", "w": w, **lookup}])
        if err:
            trials.record(False, err)
            continue
        value, note = _output_value(got[0], "forward")
        trials.note(note)
        if value is None:
            trials.record(False, f"{what}: {note}")
            continue
        expected = reference_output(ctx, inst, w, "forward")
        v = compare("logits", value, expected, factor_hint=False)
        trials.factor("logits", v, expected.size)
        if v.ok:
            trials.record(True)
            continue
        hint = forward_hint(value, inst, w)
        message = f"{what}: {v.message}"
        if hint:
            message += f". Likely cause: {hint}"
        if inst.missing:
            message += f". Note: {inst.missing}"
        trials.record(False, message)
    return trials.outcome()


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
    gamma = 1.0 / (1.0 - p)

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
                                 {**fwd, "mode": "eval", "assign": with_out(gamma * out_w)}])
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
    without, kept, scaled, eval1, eval2, train = arrays

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
    as_gamma = _rows_close(train, scaled) & informative & ~dropped
    unscaled = _rows_close(train, kept) & informative & ~dropped & ~as_gamma
    other = informative & ~dropped & ~as_gamma & ~unscaled
    frac = dropped.sum() / n
    sigma = np.sqrt(p * (1 - p) / n)
    problems = []
    named = model_shapes.diagnose_dropout(model_shapes.dropout_case(train, kept, without, informative,
                                                                    dropped, other, p))
    if named is not None:
        trials.record(False, f"{what}: {named.message}")
        return
    if dropped.sum() == 0 and unscaled.sum() == n:
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
                            f"{scale:.3g} instead of 1/(1-p) = {gamma:.3g} (γ of 2(b)(i)), which keeps the "
                            "expected value of each unit unchanged")
    trials.record(not problems, f"{what}: " + "; ".join(problems))


@check("model_dropout", files=FILES, names=("parser_model.ParserModel",))
def dropout(ctx: CheckContext) -> Outcome:
    """Dropout: train mode zeroes about p of the hidden units and scales the rest by 1/(1-p);
    eval mode is deterministic and applies no dropout."""
    trials = Trials()
    for t in range(3):
        # p away from 0.5, so that using 1 - p as the drop probability shows.
        low, high = [(0.15, 0.42), (0.58, 0.85), (0.15, 0.42)][t]
        p = float(np.round(ctx.rng.uniform(low, high), 3))
        _dropout_trial(ctx, trials, p)
    return trials.outcome()


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
        for role in ROLES:
            m = inst.matches.get(role)
            if m is None or m.name in inst.plain or (role == "embeddings" and lookup):
                continue  # reported by model_structure / model_embedding_lookup (noted); nothing to look at here
            grad = got["grads"].get(m.name)
            unused = model_shapes.GradientCase(role, got.get("logits"), inst.values,
                                               model_shapes.correct_lookup(inst, w))
            if grad is None and (shape := model_shapes.diagnose_gradient(unused)):
                trials.note(f"`{m.name}` {shape.message}")
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
        trials.record(not problems, f"{what}: " + "; ".join(problems))
    return trials.outcome()
