"""How one test ended, as an outcome: scored in the trusted process from the plain data the worker
sent back (anything: it ran next to student code). Passed is full marks, failed or errored none, a
score ``set_score`` gave under ``@partial_credit`` that share of the test's weight (bounded to it), a
number ``set_leaderboard_value`` gave under ``@leaderboard`` the leaderboard's entry."""

from __future__ import annotations

import math
from typing import Any

from grader.run.course_tests import TestInfo
from grader.run.results import ERROR, Outcome

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
    message = str(value["message"]) if isinstance(value.get("message"), str) else ""
    output = str(value["output"]) if isinstance(value.get("output"), str) else ""
    score = _number(value.get("score"))
    board = _number(value.get("leaderboard"))
    leaderboard = ((test.leaderboard, board),) if test.leaderboard and board is not None else ()
    if status == "not_found" or status not in ("passed", "failed", "error", "skipped"):
        return Outcome(0, 1, (f"the test {test.id} was not found when it was to run: {message}"[:500],), status=ERROR)
    lines: list[str] = []
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
