"""The dev UAS of check 5.9 (train_uas), in the trusted process: a hidden dev set drawn at grading
time from the treebank's grammar, parsed by the reference's Parser and minibatch_parse, with the
trained model's logits asked of the worker (the only thing student code contributes).

Trusted: never in the student kit (there 5.9 takes the student's own parse of the bundled dev
set), never next to student code.

The trusted process does not import torch for it: the reference's ``utils/parser_utils.py`` is
loaded here with :data:`NUMPY_TORCH` in torch's place, the names its parse uses (``from_numpy``,
``no_grad``, a tensor's ``long``/``detach``/``numpy``) over numpy arrays; the logits come from
the worker as numpy arrays anyway. Torch stays in the worker (~200 MiB and ~2 s less here).
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
from a2.checks.model_params import call
from a2.checks.training import DEV_SENTENCES, LOGIT_CLIP, N_CLASSES
from a2.tree_import import import_from
from grader.common.paths import REFERENCE_DIR, TEMPLATE_DIR
from grader.run.check_api import CheckAborted, CheckContext
from grader.run.compare import as_float_array
from grader.run.results import ERROR


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


class _WorkerModel:
    """parser.model in the trusted process: the trained model's logits, asked of the worker.

    The grader parses the dev set itself (the reference's Parser and minibatch_parse, on its own
    copy of the data), so the dev UAS does not rest on anything student code says about itself.
    """

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.nonfinite_rows = 0

    def __call__(self, mb_x: Rows) -> Rows:
        rows = mb_x.numpy()
        what = f"the trained model's forward on {len(rows)} dev configurations (eval mode)"
        logits = as_float_array(call(self.ctx, "trained_logits", what, features=rows))
        if logits is None or logits.shape != (len(rows), N_CLASSES):
            shape = None if logits is None else logits.shape
            raise CheckAborted(ERROR, [f"{what} returned logits of shape {shape}; expected "
                                       f"({len(rows)}, {N_CLASSES})"])
        self.nonfinite_rows += int((~np.isfinite(logits)).any(axis=1).sum())
        logits = np.clip(np.nan_to_num(logits, nan=0.0), -LOGIT_CLIP, LOGIT_CLIP)
        return Rows(logits.astype(np.float32))


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
    return _PARSERS["parser"]


def hidden_dev_set(parser: Any, seed: int, n: int = DEV_SENTENCES) -> list[Any]:
    """``n`` (default DEV_SENTENCES) sentences drawn at grading time from the bundled treebank's grammar with
    ``seed``, vectorized by ``parser``: made and kept in the trusted process, so no submission can
    read them (the bundled data/dev.conll is the students' own)."""
    rows = treebank.sentences(seed, n)
    return parser.vectorize([{"word": [form.lower() for form, _pos, _head, _rel in sent],
                              "pos": [pos for _form, pos, _head, _rel in sent],
                              "head": [head for _form, _pos, head, _rel in sent],
                              "label": [rel for _form, _pos, _head, rel in sent]} for sent in rows])


def grader_dev_uas(ctx: CheckContext, seed: int, n: int = DEV_SENTENCES) -> tuple[float, int]:
    """Dev UAS (percent) of the model train_uas left in the worker on the hidden dev set of
    ``seed``, parsed by the grader, and how many configurations got non-finite logits."""
    parser = _grader_parser()
    evaluator = copy.copy(parser)
    evaluator.model = model = _WorkerModel(ctx)
    uas, _dependencies = evaluator.parse(hidden_dev_set(parser, seed, n))
    return 100 * float(uas), model.nonfinite_rows
