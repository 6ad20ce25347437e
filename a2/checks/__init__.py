"""This assignment's checks: every module listed here registers its checks with @check.

To add a check: write a function decorated with ``@check("my_id", files=(...), names=(...))``
(grader/run/check_api.py) in the module of its part (or a new module added to CHECK_MODULES), and
give it a line in rubric.yaml. ``grader validate`` fails until both exist. The framework imports
these modules through a2/registry.py (grader.assignment.all_checks).
"""

from __future__ import annotations

CHECK_MODULES = (
    "a2.checks.word2vec",       # word2vec.py: sigmoid, losses and gradients
    "a2.checks.skipgram",       # word2vec.py: skipgram
    "a2.checks.sgd",            # sgd.py
    "a2.checks.partial_parse",  # parser_transitions.py: PartialParse (3c)
    "a2.checks.minibatch",      # parser_transitions.py: minibatch_parse (3d)
    "a2.checks.model",          # parser_model.py (3e iii)
    "a2.checks.model_dropout",  # parser_model.py: dropout (3e iii)
    "a2.checks.training",       # run.py: train / train_for_epoch (3e iii)
    "a2.checks.training_uas",   # run.py with parser_model.py: training to the dev UAS floor (3e iii)
)
