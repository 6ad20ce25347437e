"""The time budget of one grading: every call into student code gets the smaller of its own
timeout and what is left, and a check the budget cannot afford is reported as not run.

Per-check timeouts do not add up to a bound on the whole grading (a submission whose every
function loops waits out each one), and Gradescope kills a grading that passes its container's
timeout without a results.json. So one grading has a budget (``rubric.yaml``'s ``budget``,
``grader grade --budget``): :class:`BudgetRunner` wraps the runner the checks use, cuts each
call's timeout to what is left less :data:`RESERVE_S` (kept for stopping the worker, scoring and
writing results.json) and raises :class:`BudgetExhausted` when a call cannot start or was cut.
The engine turns that into a "not run" result with a review flag, never a student's failure.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from grader.sandbox.runner import DEFAULT_CALL_TIMEOUT_S, ProbeError, ProbeResult, Runner, SandboxError

RESERVE_S = 5.0
"""Kept back from every call: stopping a worker, the trusted side's own work after the last call,
scoring and writing results.json."""
MIN_CALL_S = 1.0
"""A call that would get less time than this is not started: the budget has run out."""


MAX_STARTUP_S = 30.0
"""At most this much of a process's age counts as its start-up (a long-lived process that grades,
such as a test runner, is not charged its whole life)."""


def process_age() -> float:
    """Seconds since this process started, at most :data:`MAX_STARTUP_S` (0.0 where /proc cannot
    say): the interpreter's start and the grader's imports, spent before any budget was made,
    count against it too."""
    if sys.platform == "win32":  # the student kit's platforms: no /proc (and no budget there)
        return 0.0
    try:
        with open("/proc/self/stat", "rb") as stat:
            started_ticks = int(stat.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/uptime", "rb") as uptime:
            now = float(uptime.read().split()[0])
        return min(max(now - started_ticks / os.sysconf("SC_CLK_TCK"), 0.0), MAX_STARTUP_S)
    except (OSError, ValueError, IndexError):
        return 0.0


class BudgetExhausted(BaseException):  # grader control flow, like pytest's outcomes
    """The grading's time budget cannot afford (or cut short) a call into student code.

    A BaseException, so that neither student code nor a check's ``except Exception`` swallows it.
    """


@dataclass
class Budget:
    """``seconds`` of wall time for one grading, counted from ``started`` (monotonic)."""

    seconds: float
    started: float = field(default_factory=time.monotonic)
    ran_out: bool = False
    """Set once a call could not start or was cut: the report says so."""

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise ValueError(f"a grading's budget is a positive number of seconds; got {self.seconds!r}")

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def allow(self, timeout: float) -> float:
        """The timeout a call may have: ``timeout``, or less if the budget is ending;
        BudgetExhausted when not even :data:`MIN_CALL_S` is left."""
        left = self.remaining() - RESERVE_S
        if left < MIN_CALL_S:
            self.ran_out = True
            raise BudgetExhausted(f"{self.seconds:g} s budget spent")
        return min(timeout, left)


class BudgetRunner:
    """A :class:`~grader.sandbox.runner.Runner` whose calls stay within a :class:`Budget`.

    A call cut short by the budget (it timed out on a timeout shorter than its own) raises
    BudgetExhausted rather than reporting a timeout: the student's code was not given its time.
    """

    def __init__(self, runner: Runner, budget: Budget) -> None:
        self.runner = runner
        self.budget = budget

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        allowed = self.budget.allow(timeout)
        if hasattr(self.runner, "deadline"):  # a worker's start waits no longer than the budget
            self.runner.deadline = time.monotonic() + allowed
        try:
            result = self.runner.call(probe, args, timeout=allowed)
        except SandboxError:
            if self.budget.remaining() - RESERVE_S < MIN_CALL_S:
                self.budget.ran_out = True
                raise BudgetExhausted(f"{self.budget.seconds:g} s budget spent starting a worker") from None
            raise
        if result.status == "timeout" and allowed < timeout:
            self.budget.ran_out = True
            raise BudgetExhausted(f"a call cut to {allowed:.1f} s of its {timeout:g} s")
        return result

    def close(self) -> None:
        self.runner.close()

    def prestart(self) -> None:
        prestart = getattr(self.runner, "prestart", None)
        if prestart is not None:
            prestart()

    def renew(self) -> None:
        renew = getattr(self.runner, "renew", None)
        if renew is not None:
            renew()


DEADLINE_SLACK_S = 0.5
"""A call left at most this much less than its timeout by its check's deadline gets its whole
timeout (the deadline is then overrun by at most this)."""
CHECK_DEADLINE_ERROR = "CheckDeadline"
"""ProbeError type of a call refused or cut because its check's calls spent the check's time."""


class DeadlineRunner:
    """A :class:`~grader.sandbox.runner.Runner` whose calls together take at most ``seconds``:
    one check's calls (the budget above bounds the grading; this bounds the check). Each call
    gets the smaller of its timeout and what is left; once less than :data:`MIN_CALL_S` is left,
    a call is not made and reads as a timeout of the student's code (it was too slow overall).
    """

    def __init__(self, runner: Runner, seconds: float) -> None:
        self.runner = runner
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def _spent(self) -> ProbeResult:
        return ProbeResult(status="timeout", error=ProbeError(CHECK_DEADLINE_ERROR, (
            f"this check's calls into your code took {self.seconds:g} s together, its whole "
            "allowance, so it was stopped: a function far too slow, or slow only in some calls?")))

    def remaining(self) -> float:
        """Seconds left of the check's deadline."""
        return self.deadline - time.monotonic()

    def call(self, probe: str, args: Mapping[str, Any] | None = None, *,
             timeout: float = DEFAULT_CALL_TIMEOUT_S) -> ProbeResult:
        left = self.remaining()
        if left < MIN_CALL_S:
            return self._spent()
        # A call that has (nearly) its whole timeout left gets it: one that times out then was
        # slow on its own (the check's first call, as the deadline is the check's timeout).
        allowed = timeout if left >= timeout - DEADLINE_SLACK_S else left
        result = self.runner.call(probe, args, timeout=allowed)
        if result.status == "timeout" and allowed < timeout:
            return self._spent()
        return result

    def close(self) -> None:
        """Nothing of its own: the runner it wraps outlives the check."""

    def renew(self) -> None:
        renew = getattr(self.runner, "renew", None)
        if renew is not None:
            renew()
