"""One check per test of a test-file assignment (the registry's ``CHECK_MODULES`` names this module).

Each check asks the worker to run its one test (``run_test``, next to student code, under the check's
timeout) and scores the plain data that comes back here, in the trusted process: passed is full
marks, failed or errored is none, a score ``set_score`` gave under ``@partial_credit`` is that share
of the test's weight (bounded to it), a value ``set_leaderboard_value`` gave under ``@leaderboard``
is the leaderboard's entry. A test's points, visibility and number are the rubric's (from the
decorators as collected on the reference), never what the worker says.
"""

from __future__ import annotations

import math
from typing import Any

from grader.run.check_api import CheckContext, CheckFunction, check
from grader.run.results import ERROR, Outcome
from grader.testfiles.tests import TestInfo, collected

SHARES = 10_000
"""A partial score is passed on as this many trials, the share ``set_score`` gave of them passed."""
MAX_OUTPUT_CHARS = 1500
STATUS_WORDS = {"failed": "failed", "error": "could not run (an error outside the test's assertions)",
                "skipped": "was skipped"}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def outcome_of(test: TestInfo, result: Any) -> Outcome:
    """The outcome of ``test`` from what the worker sent back (anything: it ran next to student code)."""
    value = result if isinstance(result, dict) else {}
    status = str(value.get("outcome", ""))
    message = value.get("message") if isinstance(value.get("message"), str) else ""
    output = value.get("output") if isinstance(value.get("output"), str) else ""
    score = _number(value.get("score"))
    board = _number(value.get("leaderboard"))
    leaderboard = ((test.leaderboard, board),) if test.leaderboard and board is not None else ()
    if status == "not_found" or status not in ("passed", "failed", "error", "skipped"):
        return Outcome(0, 1, (f"the test {test.id} was not found when it was to run: {message}"[:500],), status=ERROR)
    lines = []
    if status != "passed":
        lines.append(f"The test {STATUS_WORDS[status]}.")
        lines.append(test.hide_errors if test.hide_errors else message)
    if output.strip():
        lines.append("Output:\n" + output[:MAX_OUTPUT_CHARS])
    if score is not None and test.partial:
        weight = test.weight or 0.0
        share = min(max(score / weight, 0.0), 1.0) if weight > 0 else float(score > 0)
        lines.insert(0, f"Score given by the test: {score:g} of {weight:g}.")
        return Outcome(round(SHARES * share), SHARES, tuple(lines), leaderboard=leaderboard)
    passed = status == "passed"
    return Outcome(int(passed), 1, tuple(lines) or ("Passed.",), status="" if passed or status == "failed" else ERROR,
                   leaderboard=leaderboard)


def _check_of(test: TestInfo) -> CheckFunction:
    def run(ctx: CheckContext) -> Outcome:
        return outcome_of(test, ctx.call("run_test", f"the test {test.id}", test=test.id))
    run.__doc__ = f"Run {test.id} in the worker."
    return run


for _test in collected():
    check(_test.id, files=_test.files)(_check_of(_test))
