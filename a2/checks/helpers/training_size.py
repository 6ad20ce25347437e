"""How much train_uas (5.9) trains: sized, per submission, to what the student's code costs.

A correct model can be very slow (per-row Python loops in embedding_lookup and forward, lookups
through lists, tensors moved between devices every batch), and Gradescope's default container
has half a vCPU. So before training, the grader measures the student's cost on the first
minibatches (the ``train_cost`` probe: wall seconds per training example through their own
train_for_epoch, and per configuration of an eval-mode forward; wall time, so a CPU quota is in
it) and picks the largest of :data:`SIZES` whose estimated time fits the allowance: a third of
the check's timeout (at least 3x headroom to it), half of what the grading's budget has left, and
what is left of the first half of the budget (so the whole grading of a slow but correct
submission takes about half the budget).

Each size has its own dev UAS floor, derived over seeds for that size (see :data:`SIZES`): fewer
examples train a less accurate model, and training that does not work (no ``zero_grad``, a
crash) stays far below every floor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from grader.run.budget import BudgetRunner, DeadlineRunner
from grader.run.check_api import CheckContext


@dataclass(frozen=True)
class TrainingSize:
    """One training size of train_uas: ``n_train`` examples (None: all ~30k of the reduced
    treebank) for ``n_epochs`` epochs of ``batch_size``, the student's own per-epoch evaluation on
    ``n_dev`` bundled dev sentences (None: all 500), scored on ``hidden`` sentences of the hidden
    dev set against the dev UAS ``floor`` of that size."""

    n_train: int | None
    n_epochs: int
    batch_size: int
    n_dev: int | None
    hidden: int
    """Sentences of the hidden dev set the grader parses to score the trained model."""
    floor: float

    def describe(self) -> str:
        examples = "all ~30,000" if self.n_train is None else f"{self.n_train:,}"
        return f"{examples} training examples, {self.n_epochs} epochs of minibatches of {self.batch_size}"


#: Largest first; the smaller sizes take smaller minibatches (more Adam steps per example). Dev UAS
#: over seeds per size, the reference against the same training without zero_grad
#: (tests/submissions/buggy/run_no_zero_grad), each size's own hidden dev set:
#: - all ~30,000 examples (16 seeds, bench/uas_floors.py --seeds 16, load 1-5): reference 83.5-85.3
#:   (mean 84.5, sd 0.49), without zero_grad 8.4-69.2 (mean 52.0): floor 78.
#: - the smaller sizes trained on every example until 2026-11-27 (train_uas ignored n_train), so the
#:   figures first derived for them were the full set's at a smaller minibatch. Trained on their own
#:   examples, 16 seeds of the reference (bench/uas_floors.py --seeds 16, 2026-11-27, load 3-9) and
#:   6 without zero_grad:
#:   12,000: reference 78.9-83.8 (mean 81.9, sd 1.2), without zero_grad 37.1-62.0: floor 73 (74 with
#:   9 seeds, whose worst was 80.1: 16 seeds put the worst 4.9 points above 74; 73 is 5.9 under it,
#:   4.9 sd under the mean, and 11 over the bug's best);
#:   6,000: reference 76.4-82.7 (mean 79.6, sd 1.5), without zero_grad 24.3-58.2: floor 70;
#:   3,000: reference 75.5-79.9 (mean 77.5, sd 1.2), without zero_grad 0.1-43.8: floor 65.
#: Each floor sits about 6 points or more under the reference's worst seed (the full set 5.5) and
#: 10 or more over the bug's best (the full set 8.8: its two ranges are 14 points apart).
SIZES = (
    TrainingSize(None, 2, 128, None, 500, 78.0),
    TrainingSize(12_000, 2, 64, 150, 300, 73.0),
    TrainingSize(6_000, 2, 32, 100, 200, 70.0),
    TrainingSize(3_000, 2, 32, 50, 150, 65.0),
)
FULL = SIZES[0]
LARGEST_EXAMPLES = 30_000
"""About how many examples the reduced treebank has (for the estimate of the full size)."""
DEV_SENTENCES_ALL = 500
HEADROOM = 3.0
"""The chosen size's estimated time is at most the check's timeout divided by this."""
BUDGET_SHARE = 0.5
"""... and at most this share of what the grading's budget has left, and it is planned to end by
this share of the whole budget: a slow but correct submission's grading, training included, then
takes about half the budget (the smaller sizes train nearly as well, so little is lost)."""
FIXED_S = 3.0
"""Seconds of a training run that do not grow with its size (loading the data, saving the model)."""
GRADER_PARSE_S = 6.0
"""Seconds the trusted process takes to parse and score the hidden dev set from the trained
parameters (a2/checks/helpers/dev_parse.py, numpy; the same for every submission: no student code runs in it).
Measured 2026-11-27: 2.4-2.6 s of CPU, 5.3-5.5 s wall at load 6.5 on 2 cores, for 150 or 500
sentences alike (drawing and featurising the sentences dominate)."""
CALIBRATION = {"n_train": 512, "n_dev": 5, "batch_size": 32, "eval_rows": 512}
"""The first minibatches the cost is measured on: 512 examples in 16 minibatches of 32, the smallest
sizes' batch (per-minibatch costs, such as moving tensors between devices, count in full)."""


def estimated_seconds(size: TrainingSize, costs: Mapping[str, Any]) -> float:
    """Wall seconds train_uas is expected to take at ``size`` with the measured ``costs``:
    training and the student's per-epoch evaluations at the student's cost, and the grader's parse
    of the hidden dev set at its own (it runs in the trusted process from the trained parameters,
    so the student's forward, however slow, is not in it)."""
    per_example = float(costs["train_per_example"])
    per_row = float(costs["eval_per_row"])
    rows_per_sentence = float(costs["rows_per_sentence"])
    examples = LARGEST_EXAMPLES if size.n_train is None else size.n_train
    dev = DEV_SENTENCES_ALL if size.n_dev is None else size.n_dev
    training = size.n_epochs * (examples * per_example + dev * rows_per_sentence * per_row)
    return FIXED_S + training + GRADER_PARSE_S


def allowance(runner: Any, timeout: float) -> float:
    """Seconds train_uas may plan for: a share of its timeout and of the budget left (the runner
    a check gets is its DeadlineRunner, around the grading's BudgetRunner: both are looked at)."""
    limit = timeout / HEADROOM
    while runner is not None:
        if isinstance(runner, DeadlineRunner):
            limit = min(limit, runner.remaining() / HEADROOM)
        if isinstance(runner, BudgetRunner):
            budget = runner.budget
            left = budget.remaining()
            limit = min(limit, BUDGET_SHARE * left, BUDGET_SHARE * budget.seconds - (budget.seconds - left))
        runner = getattr(runner, "runner", None) if isinstance(runner, (BudgetRunner, DeadlineRunner)) else None
    return limit


def choose(costs: Mapping[str, Any] | None, seconds: float) -> TrainingSize:
    """The largest size whose estimate fits in ``seconds`` (the smallest if none does); the full
    size when the cost could not be measured (the training call then says what is wrong)."""
    if costs is None:
        return FULL
    try:
        for size in SIZES:
            if estimated_seconds(size, costs) <= seconds:
                return size
    except (KeyError, TypeError, ValueError):
        return FULL
    return SIZES[-1]


def size_for(ctx: CheckContext, seed: int, lr: float, substitute: tuple[str, ...] = (),
             course_code: str = "") -> tuple[TrainingSize, str]:
    """Measure the student's cost on the first minibatches and choose the size; with a note for
    the feedback when the training was sized down. A calibration that fails (the student's
    train_for_epoch raises) gives the full size: the training itself then says what is wrong; one
    that times out gives the smallest. ``substitute`` and ``course_code``: 5.9's counterfactual run
    (the parts the course's code replaces, and that code)."""
    seconds = allowance(ctx.runner, ctx.timeout)
    args = {"seed": seed, "lr": lr, **CALIBRATION, **({"substitute": substitute, "course_code": course_code} if substitute else {})}
    result = ctx.runner.call("train_cost", args,
                             timeout=min(ctx.timeout, max(seconds, 1.0)))
    costs = result.value if result.ok and isinstance(result.value, dict) else None
    size = SIZES[-1] if result.status == "timeout" else choose(costs, seconds)  # too slow to measure
    if size is FULL:
        return size, ""
    if costs is None:
        return size, (f"your training's first minibatches took longer than {seconds:.0f} s, so 5.9 trained on "
                      f"{size.describe()}, scored against the floor of that size ({size.floor:.0f}%)")
    return size, (f"your training costs {1000 * float(costs['train_per_example']):.1f} ms per example "
                  f"here (measured on its first minibatches), so 5.9 trained on {size.describe()} to "
                  f"stay within its time, scored against the floor of that size ({size.floor:.0f}%)")
