"""The registry of checks: every module listed here registers its checks with @check.

To add a check: write a function decorated with ``@check("my_id", files=(...), names=(...))`` in the
module of its part (or a new module added to CHECK_MODULES), and give it a line in
rubric.yaml. ``grader validate`` fails until both exist.
"""

from __future__ import annotations

import importlib

from grader.checks.api import REGISTRY, RegisteredCheck

CHECK_MODULES = (
    "grader.checks.word2vec",       # word2vec.py: sigmoid, losses and gradients
    "grader.checks.skipgram",       # word2vec.py: skipgram
    "grader.checks.sgd",            # sgd.py
    "grader.checks.transitions",    # parser_transitions.py: PartialParse (3c)
    "grader.checks.minibatch",      # parser_transitions.py: minibatch_parse (3d)
    "grader.checks.model",          # parser_model.py (3e iii)
    "grader.checks.model_dropout",  # parser_model.py: dropout (3e iii)
    "grader.checks.training",       # run.py: train / train_for_epoch (3e iii)
)


def all_checks() -> dict[str, RegisteredCheck]:
    """Import every check module (once) and return the registry."""
    for name in CHECK_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return REGISTRY
