"""Instances of ParserModel for the model checks, and the matching of a student's parameters to
the five roles of the model (embeddings, W, b1, U, b2): by name, else by shape, transposes and
(1, n) biases included, then plain tensors and buffers for the roles no parameter holds. Also
the calls to the model's probes and the hints for wrong outputs that several model and training
checks share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.common.numerics import softmax
from grader.run.check_api import CheckAborted, CheckContext, Trials, check_label
from grader.run.compare import ATOL, RTOL, as_float_array

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


def match_roles(described: dict[str, Any], s: Sizes) -> tuple[dict[str, Match], set[str]]:
    """Parameters matched to roles, then plain tensors (and buffers) for the roles still missing;
    and the names of the plain tensors used."""
    matches = match_parameters(described["parameters"], s)
    tensors = described.get("tensors") or []
    missing = [r for r in ROLES if r not in matches]
    plain: set[str] = set()
    if missing and tensors:
        taken = {m.name for m in matches.values()}
        extra = match_parameters([t for t in tensors if t["name"] not in taken], s)
        for role in missing:
            if role in extra:
                matches[role] = extra[role]
                plain.add(extra[role].name)
    return matches, plain


def plain_note(name: str) -> str:
    """The note for a role held by the plain tensor ``self.name``: it was given the test values."""
    return (f"self.{name} is a plain tensor, not an nn.Parameter, so it is never trained: "
            f"{check_label('model_structure')} charges that; here the test values were placed in it "
            "and what your code computes was judged")


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
        self.matches, self.plain = match_roles(described, s)
        self.missing = missing_roles(self.matches, s, self.params)
        self.notes = layout_notes(self.matches) + [plain_note(n) for n in sorted(self.plain)]

    def ctor(self, dropout_prob: float | None = None) -> dict[str, Any]:
        p = self.dropout_prob if dropout_prob is None else dropout_prob
        return ctor_args(self.s, self.ctor_embeddings, p)

    def assign(self, overrides: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        return assignment(self.matches, {**self.values, **(overrides or {})})

    def indices(self, rng: np.random.Generator, batch: int) -> np.ndarray:
        return rng.integers(0, self.s.n_tokens, (batch, self.s.n_features))


def reference_output(ctx: CheckContext, inst: Instance, w: np.ndarray, method: str) -> np.ndarray:
    """The reference model's eval-mode output for ``w`` with the instance's values: its
    embedding_lookup or forward, computed in float64 with numpy by the grader's reference math
    (``ctx.ref.grader_math``, never in the kit), so that the trusted process need not import torch
    for the model checks (tests/test_memory.py checks it against the reference's own class)."""
    pieces = reference_pieces(ctx, inst, w)
    return pieces["x"] if method == "embedding_lookup" else pieces["logits"]


def reference_pieces(ctx: CheckContext, inst: Instance, w: np.ndarray) -> dict[str, np.ndarray]:
    """Pieces of the reference forward pass in float64 (x, z, h, logits and the values), for the hints."""
    return ctx.ref.grader_math.model_forward(inst.values, w)


def _close(a: Any, b: np.ndarray) -> bool:
    arr = as_float_array(a)
    return arr is not None and arr.shape == b.shape and bool(np.allclose(arr, b, rtol=RTOL, atol=ATOL))


def forward_hint(got: Any, f: dict[str, np.ndarray]) -> str:
    """The likeliest cause of wrong logits, when one simple variant of the reference pieces ``f``
    (``reference_pieces``) explains them."""
    W, U, b2 = f["embed_to_hidden_weight"], f["hidden_to_logits_weight"], f["hidden_to_logits_bias"]
    logits = f["logits"]
    variants = [
        (softmax(logits), "they equal softmax of the expected logits: forward must return the raw "
                           "logits (torch.nn.CrossEntropyLoss applies the softmax itself)"),
        (np.log(softmax(logits)), "they equal log_softmax of the expected logits: return the raw logits"),
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


def output_value(out: dict[str, Any], method: str) -> tuple[Any, str]:
    if out.get("value") is None:
        return None, f"{method} returned a {out.get('type')}; expected a torch tensor"
    note = "" if out.get("type") == "tensor" else f"{method} returned a {out.get('type')}, not a tensor"
    return out["value"], note
