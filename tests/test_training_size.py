"""train_uas's training size (a2/checks/helpers/training_size.py): the largest size whose estimate from
the measured cost fits the allowance; the full size when nothing was measured."""

from __future__ import annotations

import math

from a2.checks.helpers import training_size as sizes
from grader.run.budget import Budget, BudgetRunner, DeadlineRunner


def costs(ms_per_example: float) -> dict[str, float]:
    return {"train_per_example": ms_per_example / 1000, "eval_per_row": ms_per_example / 6000,
            "rows_per_sentence": 33.0}


def test_sizes_shrink_and_each_has_a_floor():
    examples = [math.inf if s.n_train is None else s.n_train for s in sizes.SIZES]
    assert examples == sorted(examples, reverse=True) and sizes.FULL is sizes.SIZES[0]
    assert all(50 < s.floor < 100 and s.hidden >= 100 for s in sizes.SIZES)


def test_a_fast_submission_trains_in_full_and_a_slow_one_on_fewer_examples():
    assert sizes.choose(costs(0.5), 160) is sizes.FULL
    slow = sizes.choose(costs(8.0), 160)  # a real slow student's model at half a core
    assert slow is not sizes.FULL and sizes.estimated_seconds(slow, costs(8.0)) <= 160
    assert sizes.choose(costs(500.0), 160) is sizes.SIZES[-1]  # nothing fits: the smallest


def test_the_hidden_dev_parse_is_estimated_at_the_graders_cost_not_the_students():
    """The hidden dev set is parsed in the trusted process from the trained parameters (numpy), so a
    slow student forward makes it no slower: the estimate counts the student's cost for training
    and the student's own per-epoch evaluations only (it used to count the hidden parse at the
    student's per-row cost too, sizing a correct row-by-row forward down for time it never takes)."""
    slow_forward = {"train_per_example": 0.5e-3, "eval_per_row": 0.3e-3, "rows_per_sentence": 50.0}
    for size in sizes.SIZES:
        dev = sizes.DEV_SENTENCES_ALL if size.n_dev is None else size.n_dev
        examples = sizes.LARGEST_EXAMPLES if size.n_train is None else size.n_train
        students = size.n_epochs * (examples * 0.5e-3 + dev * 50.0 * 0.3e-3)
        assert math.isclose(sizes.estimated_seconds(size, slow_forward),
                            sizes.FIXED_S + students + sizes.GRADER_PARSE_S)


def test_unmeasured_or_garbled_costs_give_the_full_size():
    assert sizes.choose(None, 160) is sizes.FULL
    assert sizes.choose({"train_per_example": "fast"}, 160) is sizes.FULL
    assert sizes.choose({}, 160) is sizes.FULL


def test_allowance_is_a_share_of_the_timeout_and_of_the_budget_left():
    assert sizes.allowance(object(), 480) == 480 / sizes.HEADROOM
    runner = BudgetRunner(object(), Budget(100.0))  # type: ignore[arg-type]
    assert sizes.allowance(runner, 480) <= 100 * sizes.BUDGET_SHARE


def test_allowance_sees_the_budget_through_the_checks_deadline():
    """A check's runner is its DeadlineRunner around the grading's BudgetRunner (engine.py)."""
    budgeted = BudgetRunner(object(), Budget(100.0))  # type: ignore[arg-type]
    assert sizes.allowance(DeadlineRunner(budgeted, 480), 480) <= 100 * sizes.BUDGET_SHARE
    assert sizes.allowance(DeadlineRunner(object(), 60), 480) <= 60 / sizes.HEADROOM  # type: ignore[arg-type]


def test_train_uas_trains_on_as_many_examples_as_it_was_sized_to(tmp_path):
    """The size chosen is the size trained: train_uas's probe once trained on every example whatever
    n_train said (only the minibatch shrank), so a slow submission sized down trained as long as in
    full, or longer, and ran out of its time (slow/rows_everywhere in CI)."""
    import shutil

    from conftest import REFERENCE

    from grader.sandbox import InProcessRunner

    folder = tmp_path / "submission"
    shutil.copytree(REFERENCE, folder, ignore=shutil.ignore_patterns("results", "__pycache__"))
    with InProcessRunner(folder) as runner:
        result = runner.call("train_uas", {"seed": 1, "lr": 0.0005, "n_train": 96, "n_dev": 5,
                                           "batch_size": 32, "n_epochs": 2}, timeout=600)
    assert result.ok, result.error
    assert len(result.value["losses"]) == 2 * 3  # 2 epochs of 96 examples in minibatches of 32
    assert len(result.value["uas"]) == 2 and result.value["trained"]
