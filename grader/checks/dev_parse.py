"""The dev UAS of train_uas (5.9), measured in the trusted process: the grader parses a hidden dev
set, drawn from the bundled treebank's grammar at grading time, with the reference's Parser and
asks the worker only for the trained model's logits (the ``trained_logits`` probe), so the dev UAS
does not rest on anything student code says about itself.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any

import numpy as np

from grader.checks.api import CheckAborted, CheckContext
from grader.checks.compare import as_float_array
from grader.checks.model_params import call
from grader.paths import TEMPLATE_DIR
from grader.results import ERROR

#: Sentences in the hidden dev set train_uas is scored on (the reduced bundled dev set has 500).
DEV_SENTENCES = 500
#: The dev UAS is the grader's own parse of the trained model; logits are clipped to this size so
#: that the parser's mask of illegal transitions (+10000) always decides.
LOGIT_CLIP = 1000.0
N_CLASSES = 3


class _WorkerModel:
    """parser.model in the trusted process: the trained model's logits, asked of the worker.

    The grader parses the dev set itself (the reference's Parser and minibatch_parse, on its own
    copy of the data), so the dev UAS does not rest on anything student code says about itself.
    """

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.nonfinite_rows = 0

    def __call__(self, mb_x: Any) -> Any:
        import torch  # noqa: PLC0415 - the reference's parser hands over and expects tensors

        rows = mb_x.numpy()
        what = f"the trained model's forward on {len(rows)} dev configurations (eval mode)"
        logits = as_float_array(call(self.ctx, "trained_logits", what, features=rows))
        if logits is None or logits.shape != (len(rows), N_CLASSES):
            shape = None if logits is None else logits.shape
            raise CheckAborted(ERROR, [f"{what} returned logits of shape {shape}; expected "
                                       f"({len(rows)}, {N_CLASSES})"])
        self.nonfinite_rows += int((~np.isfinite(logits)).any(axis=1).sum())
        logits = np.clip(np.nan_to_num(logits, nan=0.0), -LOGIT_CLIP, LOGIT_CLIP)
        return torch.from_numpy(logits.astype(np.float32))


_PARSERS: dict[int, Any] = {}


def _grader_parser(ref: Any) -> Any:
    """The reference Parser of the bundled treebank (its vocabulary and feature ids: those the
    student's model was trained with), read from the grader's own copy; loaded once per process."""
    key = id(ref.parser_utils)
    if key not in _PARSERS:
        data = TEMPLATE_DIR / "data"
        state = np.random.get_state()  # unknown words get random vectors: leave no trace
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                parser, *_rest = ref.parser_utils.load_and_preprocess_data(
                    reduced=True, data_path=str(data), embedding_file=str(data / "en-cw.txt"))
        finally:
            np.random.set_state(state)
        _PARSERS[key] = parser
    return _PARSERS[key]


def hidden_dev_set(parser: Any, seed: int, n: int = DEV_SENTENCES) -> list[Any]:
    """DEV_SENTENCES sentences drawn at grading time from the bundled treebank's grammar with
    ``seed``, vectorized by ``parser``: made and kept in the trusted process, so no submission can
    read them (the bundled data/dev.conll is the students' own)."""
    from grader import treebank  # noqa: PLC0415 - trusted only: the kit never reaches this

    rows = treebank.sentences(seed, n)
    return parser.vectorize([{"word": [form.lower() for form, _pos, _head, _rel in sent],
                              "pos": [pos for _form, pos, _head, _rel in sent],
                              "head": [head for _form, _pos, head, _rel in sent],
                              "label": [rel for _form, _pos, _head, rel in sent]} for sent in rows])


def grader_dev_uas(ctx: CheckContext, seed: int, n: int = DEV_SENTENCES) -> tuple[float, int]:
    """Dev UAS (percent) of the model train_uas left in the worker on the hidden dev set of
    ``seed``, parsed by the grader, and how many configurations got non-finite logits."""
    parser = _grader_parser(ctx.ref)
    evaluator = copy.copy(parser)
    evaluator.model = model = _WorkerModel(ctx)
    uas, _dependencies = evaluator.parse(hidden_dev_set(parser, seed, n))
    return 100 * float(uas), model.nonfinite_rows
