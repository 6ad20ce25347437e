"""The result model: one object per graded check and one per run. Reporters serialise it.

Scoring happens in one place, :func:`score`: a check spec (its rubric line: points, partial
credit, visibility) and the outcome of running it become a :class:`CheckResult`, for code checks
and the auto-graded share of written answers alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from grader.common.shown import MAX_CHECK_OUTPUT_CHARS, MAX_NOTE_CHARS, safe, safe_lines
from grader.run.rubric import CheckSpec

#: Longest written answer a report keeps for TAs (the rest is cut, saying how much).
MAX_ANSWER_CHARS = 50_000
#: A Proof holds when a value differs by more than these (grader.common.numerics.CODE's tolerances).
PROOF_RTOL, PROOF_ATOL = 1e-4, 1e-5

# Status of one check.
PASSED = "passed"      # every trial passed
PARTIAL = "partial"    # some trials passed
FAILED = "failed"      # ran, no trial passed
ERROR = "error"        # student code raised, was missing, or returned unusable data
TIMEOUT = "timeout"    # student code ran past the check's time limit
CRASHED = "crashed"    # the worker process died (exit, signal, memory)
NOT_IMPLEMENTED = "not_implemented"  # a function it needs is still the starter's stub
NOT_RUN = "not_run"    # the grading's time budget ran out before (or while) it ran: staff review it
STATUSES = (PASSED, PARTIAL, FAILED, ERROR, TIMEOUT, CRASHED, NOT_IMPLEMENTED, NOT_RUN)
NOT_RUN_FEEDBACK = ("Not run: the grading's time budget ran out before this check could run (or finish), "
                    "so it says nothing about your code. Course staff will review it (and regrade).",)
#: The stubs' message (grader/package/template.py): "NotImplementedError: run.py: train is not implemented yet".
_STUB = re.compile(r"NotImplementedError:\s*(?P<what>[^\n]*?) is not implemented yet")


@dataclass(frozen=True)
class Proof:
    """What shows, in the trusted process, that the function another check judges is wrong on
    exact arguments of this run: ``what`` names the call and its arguments, ``got`` the values
    the student's function returned on them, ``expected`` the trusted values. Plain numbers, so
    :func:`grader.run.settle.settle_charges` compares them itself."""

    what: str
    got: tuple[float, ...]
    expected: tuple[float, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "what", safe(self.what, MAX_NOTE_CHARS))
        object.__setattr__(self, "got", tuple(float(v) for v in self.got))
        object.__setattr__(self, "expected", tuple(float(v) for v in self.expected))

    def holds(self) -> bool:
        """Whether the student's values differ from the trusted ones (CODE tolerances)."""
        if len(self.got) != len(self.expected) or not self.got:
            return bool(self.expected)
        return any(not (abs(g - e) <= PROOF_ATOL + PROOF_RTOL * abs(e)) for g, e in zip(self.got, self.expected))


@dataclass(frozen=True)
class Charge:
    """Trials a check passed only because another check charges the bug they show (a wrong
    sigmoid under a right negative sampling, a step halved every iteration under a right update):
    ``trials`` of them, on ``check_id``, with one :class:`Proof` per trial where the bug can be
    shown on the trial's own arguments. The credit stands only if that check fails in the same run
    and, trial by trial, its function is wrong on those arguments (:func:`grader.run.settle.settle_charges`)."""

    check_id: str
    trials: int
    proofs: tuple[Proof, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What a check function concludes, before the rubric turns it into points.

    trials_passed/trials_total: randomized instances that passed; feedback: lines a student
    reads (each made printable and bounded here: they quote student code's output); status: one
    of STATUSES (derived from the trials unless the check aborted); charged: trials passed on
    credit another check must confirm by failing; ran: False when nothing of the check ran (its
    file missing or not importable, a name missing, a stub, no time left), so no other check's
    failure explains it (grader.run.settle); review: why course staff should confirm this score
    ("" when the grader is sure of it), set by grader.run.settle when a dependency raised it.
    """

    trials_passed: int
    trials_total: int
    feedback: tuple[str, ...] = ()
    status: str = ""
    leaderboard: tuple[tuple[str, float], ...] = ()
    charged: tuple[Charge, ...] = ()
    ran: bool = True
    review: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "feedback", safe_lines(self.feedback))
        object.__setattr__(self, "review", safe(self.review, MAX_NOTE_CHARS))
        if not self.status:
            if self.trials_total and self.trials_passed == self.trials_total:
                status = PASSED
            elif self.trials_passed:
                status = PARTIAL
            else:
                status = FAILED
            object.__setattr__(self, "status", status)


@dataclass(frozen=True)
class WrittenRead:
    """What the written-answer reader took as one auto-graded item's answer, and where.

    raw: the student's text the answer was read from (as written, possibly cut); read: how the
    grader understood it (the formula it read, as text); where: file and line; review: why a TA should
    look at this item ("" when the grader is confident either way). An item with a review reason
    keeps the points the grader could prove and is listed for TA review in every report.

    why: what is wrong and the expected form (it implies the answer key), kept apart from the
    outcome's feedback; why_visibility: when students see the verdict, its score and why (the written
    part's ``explanation`` in rubric.yaml, the item's own visibility). Instructors' reports show all.

    reading: what students are told of the reading while the verdict is held back: what was read,
    from which file and place, whether it was read whole, the files read and those that could not
    be; nothing in it depends on whether the answer is right. read_visibility: when they see it (the
    written part's ``visibility``).
    """

    raw: str = ""
    read: str = ""
    where: str = ""
    review: str = ""
    why: tuple[str, ...] = ()
    why_visibility: str = "after_due_date"
    reading: tuple[str, ...] = ()
    read_visibility: str = "visible"

    def __post_init__(self) -> None:
        for name in ("raw", "read", "where", "review"):
            object.__setattr__(self, name, safe(getattr(self, name), MAX_CHECK_OUTPUT_CHARS))
        object.__setattr__(self, "why", safe_lines(self.why))
        object.__setattr__(self, "reading", safe_lines(self.reading))


@dataclass(frozen=True)
class CheckResult:
    """A scored check: the rubric's data, the outcome and the points it earned."""

    id: str
    part: str
    name: str
    number: str
    max_score: float
    score: float
    visibility: str
    outcome: Outcome
    seconds: float
    kind: str = "code"      # "code": a registered check; "written": the auto share of a written question
    written: WrittenRead | None = None   # written items only: the text read, where, review reason
    tags: tuple[str, ...] = ()           # the rubric's tags (a test file's @tags), for Gradescope

    @property
    def needs_review(self) -> bool:
        """A written item the grader could not judge with confidence, a check not run, or a check
        whose score a failing prerequisite raised (grader.run.settle)."""
        return bool(self.review)

    @property
    def review(self) -> str:
        """Why staff should look at this item ("" when the grader is confident either way)."""
        if self.outcome.status == NOT_RUN:
            return "not run: the grading's time budget ran out"
        if self.written is not None and self.written.review:
            return self.written.review
        return self.outcome.review

    @property
    def status(self) -> str:
        return self.outcome.status

    @property
    def held_back(self) -> bool:
        """Whether students do not see this item's score and verdict at once (its visibility: a
        written item's ``explanation``); what they see of a written one meanwhile is ``written.reading``."""
        return self.visibility != "visible"

    @property
    def passed(self) -> bool:
        return self.outcome.status == PASSED


@dataclass(frozen=True)
class ManualItem:
    """A written answer (or its share) that a TA grades: never scored or counted by the autograder.

    text: the answer as extracted from the writeup (empty when none was found); found: whether a
    non-empty answer was found; where: file and line it was read from; notes: how it was found.
    """

    id: str
    name: str
    number: str
    points: float
    visibility: str
    text: str
    found: bool
    where: str = ""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", safe(self.text, MAX_ANSWER_CHARS))
        object.__setattr__(self, "where", safe(self.where, MAX_NOTE_CHARS))
        object.__setattr__(self, "notes", tuple(safe(note, MAX_NOTE_CHARS) for note in self.notes))


@dataclass(frozen=True)
class GradeReport:
    """Everything one grading run produced; reporters never compute scores themselves.

    ``checks`` are scored (code checks and the auto-graded share of written answers); ``manual``
    lists the written answers left to TAs, which no score includes.
    """

    submission: str
    seed: int
    checks: tuple[CheckResult, ...]
    seconds: float
    notes: tuple[str, ...] = field(default=())
    manual: tuple[ManualItem, ...] = field(default=())
    stubs: tuple[str, ...] = field(default=())
    """Functions still the starter's stub ("word2vec.py: sigmoid"), read from the files, not run."""

    def __post_init__(self) -> None:
        for name in ("notes", "stubs"):
            object.__setattr__(self, name, tuple(safe(line, MAX_NOTE_CHARS) for line in getattr(self, name)))

    @property
    def reviews(self) -> tuple[CheckResult, ...]:
        """Auto-graded written items a TA should look at (the grader could not be sure)."""
        return tuple(c for c in self.checks if c.needs_review)

    @property
    def manual_points(self) -> float:
        return round(sum(m.points for m in self.manual), 4)

    @property
    def score(self) -> float:
        return round(sum(c.score for c in self.checks), 4)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_score for c in self.checks), 4)

    @property
    def all_passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def leaderboard(self) -> tuple[tuple[str, float], ...]:
        return tuple(entry for c in self.checks for entry in c.outcome.leaderboard)


def stub_outcome(outcome: Outcome) -> Outcome:
    """A check that no trial passed because a function still raises NotImplementedError is in one
    state, "not implemented yet", whatever else its trials said (an error for one check, a failed
    comparison for the next)."""
    if outcome.trials_passed or outcome.status == NOT_IMPLEMENTED:
        return outcome
    for line in outcome.feedback:
        found = _STUB.search(line)
        if found:
            what = found.group("what")
            return Outcome(0, max(outcome.trials_total, 1),
                           (f"{what} is not implemented yet (it still raises NotImplementedError).",),
                           status=NOT_IMPLEMENTED, ran=False)
    return outcome


def score_outcome(outcome: Outcome, points: float, partial: bool) -> float:
    """Points earned: proportional to trials passed when ``partial``, else all or nothing."""
    if outcome.trials_total <= 0 or outcome.status in (ERROR, TIMEOUT, CRASHED) and not outcome.trials_passed:
        return 0.0
    fraction = outcome.trials_passed / outcome.trials_total
    if not partial:
        fraction = 1.0 if fraction == 1.0 else 0.0
    return round(points * fraction, 4)


def score(spec: CheckSpec, outcome: Outcome, seconds: float) -> CheckResult:
    """The one scoring step: what ``outcome`` earns under ``spec``, as a result."""
    return CheckResult(spec.id, spec.part, spec.name, spec.number, spec.points,
                       score_outcome(outcome, spec.points, spec.partial), spec.visibility, outcome, seconds,
                       kind=spec.kind, tags=spec.tags)


def not_run_outcome() -> Outcome:
    """The outcome of a check the grading's time budget could not afford, or cut short."""
    return Outcome(0, 1, NOT_RUN_FEEDBACK, status=NOT_RUN, ran=False)


def internal_error(detail: Sequence[str], *, during: str = "in this check") -> Outcome:
    """The outcome of a bug in the grader's own code (not the student's): 0 points, and a message
    that says so, with the last lines of the traceback for the staff."""
    return Outcome(0, 1, (f"Internal grader error {during}; it is not your fault. Please tell the course staff.",
                          *list(detail)[-3:]), status=ERROR)


ProgressHook = Callable[[CheckSpec, CheckResult], None]
"""Called after each scored item, code or written, with its spec and its result."""
