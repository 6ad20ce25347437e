"""One check per test of a test-file assignment (the registry's ``CHECK_MODULES`` names this module).

Each check asks the worker to run its one test (``run_test``, next to student code, under the check's
timeout) and scores the plain data that comes back here, in the trusted process: passed is full
marks, failed or errored is none, a score ``set_score`` gave under ``@partial_credit`` is that share
of the test's weight (bounded to it), a value ``set_leaderboard_value`` gave under ``@leaderboard``
is the leaderboard's entry. A test's points, visibility and number are the rubric's (from the
decorators as collected on the reference), never what the worker says.
"""

from __future__ import annotations

from grader.run.check_api import CheckContext, CheckFunction, check
from grader.run.course_tests import TestInfo, collected
from grader.run.results import Outcome
from grader.testfiles.outcome import outcome_of


def _check_of(test: TestInfo) -> CheckFunction:
    def run(ctx: CheckContext) -> Outcome:
        return outcome_of(test, ctx.call("run_test", f"the test {test.id}", test=test.id))
    run.__doc__ = f"Run {test.id} in the worker."
    return run


for _test in collected():
    check(_test.id, files=_test.files)(_check_of(_test))
