"""The dev UAS of check 5.9 (train_uas), in the trusted process: a hidden dev set drawn at grading
time from the treebank's grammar, parsed by the reference's Parser and minibatch_parse, with the
logits computed here by the assignment's forward (numpy) from the trained model's parameters,
which the worker returns as plain arrays after the student's train (the only thing student
code contributes: no student function runs while the dev set is scored).

Trusted: never in the student kit (there 5.9 takes the student's own parse of the bundled dev
set), never next to student code.

The trusted process does not import torch for it: the reference's ``utils/parser_utils.py`` is
loaded here with :data:`NUMPY_TORCH` in torch's place, the names its parse uses (``from_numpy``,
``no_grad``, a tensor's ``long``/``detach``/``numpy``) over numpy arrays; the logits are numpy
arrays too. Torch stays in the worker (~200 MiB and ~2 s less here).
"""

from __future__ import annotations

import contextlib
import copy
import io
import sys
import types
from typing import Any

import numpy as np

from a2 import treebank
from a2.checks.helpers.model_params import Sizes, layout_note, match_roles
from a2.tree_import import import_from
from grader.common.paths import REFERENCE_DIR, TEMPLATE_DIR

#: The model train_uas builds (a2/checks/training_uas.py):
#: ParserModel(embeddings, n_features=N_FEATURES, hidden_size=HIDDEN_SIZE).
N_FEATURES = 36
HIDDEN_SIZE = 200
#: Sentences in the hidden dev set train_uas is scored on at its full size (the reduced bundled dev
#: set has 500); a sized-down training is scored on fewer (training_size.py).
DEV_SENTENCES = 500
#: The dev UAS is the grader's own parse of the trained model; logits are clipped to this size so
#: that the parser's mask of illegal transitions (+10000) always decides.
LOGIT_CLIP = 1000.0


class Rows:
    """A numpy array standing in for the tensors the reference's parse makes and reads."""

    def __init__(self, array: Any) -> None:
        self.array = np.asarray(array)

    def long(self) -> Rows:
        return Rows(self.array.astype(np.int64))

    def detach(self) -> Rows:
        return self

    def numpy(self) -> Any:
        return self.array


NUMPY_TORCH = types.ModuleType("torch", "numpy standing in for torch in the reference's parse only")
NUMPY_TORCH.from_numpy = Rows  # type: ignore[attr-defined]
NUMPY_TORCH.no_grad = contextlib.nullcontext  # type: ignore[attr-defined]


def parser_utils_without_torch() -> Any:
    """The reference's ``utils.parser_utils``, imported with :data:`NUMPY_TORCH` as its torch
    (sys.modules is left as it was: a later ``import torch`` gets the real one)."""
    had, saved = "torch" in sys.modules, sys.modules.get("torch")
    sys.modules["torch"] = NUMPY_TORCH
    try:
        return import_from(REFERENCE_DIR, ("utils.parser_utils",))["parser_utils"]
    finally:
        if had:
            sys.modules["torch"] = saved  # type: ignore[assignment]
        else:
            del sys.modules["torch"]


class TrainedForward:
    """parser.model in the trusted process: the assignment's forward in eval mode (embedding
    lookup, affine, ReLU, affine; no dropout), computed with numpy from the trained model's
    parameters, which the worker returned as plain arrays. No student function is called while
    the dev set is scored, so a forward that behaves differently when scored than when trained
    has nothing to act on; a forward that computes something else is charged in check 5.4."""

    def __init__(self, values: dict[str, np.ndarray]) -> None:
        dtype = np.result_type(np.float32, *(v.dtype for v in values.values()))
        self.values = {role: np.asarray(v, dtype=dtype) for role, v in values.items()}
        self.nonfinite_rows = 0

    def logits(self, rows: np.ndarray) -> np.ndarray:
        v = self.values
        x = v["embeddings"][np.asarray(rows, dtype=np.int64)].reshape(len(rows), -1)
        with np.errstate(all="ignore"):
            h = np.maximum(x @ v["embed_to_hidden_weight"] + v["embed_to_hidden_bias"], 0)
            return h @ v["hidden_to_logits_weight"] + v["hidden_to_logits_bias"]

    def __call__(self, mb_x: Rows) -> Rows:
        logits = self.logits(mb_x.numpy())
        self.nonfinite_rows += int((~np.isfinite(logits)).any(axis=1).sum())
        logits = np.clip(np.nan_to_num(logits, nan=0.0), -LOGIT_CLIP, LOGIT_CLIP)
        return Rows(logits.astype(np.float32))


class UnmatchedParameters(Exception):
    """No parameter of the trained model could be taken for one of the model's roles."""


def role_values(arrays: dict[str, Any], n_tokens: int, embed_size: int) -> tuple[dict[str, np.ndarray], list[str]]:
    """The trained model's arrays (``trained_arrays`` of the worker: parameters and plain tensors
    with their names, shapes and values) mapped to the five roles of the model by name and shape
    as check 5.1 matches them (transposed weights, (1, n) biases, renamed attributes, nn.Linear /
    nn.Embedding layers), each in the role's own layout; and the notes on tolerated layouts.
    A missing bias is zero (the model computes without it); raises UnmatchedParameters when a
    weight or the embeddings have no array."""
    sizes = Sizes(n_tokens, embed_size, N_FEATURES, HIDDEN_SIZE)
    described = {"parameters": [{"name": a["name"], "shape": a["shape"]} for a in arrays.get("parameters") or []],
                 "tensors": [{"name": a["name"], "shape": a["shape"]} for a in arrays.get("tensors") or []]}
    matches, _plain = match_roles(described, sizes)
    wanted = sizes.role_shapes()
    # A model without a bias computes as one whose bias is zero (5.1 and 5.4 charge the missing
    # parameter); without a weight or the embeddings there is no model to score.
    absent = [role for role in wanted if role not in matches]
    if [role for role in absent if not role.endswith("_bias")]:
        have = ", ".join(f"{p['name']} {tuple(p['shape'])}" for p in described["parameters"]) or "none"
        raise UnmatchedParameters("no parameter of the trained model could be taken for " +
                                  ", ".join(f"{r} {wanted[r]}" for r in absent) +
                                  f" by name or shape (its parameters: {have})")
    by_name = {a["name"]: np.asarray(a["value"]) for a in [*(arrays.get("tensors") or []),
                                                             *(arrays.get("parameters") or [])]}
    values = {role: np.zeros(wanted[role], dtype=np.float32) for role in absent}
    for role, match in matches.items():
        value = by_name[match.name]
        values[role] = value.T if match.layout == "T" else value.reshape(wanted[role])
    notes = [n for role, m in matches.items()
             if (n := layout_note(role, m, tolerated="its values were read in your layout"))]
    notes += [f"your model has no {role}: it was scored as zero" for role in absent]
    return values, notes


_PARSERS: dict[str, Any] = {}


def _grader_parser(_ref: Any = None) -> Any:
    """The reference Parser of the bundled treebank (its vocabulary and feature ids: those the
    student's model was trained with), read from the grader's own copy; loaded once per process
    (always the reference's own files, whatever ``ctx.ref`` a caller has)."""
    if "parser" not in _PARSERS:
        data = TEMPLATE_DIR / "data"
        state = np.random.get_state()  # unknown words get random vectors: leave no trace
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                parser, *_rest = parser_utils_without_torch().load_and_preprocess_data(
                    reduced=True, data_path=str(data), embedding_file=str(data / "en-cw.txt"))
        finally:
            np.random.set_state(state)
        _PARSERS["parser"] = parser
        _PARSERS["embeddings_shape"] = tuple(int(d) for d in np.shape(_rest[0]))
    return _PARSERS["parser"]


def parser_embeddings_shape() -> tuple[int, int]:
    """(n_tokens, embed_size) of the embeddings the bundled treebank gives the student's model."""
    _grader_parser()
    n_tokens, embed_size = _PARSERS["embeddings_shape"]
    return n_tokens, embed_size


def hidden_dev_set(parser: Any, seed: int, n: int = DEV_SENTENCES) -> list[Any]:
    """``n`` (default DEV_SENTENCES) sentences drawn at grading time from the bundled treebank's grammar with
    ``seed``, vectorized by ``parser``: made and kept in the trusted process, so no submission can
    read them (the bundled data/dev.conll is the students' own)."""
    rows = treebank.sentences(seed, n)
    return parser.vectorize([{"word": [form.lower() for form, _pos, _head, _rel in sent],
                              "pos": [pos for _form, pos, _head, _rel in sent],
                              "head": [head for _form, _pos, head, _rel in sent],
                              "label": [rel for _form, _pos, _head, rel in sent]} for sent in rows])


def grader_dev_uas(arrays: dict[str, Any], seed: int, n: int = DEV_SENTENCES) -> tuple[float, int, list[str]]:
    """Dev UAS (percent) on the hidden dev set of ``seed`` of the model whose trained parameters
    are ``arrays`` (see role_values), parsed and scored by the grader with the assignment's
    forward (TrainedForward); how many configurations got non-finite logits; the layout notes.
    Raises UnmatchedParameters when the parameters cannot be mapped to the model's roles."""
    parser = _grader_parser()
    n_tokens, embed_size = parser_embeddings_shape()
    values, notes = role_values(arrays, n_tokens, embed_size)
    evaluator = copy.copy(parser)
    evaluator.model = model = TrainedForward(values)
    uas, _dependencies = evaluator.parse(hidden_dev_set(parser, seed, n))
    return 100 * float(uas), model.nonfinite_rows, notes
