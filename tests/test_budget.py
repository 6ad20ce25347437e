"""The grading's time budget (grader/run/budget.py): calls get what is left, a check the budget cannot
afford is "not run" with a review flag, and a submission whose every function loops forever still
gets a valid results.json within the budget."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import jsonschema
import pytest
from conftest import REPO, RESULTS_SCHEMA

from grader.run import budget as budget_mod
from grader.run.budget import Budget, BudgetExhausted, BudgetRunner, DeadlineRunner
from grader.run.engine import grade, run_order
from grader.run.results import NOT_RUN, NOT_RUN_FEEDBACK
from grader.run.rubric import DEFAULT_BUDGET_S, GRADESCOPE_TIMEOUT_S, RubricError, load_rubric
from grader.run.settings import GradingSettings
from grader.sandbox import ProbeResult

sys.path.insert(0, str(REPO / "tools"))
import loop_forever


class SleepyRunner:
    """Every call sleeps its whole timeout and times out (an endless loop), unless told otherwise."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []
        self.deadline: float | None = None

    def call(self, probe, args=None, *, timeout=10.0):
        self.timeouts.append(timeout)
        time.sleep(timeout)
        return ProbeResult("timeout")

    def close(self) -> None:
        pass


def test_a_call_gets_the_smaller_of_its_timeout_and_what_is_left(monkeypatch):
    monkeypatch.setattr(budget_mod, "RESERVE_S", 0.1)
    monkeypatch.setattr(budget_mod, "MIN_CALL_S", 0.05)
    runner = SleepyRunner()
    box = BudgetRunner(runner, Budget(0.6))
    assert box.call("p", timeout=0.2).status == "timeout"  # its own timeout: the student's
    with pytest.raises(BudgetExhausted):
        box.call("p", timeout=5.0)  # cut by the budget: not the student's
    assert runner.timeouts[0] == 0.2 and runner.timeouts[1] < 0.5
    assert runner.deadline is not None
    with pytest.raises(BudgetExhausted):
        box.call("p", timeout=5.0)  # nothing left: not even started
    assert len(runner.timeouts) == 2
    assert box.budget.ran_out


def test_a_checks_calls_share_its_timeout_as_one_deadline(monkeypatch):
    """The first call that times out on its own timeout is the student's own timeout; later calls
    get what is left, and one cut short (or not started) says the check spent its allowance."""
    monkeypatch.setattr(budget_mod, "MIN_CALL_S", 0.05)
    monkeypatch.setattr(budget_mod, "DEADLINE_SLACK_S", 0.05)
    runner = SleepyRunner()
    check = DeadlineRunner(runner, 0.5)
    first = check.call("p", timeout=0.5)
    assert first.status == "timeout" and first.error is None and runner.timeouts == [0.5]
    check = DeadlineRunner(runner, 0.5)
    check.runner = SleepyRunner()
    assert check.call("p", timeout=0.3).error is None  # 0.3 of 0.5: its own timeout
    cut = check.call("p", timeout=0.3)  # 0.2 left
    assert cut.status == "timeout" and cut.error.type == budget_mod.CHECK_DEADLINE_ERROR
    assert check.runner.timeouts[1] < 0.25
    assert check.call("p", timeout=0.3).error.type == budget_mod.CHECK_DEADLINE_ERROR
    assert len(check.runner.timeouts) == 2  # nothing left: not even started


def test_budget_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        Budget(0)


def test_rubric_budget_defaults_to_gradescope_timeout_less_a_margin(tmp_path):
    assert load_rubric().budget == 540 == DEFAULT_BUDGET_S < GRADESCOPE_TIMEOUT_S
    text = (REPO / "rubric.yaml").read_text().replace("budget: 540", "budget: -3")
    (tmp_path / "rubric.yaml").write_text(text)
    with pytest.raises(RubricError, match="budget is -3"):
        load_rubric(tmp_path / "rubric.yaml")


def test_training_checks_run_last_cheapest_first():
    cheap, expensive = run_order(load_rubric().checks)
    assert [s.id for s in expensive] == ["train_loop", "train_setup", "train_uas"]
    assert cheap[0].id == "w2v_sigmoid"


def test_checks_the_budget_cannot_afford_are_not_run_and_flagged(monkeypatch):
    monkeypatch.setattr(budget_mod, "RESERVE_S", 0.1)
    report = grade(REPO / "reference", GradingSettings(seed=1, budget=1.0, only=["w2v_sigmoid", "w2v_skipgram", "1b_i"],
                                                       runner_factory=lambda _dir: SleepyRunner(),
                                                       written_runner=SleepyRunner()))
    results = {c.id: c for c in report.checks}
    assert {c.status for c in results.values()} == {NOT_RUN}
    for c in results.values():
        assert c.needs_review and c.score == 0 and c.outcome.feedback == NOT_RUN_FEEDBACK


@pytest.mark.slow
def test_every_function_looping_forever_gets_valid_results_within_the_budget(tmp_path):
    submission = loop_forever.write(tmp_path / "loops")
    results = tmp_path / "results.json"
    budget = 60
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "grader", "grade", str(submission), "--budget", str(budget),
                    "--seed", "1", "--results", str(results), "--json"], cwd=REPO, check=True,
                   capture_output=True, timeout=budget + 60)
    # Not a timing target (bench/gradescope.py measures those): without the budget this grading
    # waits out every check's timeout, over 20 minutes.
    assert time.monotonic() - started < budget + 60
    doc = json.loads(results.read_text())
    jsonschema.validate(doc, RESULTS_SCHEMA)
    statuses = [t["extra_data"]["grader_status"] for t in doc["tests"] if "grader_status" in t["extra_data"]]
    assert statuses.count("timeout") >= 1 and statuses.count(NOT_RUN) >= 20
    for test in doc["tests"]:
        if test["extra_data"].get("grader_status") == NOT_RUN:
            assert test["output"].startswith("Not run: the grading's time budget ran out")
            assert test["extra_data"]["needs_review"] and test["score"] == 0
    assert "were not run because the grading's time budget ran out" in doc["output"]


def test_package_advice_and_run_autograder_follow_the_budget():
    from grader.package.scripts import hard_limit, run_autograder, timeout_advice

    script = run_autograder(300)
    assert f"timeout --kill-after=5 {hard_limit(300)} " in script and hard_limit(300) < 360
    assert hard_limit(DEFAULT_BUDGET_S) < GRADESCOPE_TIMEOUT_S
    assert "at least 6 minute(s)" in timeout_advice(300)
    assert "default 10 minutes fits" in timeout_advice(DEFAULT_BUDGET_S)


def test_a_process_is_charged_at_most_its_start_up():
    assert 0.0 <= budget_mod.process_age() <= budget_mod.MAX_STARTUP_S
