"""Checks of run.py (3(e)(iii)): train_for_epoch, train, and training to the dev UAS floor.

Each check is judged on its own function: train_for_epoch runs with a spy optimizer and the
student's model (or a stand-in when their model cannot be built), train runs with a stand-in
train_for_epoch, and dev parsing always uses the grader's own minibatch_parse. Only train_uas
trains end to end with the student's model, train and train_for_epoch together; its dev UAS is
measured in the trusted process, which parses the dev set itself with the assignment's forward
computed from the trained model's parameters (returned by the worker as plain arrays).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from a2.checks.helpers import training_size as sizes
from a2.checks.helpers.model_params import record_error, try_call
from a2.checks.helpers.model_shapes import training_error_hint
from grader.common.numerics import log_softmax
from grader.common.shown import brief
from grader.run.check_api import CheckContext, Trials, check, check_label
from grader.run.results import Outcome

FILES = ("parser_model.py", "run.py")

#: train_uas: the student's train() runs on the course's reduced treebank (1000 training and 500
#: dev sentences) for the epochs and minibatches of training_size.FULL with lr UAS_LR, on one
#: CPU thread; then the grader parses the dev set with the trained model. Sized for slow but
#: correct code (tests/submissions/slow: Python-list lookups, per-row loops), whose cost grows
#: with the examples seen (~30k an epoch), not with the optimizer steps: two epochs of 128
#: (~470 Adam steps, 60k examples) train nearly as well as ten of 1024 (300 steps, 300k
#: examples; 0.9 points of dev UAS more) for a fifth of a slow model's time. CPU seconds of this
#: check on one core (load 5-7): reference 6-12, list lookups 51 (was ~240 at 10 x 1024), per-row
#: loops 42-94, so at most ~190 s at Gradescope's half a core, within the rubric's 480 s.
#: The dev UAS is measured on DEV_SENTENCES sentences (helpers/dev_parse.py) drawn at grading
#: time from the treebank's grammar (a2/treebank.py) with a seed of the run: no submission can read
#: them (a model that looks up the bundled dev set's gold transitions,
#: tests/submissions/hostile/dev_table, gets 25.8% there).
#: Measured on them (November 2026, run seeds 1-16, each a training seed and a dev set of its own):
#: the reference (float32) 83.52-85.30%, mean 84.47, standard deviation 0.50;
#: tests/submissions/alternative 83.79-85.07% over run seeds 1-6. UAS_FLOOR is 5.5 points (11 standard
#: deviations) below the worst of them, as it was on the bundled dev set (reference 83.6-84.7%).
#: Training that does not work stays far below (without zero_grad: 8%; a crash: no model).
#: Re-measure if the data or the grammar changes.
#: Sized down per submission since issue 23 (a slow model trains on fewer examples, scored on fewer
#: hidden sentences): see helpers/training_size.py, whose FULL size is the one above.
UAS_LR = 0.0005
UAS_FLOOR = sizes.FULL.floor
#: Percentage points by which the student's own parse may differ from the grader's without a note.
UAS_AGREEMENT = 0.5
N_CLASSES = 3

#: A learning rate train() was given must reach Adam to this relative precision.
LR_RTOL = 1e-6
#: The loss function's value on grader logits agrees with the mean cross-entropy to this.
LOSS_RTOL = 1e-5
ADAM_DEFAULT_LR = 0.001


def _loop_problems(events: list[str], n_minibatches: int) -> list[str]:
    """What is wrong with the zero_grad / backward / step sequence of one epoch."""
    training = [e for e in events if not e.startswith("P")]
    steps = training.count("S")
    backwards = training.count("B")
    zeros = training.count("Z")
    forwards = sum(1 for e in training if e.startswith("F"))
    problems = []
    if forwards == 0:
        return [f"the model's forward was never called during training ({n_minibatches} minibatches)"]
    if backwards == 0:
        return [f"loss.backward() was never called ({n_minibatches} minibatches)"]
    if steps != n_minibatches:
        problems.append(f"optimizer.step() was called {steps} times for {n_minibatches} minibatches; "
                        "call it once per minibatch, after loss.backward()")
    # Between two steps the gradients must be cleared before the first backward (they start
    # empty, so the first minibatch needs no clearing).
    uncleared = no_backward = 0
    intervals = "".join(e for e in training if e in "SBZ").split("S")
    for k, interval in enumerate(intervals[:steps]):
        if "B" not in interval:
            no_backward += 1
        elif k > 0 and "Z" not in interval[:interval.index("B")]:
            uncleared += 1
    if uncleared:
        problems.append(f"the gradients were not cleared before the backward pass of {uncleared} of "
                        f"{steps} minibatches (zero_grad was called {zeros} times for {n_minibatches} "
                        "minibatches), so they accumulate across minibatches: call optimizer.zero_grad() "
                        "once per minibatch, before loss.backward()")
    if no_backward:
        problems.append(f"{no_backward} optimizer.step() call(s) had no loss.backward() before them")
    return problems


def _loss_input_problems(kinds: list[str]) -> list[str]:
    """What the loss function was given, when it was probabilities instead of the model's logits
    (``kinds``: per loss call, "logits", "softmax", "log_softmax" or "other")."""
    problems = []
    for kind, words in (("softmax", "softmax"), ("log_softmax", "log-softmax")):
        n = kinds.count(kind)
        if n:
            problems.append(f"the loss function was given the {words} of the model's logits in {n} of {len(kinds)} "
                            "minibatches: CrossEntropyLoss applies log-softmax itself, so a second one squashes "
                            "what it learns from (the model barely trains); give it the raw logits")
    return problems


def _returned_uas(returned: Any, uas: float) -> tuple[bool, str]:
    """Whether train_for_epoch returned the UAS its parse computed (or a percentage); a tuple is
    accepted when one of its items is that UAS, in any place ((UAS, loss) and (loss, UAS) are both
    real); the note for a tolerated form."""
    def same(value: Any) -> bool:
        return isinstance(value, float) and bool(np.isclose(value, uas, rtol=1e-6, atol=1e-9)
                                                 or np.isclose(value, 100 * uas, rtol=1e-6, atol=1e-7))
    if same(returned):
        return True, ""
    if isinstance(returned, list):
        places = [i for i, value in enumerate(returned) if same(value)]
        if places:
            return True, (f"train_for_epoch returned a tuple of {len(returned)}; its item {places[0] + 1} is the "
                          "dev UAS parser.parse computed, taken as the UAS (tolerated)")
    return False, ""


@check("train_loop", files=FILES, names=("run.train_for_epoch",))
def train_loop(ctx: CheckContext) -> Outcome:
    """train_for_epoch: train mode, zero_grad/forward/backward/step per minibatch, then eval
    mode, dev UAS returned."""
    trials = Trials()
    rng = ctx.rng
    for _ in range(2):
        n_train = int(rng.integers(400, 1200))  # a few minibatches: slow correct code affords it
        batch_size = int(rng.integers(50, 200))
        n_dev = int(rng.integers(20, 60))
        lr = float(10 ** rng.uniform(-3.5, -2.5))
        what = (f"train_for_epoch(parser, train_data ({n_train} examples), dev_data ({n_dev} sentences), "
                f"optimizer=Adam(lr={lr:.3g}), loss_func=CrossEntropyLoss(), batch_size={batch_size})")
        got, err = try_call(ctx, "train_loop", what, seed=int(rng.integers(2**31)), n_train=n_train,
                            n_dev=n_dev, batch_size=batch_size, lr=lr)
        if err:
            hint = training_error_hint(err)
            record_error(trials, _model_first(err) + (f"\nLikely cause: {hint}" if hint else ""), aspects=4)
            continue
        if got["stand_in"]:
            trials.note("your ParserModel could not be used for training "
                        f"({got['stand_in']}), so run.py was judged with a stand-in model (a linear "
                        "classifier over the feature ids)")
        trials.note(main_globals_note(got))
        events, n_mb = got["events"], got["n_minibatches"]

        problems = _loop_problems(events, n_mb) + _loss_input_problems(got.get("loss_inputs") or [])
        trials.record(not problems, f"{what}: " + "; ".join(problems))

        training = [e for e in events if e.startswith("F")]
        in_eval = training.count("F0")
        trials.record(not in_eval, f"{what}: the model was in eval mode in {in_eval} of {len(training)} "
                                   "training forward passes: call parser.model.train() at the start of "
                                   "train_for_epoch (the grader called model.eval() before it, as the "
                                   "previous epoch's evaluation does), or dropout is off while training")

        parsing = [e for e in events if e.startswith("P")]
        if not got["uas"]:
            trials.record(False, f"{what}: parser.parse(dev_data) was never called, so no dev UAS was computed")
        else:
            in_train = parsing.count("P1")
            trials.record(not in_train, f"{what}: the dev set was parsed in train mode (dropout on) in "
                                        f"{in_train} of {len(parsing)} forward passes: call "
                                        "parser.model.eval() before parser.parse(dev_data)")

        if got["uas"]:
            ok, note = _returned_uas(got["returned"], got["uas"][-1])
            trials.note(note)
            trials.record(ok, f"{what}: returned {brief(got['returned'])}; expected the dev UAS "
                              f"{got['uas'][-1]:.4f} that parser.parse(dev_data) computed")
        else:
            trials.record(False, f"{what}: no dev UAS to return (parser.parse was never called)")
    trials.note("while run.py trains, parser.parse(dev_data) is the grader's stand-in: the share of the "
                "dev set's gold transitions the model picks (no parsing, so a 3(c) or 3(d) bug costs "
                "nothing here)")
    return trials.outcome()


def _model_first(err: str) -> str:
    """The student kit has no stand-in model: when the student's ParserModel cannot run, say
    which checks to fix first."""
    if "ModelUnusable" not in err:
        return err
    return (f"{err}\nThe student kit judges run.py with your own ParserModel, which could not be built "
            f"or run on a batch: fix {check_label('model_structure')} and {check_label('model_forward')} "
            "first (the full grader judges run.py on submission with a stand-in model)")


def main_globals_note(got: dict[str, Any]) -> str:
    """The note for names train or train_for_epoch read that only run.py's main block defines."""
    names = got.get("main_globals") or []
    if not names:
        return ""
    listed = ", ".join(f"`{n}`" for n in names)
    return (f"train()/train_for_epoch() read the global(s) {listed} that only `python run.py` defines (in "
            "its main block): the grader supplied them from your main block (its model is the model being "
            "trained) and called your functions as usual")


def _mean_ce(logits: np.ndarray, targets: np.ndarray) -> tuple[float, float]:
    """Mean and summed cross-entropy of raw logits (float64)."""
    log_p = log_softmax(logits)
    losses = -log_p[np.arange(len(targets)), targets]
    return float(losses.mean()), float(losses.sum())


def _optimizer_problem(calls: list[dict[str, Any]], lr: float) -> str:
    first = calls[0]
    if not all(c["is_adam"] for c in calls):
        return f"the optimizer is {first['optimizer']}; use torch.optim.Adam"
    lrs = [x for c in calls for x in c["lrs"]]
    if not lrs or not all(isinstance(x, float) and np.isclose(x, lr, rtol=LR_RTOL, atol=0) for x in lrs):
        got = lrs[0] if lrs else None
        msg = f"Adam's learning rate is {brief(got)} but train was called with lr={lr:.6g}: pass lr=lr to Adam"
        if isinstance(got, float) and np.isclose(got, ADAM_DEFAULT_LR):
            msg += f" ({ADAM_DEFAULT_LR} is Adam's default, used when lr is not given)"
        return msg
    missing = max(c["params_missing"] for c in calls)
    foreign = max(c["params_foreign"] for c in calls)
    if missing:
        return (f"Adam does not update {missing} of the model's {first['params_wanted']} parameter tensors: "
                "give it parser.model.parameters()")
    if foreign:
        return f"Adam holds {foreign} parameter tensor(s) that are not parser.model's: give it parser.model.parameters()"
    return ""


def _loss_problem(call_info: dict[str, Any], logits: np.ndarray, targets: np.ndarray) -> str:
    mean, total = _mean_ce(logits, targets)
    name = call_info["loss"]
    if "loss_error" in call_info:
        return (f"loss_func(logits, targets) raised {call_info['loss_error']} (loss_func is {name}); "
                "use torch.nn.CrossEntropyLoss() on the raw logits and the gold transition ids")
    value = call_info.get("loss_value")
    if isinstance(value, float) and np.isclose(value, mean, rtol=LOSS_RTOL, atol=1e-7):
        return ""
    what = f"loss_func(logits, targets) for {len(targets)} examples is {brief(value)} (loss_func is {name})"
    if isinstance(value, float) and np.isclose(value, total, rtol=LOSS_RTOL):
        return f"{what}: that is the summed cross-entropy; use the mean (the default reduction)"
    return f"{what}; expected the mean cross-entropy {mean:.6g}: use torch.nn.CrossEntropyLoss()"


def _saved_problem(saved: dict[str, Any], state_keys: list[str], best: int, n_calls: int, path: Any) -> str:
    if not saved.get("exists"):
        return (f"nothing was saved at output_path ({path}): save parser.model.state_dict() there "
                "whenever the dev UAS improves")
    if "error" in saved:
        return (f"torch.load(output_path, weights_only=True) failed ({saved['error']}): save "
                "parser.model.state_dict(), not the model object")
    if "type" in saved:
        return f"output_path holds a {saved['type']}; expected parser.model.state_dict()"
    if sorted(saved["keys"]) != sorted(state_keys):
        return f"the saved dict has keys {saved['keys']}; expected the model's state_dict keys {state_keys}"
    if best not in saved["matches"]:
        if saved["matches"] == [n_calls - 1]:
            return (f"the saved weights are the last epoch's; expected those of epoch {best + 1} of "
                    f"{n_calls}, the one with the best dev UAS")
        return f"the saved weights are not those of epoch {best + 1}, the one with the best dev UAS"
    return ""


@check("train_setup", files=FILES, names=("run.train",))
def train_setup(ctx: CheckContext) -> Outcome:
    """train: Adam over the model's parameters with the given lr, mean cross-entropy,
    train_for_epoch once per epoch, the best epoch's state_dict saved to output_path."""
    trials = Trials()
    rng = ctx.rng
    for t, n_epochs in enumerate((3, 2)):
        while True:  # far from the values a hard-coded lr would have
            lr = float(10 ** rng.uniform(-4, -2.3))
            if min(abs(lr / x - 1) for x in (ADAM_DEFAULT_LR, UAS_LR)) > 0.1:
                break
        batch_size = int(rng.integers(64, 2048))
        fake_uas = list(rng.permutation(np.round(rng.uniform(0.3, 0.9, n_epochs), 4)))
        if t == 0 and int(np.argmax(fake_uas)) == n_epochs - 1:  # the best epoch is not the last
            fake_uas[0], fake_uas[-1] = fake_uas[-1], fake_uas[0]
        k = int(rng.integers(5, 20))
        logits = rng.normal(0, 2, (k, 3))
        targets = rng.integers(0, 3, k)
        what = (f"train(parser, train_data, dev_data, output_path, batch_size={batch_size}, "
                f"n_epochs={n_epochs}, lr={lr:.4g}) with a stand-in train_for_epoch returning dev "
                f"UAS {[float(u) for u in fake_uas]}")
        got, err = try_call(ctx, "train_setup", what, seed=int(rng.integers(2**31)), n_train=300, n_dev=20,
                            batch_size=batch_size, n_epochs=n_epochs, lr=lr, fake_uas=fake_uas,
                            logits=logits, targets=targets)
        if err:
            record_error(trials, _model_first(err), aspects=4)
            continue
        trials.note(main_globals_note(got))
        if got.get("stand_in"):
            trials.note(f"your ParserModel could not be used ({got['stand_in']}), so train was run with a "
                        "stand-in model (a linear classifier over the feature ids)")
        args, calls = got["train_args"], got["calls"]
        epochs = int(args.get("n_epochs") or 0)
        run_lr = float(args.get("lr") or 0.0)
        if not calls:
            for _aspect in range(4):
                trials.record(False, f"{what}: train never called train_for_epoch")
            continue
        problem = _optimizer_problem(calls, run_lr)
        trials.record(not problem, f"{what}: {problem}")
        problem = _loss_problem(calls[0], logits, targets)
        trials.record(not problem, f"{what}: {problem}")

        problems = []
        if len(calls) != epochs:
            problems.append(f"train_for_epoch was called {len(calls)} times for n_epochs={epochs}")
        sizes = {c["batch_size"] for c in calls}
        if sizes != {args.get("batch_size")}:
            problems.append(f"train_for_epoch got batch_size {sorted(sizes, key=str)}; expected "
                            f"{brief(args.get('batch_size'))}, the batch_size train was given")
        if not all(c.get("same_data", True) for c in calls):
            problems.append("train_for_epoch did not get the parser, train_data and dev_data that train was given")
        trials.record(not problems, f"{what}: " + "; ".join(problems))

        returned = [float(u) for u in fake_uas[:len(calls)]]
        best = int(np.argmax(returned))
        problem = _saved_problem(got["saved"], got["state_keys"], best, len(calls), args.get("output_path"))
        trials.record(not problem, f"{what}: {problem}")
    return trials.outcome()
