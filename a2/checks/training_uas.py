"""Check 5.9 of run.py (3(e)(iii)): the student's model, train and train_for_epoch trained end to
end on the bundled treebank must reach the dev UAS floor on sentences drawn at grading time,
scored in the trusted process from the trained parameters (a2/checks/helpers/dev_parse.py). The other checks of
run.py, and the sizes and floors, are in training.py and helpers/training_size.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from a2.checks.helpers import training_size as sizes
from a2.checks.helpers.model_params import call
from a2.checks.helpers.model_shapes import training_error_hint
from a2.checks.training import FILES, UAS_AGREEMENT, UAS_LR, main_globals_note
from grader.run.check_api import CheckAborted, CheckContext, Trials, check, check_label
from grader.run.results import ERROR, Outcome

#: What the student kit's 5.9 says: it can only score the bundled dev set, which a submission can
#: read (a model that looks its configurations up passes there: tests/submissions/hostile/dev_table),
#: so its verdict is a preview; the treebank's grammar that draws the hidden sentences never ships.
KIT_ADVISORY = ("advisory only: this local check scores the bundled dev set in data/, which your code can "
                "read; the score that counts is the full grader's on submission, on sentences it draws at "
                "grading time that your code never sees")


#: The course's ParserModel, train_for_epoch and train, whose text goes to the worker with the
#: counterfactual call only (the assignment's solution is never in the worker's folder); not in the kit.
COURSE_PARTS = Path(__file__).resolve().parent.parent / "course_parts.py"

#: The part of training each prerequisite of train_uas judges, which the course's code replaces when
#: 5.9 runs once more to prove that prerequisite's bug explains its failure (grader.run.settle).
SUBSTITUTES = {"model_structure": "model", "model_init": "model", "model_embedding_lookup": "model",
               "model_forward": "model", "model_dropout": "model", "model_gradients": "model",
               "train_loop": "loop", "train_setup": "setup"}


@check("train_uas", files=FILES, names=("parser_model.ParserModel", "run.train"),
       depends_on=("model_structure", "model_init", "model_embedding_lookup", "model_forward", "model_dropout",
                   "model_gradients", "train_loop", "train_setup"))
def train_uas(ctx: CheckContext) -> Outcome:
    """The student's model, train and train_for_epoch trained on the reduced bundled treebank must
    reach UAS_FLOOR on a hidden dev set (hidden_dev_set), as measured by the grader's own parse of
    the trained model; that UAS is the leaderboard entry. The student kit has neither the hidden
    set nor a parser of its own: there the student's own parse of the bundled dev set counts."""
    kit = bool(getattr(ctx.ref, "kit", False))
    substitute = tuple(sorted({SUBSTITUTES[c] for c in ctx.substitute if c in SUBSTITUTES}))
    if substitute and (kit or not COURSE_PARTS.is_file()):
        raise CheckAborted(ERROR, ["the student kit has no course code to run in place of a failing part"], ran=False)
    course: dict[str, Any] = ({"substitute": substitute, "course_code": COURSE_PARTS.read_text(encoding="utf-8")}
                              if substitute else {})
    seed = int(ctx.rng.integers(2**31))
    size, sized = (sizes.FULL, "") if kit else sizes.size_for(ctx, seed, UAS_LR, **course)
    scored_on = ("the bundled dev set, parsed by your own minibatch_parse" if kit else
                 f"{size.hidden} sentences the grader draws from the treebank's grammar at grading time")
    what = (f"train(parser, train_data, dev_data, output_path, batch_size={size.batch_size}, "
            f"n_epochs={size.n_epochs}, lr={UAS_LR}) with ParserModel(embeddings, n_features=36, "
            f"hidden_size=200, n_classes=3, dropout_prob=0.5) on the reduced bundled treebank"
            f"{'' if size.n_train is None else f' ({size.n_train} training examples)'}, scored on {scored_on}")
    try:
        got = call(ctx, "train_uas", what, seed=seed, n_epochs=size.n_epochs, batch_size=size.batch_size,
                   lr=UAS_LR, own_parse=kit, n_train=size.n_train, n_dev=size.n_dev, **course)
        dev_seed = int(ctx.rng.integers(2**31))
    except CheckAborted as aborted:
        hint = training_error_hint("\n".join(aborted.feedback), dependent="train_loop")
        if hint:
            aborted.feedback.append(f"Likely cause: {hint}")
        raise
    trials = Trials()
    trials.note(sized)
    trials.note(main_globals_note(got))
    if not got.get("trained"):
        trials.record(False, f"{what}: afterwards parser.model was not a torch.nn.Module, so there was no "
                             "trained model to evaluate")
        return trials.outcome()
    if kit:  # the student kit: no reference parser; the student's own parse
        reported_uas = got.get("final_uas")
        if not isinstance(reported_uas, float) or not np.isfinite(reported_uas):
            trials.record(False, f"{what}: parser.parse gave no dev UAS for the trained model: the student "
                                 f"kit parses with your own minibatch_parse, so fix {check_label('mb_results')} "
                                 "first")
            return trials.outcome()
        uas, nonfinite = 100 * reported_uas, 0
        trials.note(KIT_ADVISORY)
    else:
        if callable(renew := getattr(ctx.runner, "renew", None)):
            renew()  # the training worker keeps its peak memory until it ends: none is needed any more
        try:  # a2/checks/helpers/dev_parse.py: the grader's forward on the trained parameters, its own parse
            uas, nonfinite, layout = ctx.ref.dev_parse.grader_dev_uas(got.get("arrays") or {}, dev_seed, size.hidden)
        except ctx.ref.dev_parse.UnmatchedParameters as unmatched:
            trials.record(False, f"{what}: the trained model cannot be scored: {unmatched} (see the "
                                 f"parameters {check_label('model_structure')} asks for)")
            return trials.outcome()
        for line in layout:
            trials.note(f"the trained model was scored with the assignment's forward on its trained parameters: {line}")
    evaluations = ", ".join(f"{100 * u:.1f}" for u in got["uas"] if isinstance(u, float)) or "none"
    evaluations += " (the share of the bundled dev set's gold transitions the model picked)"
    if nonfinite:
        trials.note(f"the trained model gave NaN or infinite logits for {nonfinite} dev configurations")
    reported = got.get("final_uas")
    if isinstance(reported, float) and np.isfinite(reported) and abs(100 * reported - uas) > UAS_AGREEMENT:
        trials.note(f"parser.parse in your process reported {100 * reported:.2f}% for the trained model; "
                    f"the grader's own parse of the same model gives {uas:.2f}%, which is what counts")
    losses = got["losses"]
    loss_text = (f"; training loss {losses[0]:.3f} on the first minibatch, {np.mean(losses[-10:]):.3f} "
                 "over the last 10" if len(losses) >= 10 else "")
    trials.record(uas >= size.floor,
                  f"{what}: the trained model's dev UAS is {uas:.2f}%, below the floor of {size.floor:.0f}% "
                  f"(score of each epoch's evaluation: {evaluations}{loss_text})")
    summary = (f"Dev UAS of the trained model {uas:.2f}% (floor {size.floor:.0f}%; each epoch's "
               f"evaluation during training: {evaluations}).")
    return trials.outcome(summary, leaderboard=(("dev UAS", round(uas, 2)),))
