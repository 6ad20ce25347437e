"""What a check is: a function of a CheckContext that returns an Outcome.

A check lives in one module of this package, registers itself with ``@check("id")``, and
gets its points, visibility and time limit from rubric.yaml. It runs in the trusted process:
it draws random inputs from ``ctx.rng``, sends them to student code through ``ctx.call``
(a probe in the sandboxed worker), computes the expected values with the reference
(``ctx.ref``), and compares. It never imports student code.
"""

from __future__ import annotations

import functools
import importlib
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from grader import assignment
from grader.run import rubric as rubric_file
from grader.run.compare import factor_message
from grader.run.results import CRASHED, ERROR, TIMEOUT, Charge, Outcome, Proof
from grader.sandbox.runner import ProbeResult, Runner

CheckFunction = Callable[["CheckContext"], Outcome]


@dataclass(frozen=True)
class RegisteredCheck:
    """A check function, the student files it needs (imported before it runs) and the names it
    calls in them, as "module.name" (a missing one fails the check before it runs, with the
    names the file does define); ``depends_on``: the checks that judge a function this check's
    trials run as well (checks of the same ``names`` keep their own losses; across functions, when
    both fail, this check runs once more with the reference's code in the prerequisite's place, its
    ``ctx.substitute``, and is charged once with it only if it then passes:
    ``grader.run.settle.settle_dependencies``)."""

    id: str
    function: CheckFunction
    files: tuple[str, ...]
    names: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()


#: Every registered check, by id. Filled by the @check decorator when a2.checks is imported.
REGISTRY: dict[str, RegisteredCheck] = {}

#: At most this many failure messages are shown per check (the count of failures is always shown).
MAX_MESSAGES = 3


def check(check_id: str, *, files: tuple[str, ...], names: tuple[str, ...] = (),
          depends_on: tuple[str, ...] = ()) -> Callable[[CheckFunction], CheckFunction]:
    """Register a function as the check ``check_id``; it needs the student ``files`` and, in
    them, the top-level ``names`` ("word2vec.skipgram"); it ``depends_on`` the checks of the
    other functions its trials run (see RegisteredCheck).

    The check's points, visibility and time limit come from its line in rubric.yaml.
    """
    modules = {f[:-3] for f in files}
    for name in names:
        if name.split(".")[0] not in modules or name.count(".") != 1:
            raise ValueError(f"check {check_id!r} names {name!r}; names are 'module.attribute' "
                             f"of its files {files}")

    def register(fn: CheckFunction) -> CheckFunction:
        if check_id in REGISTRY:
            raise ValueError(f"check id {check_id!r} is registered twice "
                             f"({REGISTRY[check_id].function.__module__} and {fn.__module__})")
        REGISTRY[check_id] = RegisteredCheck(check_id, fn, tuple(files), tuple(names), tuple(depends_on))
        return fn

    return register


@functools.lru_cache(maxsize=1)
def _rubric_labels() -> dict[str, str]:
    """Check id -> how a student's report names it: the checks students see (number and title)."""
    try:
        return {spec.id: f"check {spec.number} ({spec.name})" for spec in rubric_file.load_rubric().checks
                if spec.student_visible}
    except (OSError, rubric_file.RubricError):
        return {}


def _shown_label(check_id: str) -> str:
    """A visible check's number and title; else the student's functions it tests; "" if unknown."""
    label = _rubric_labels().get(check_id)
    if label:
        return label
    registered = REGISTRY.get(check_id)
    if registered is None or not registered.names:
        return ""
    functions = ", ".join(dict.fromkeys(n.split(".", 1)[1] for n in registered.names))
    return f"your {functions} ({', '.join(registered.files)})"


def check_label(check_id: str) -> str:
    """How a student's report names another check: "check 1.1 (sigmoid: values, ...)". A check the
    student does not see (hidden until the due date, or left out of the kit) is never named, nor
    is any internal id: the report names the student's own functions it tests instead ("your
    sigmoid (word2vec.py)"), or "another of your functions" where the kit does not know them."""
    return _shown_label(check_id) or "another of your functions"


def fix_first(check_id: str) -> str:
    """The message of a check that fails because another function of the student's is wrong."""
    label = _shown_label(check_id)
    if not label:
        return "fix that first"
    verb = "fails" if label.startswith("check ") else "is wrong"
    return f"this fails because {label} {verb}: fix that first"


class CheckAborted(Exception):
    """Student code could not be run to a usable answer; ends the check with ``status``.

    Raised by CheckContext.call in the trusted process only (student code never sees it).
    """

    def __init__(self, status: str, feedback: list[str], *, ran: bool = True):
        super().__init__(feedback[0] if feedback else status)
        self.status = status
        self.feedback = feedback
        self.ran = ran  # False: no student code ran (as Outcome.ran)


def check_rng(seed: int, check_id: str) -> np.random.Generator:
    """The random generator of one check: a function of the run's seed and the check's id only."""
    return np.random.default_rng([seed, zlib.crc32(check_id.encode())])


#: Most characters of a student exception's message, and of its traceback lines, that reach feedback
#: (capped here, whatever the worker sent: student code runs in that process and could forge replies).
MAX_FEEDBACK_MESSAGE_CHARS = 1000
MAX_FEEDBACK_TRACEBACK_CHARS = 2500


def _capped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more characters not shown]"


def describe_failure(result: ProbeResult, what: str, timeout: float) -> tuple[str, list[str]]:
    """Status and feedback lines for a probe that did not return a value; the student's message
    and traceback are capped (MAX_FEEDBACK_MESSAGE_CHARS, MAX_FEEDBACK_TRACEBACK_CHARS)."""
    if result.status == "timeout" and result.error is not None and result.error.type == "CheckDeadline":
        return TIMEOUT, [f"{what}: {result.error.message}"]
    if result.status == "timeout":
        return TIMEOUT, [f"{what}: stopped after {timeout:g} s without returning "
                         "(an infinite loop, or far too slow?)"]
    if result.status in ("crashed", "protocol_error"):
        detail = _capped(result.error.message, MAX_FEEDBACK_MESSAGE_CHARS) if result.error else "the process exited"
        return CRASHED, [f"{what}: the process running your code died ({detail}). Calls to "
                         "sys.exit()/exit(), os._exit(), running out of memory or a crash cause this."]
    err = result.error
    lines = [f"{what} raised {_capped(err.type, 200)}: {_capped(err.message, MAX_FEEDBACK_MESSAGE_CHARS)}"
             if err else f"{what} failed"]
    # the assignment's words for it, if any (e.g. a name imported from the course's own utils/)
    said = assignment.registry().explain_error(err.type, err.message) if err else None
    if said:
        lines.append(said)
    if err and err.traceback:
        lines.append("Traceback (your files only):")
        budget = MAX_FEEDBACK_TRACEBACK_CHARS
        for line in err.traceback:
            if budget <= 0:
                lines.append("  [... the rest of the traceback is not shown]")
                break
            lines.append("  " + _capped(line, budget))
            budget -= len(line)
    return ERROR, lines


@dataclass
class CheckContext:
    """Everything a check may use. ``ref`` holds the reference modules (trusted), or in the
    student kit their recorded answers (``grader.run.replay.ReplayRef``, whose ``kit`` is True)."""

    check_id: str
    runner: Runner
    rng: np.random.Generator
    seed: int
    ref: SimpleNamespace | Any
    timeout: float
    notes: list[str] = field(default_factory=list)
    #: The failing prerequisites (check ids) whose functions the reference's code replaces in this run:
    #: empty, except when the check runs once more to prove what their bug costs (grader.run.settle).
    substitute: frozenset[str] = frozenset()

    def call(self, probe: str, what: str, **args: Any) -> Any:
        """Run ``probe`` in the worker; return its value or raise CheckAborted.

        ``what`` names the student call for messages, e.g. "sigmoid(x) with x of shape (3, 4)".
        """
        result = self.runner.call(probe, args, timeout=self.timeout)
        if result.status == "ok":
            return result.value
        status, lines = describe_failure(result, what, self.timeout)
        raise CheckAborted(status, lines)

    def try_call(self, probe: str, what: str, **args: Any) -> tuple[Any, str | None]:
        """Like call, but a raising student function is one failed trial, not the end of the check.

        Returns (value, None) or (None, message). Timeouts and crashes still abort the check.
        """
        result = self.runner.call(probe, args, timeout=self.timeout)
        if result.status == "ok":
            return result.value, None
        status, lines = describe_failure(result, what, self.timeout)
        if status != ERROR:
            raise CheckAborted(status, lines)
        return None, "\n".join(lines)


class Trials:
    """Collects the verdicts of a check's randomized trials and the first few messages."""

    def __init__(self) -> None:
        self.passed = 0
        self.total = 0
        self.messages: list[str] = []
        self.notes: list[str] = []
        self.skipped = 0
        self.charged: dict[str, int] = {}
        self.proofs: dict[str, list[Proof]] = {}
        # name -> (got/expected per comparison: 1.0 when right, None when no factor explains it; entries)
        self._factors: dict[str, tuple[list[float | None], int]] = {}

    def record(self, ok: bool, message: str = "") -> bool:
        self.total += 1
        if ok:
            self.passed += 1
        elif message and len(self.messages) < MAX_MESSAGES and message not in self.messages:
            self.messages.append(message)
        return ok

    def charge(self, check_id: str, message: str, proof: Proof | None = None) -> None:
        """A trial that passes because its bug is charged to the check ``check_id``: the credit
        stands only if that check fails in the same run and, with a ``proof`` (the function that
        check judges, on this trial's own arguments, against the trusted values), only if the proof
        shows it wrong; the trial is then failed there (``grader.run.settle.settle_charges``)."""
        self.note(message)
        self.record(True)
        self.charged[check_id] = self.charged.get(check_id, 0) + 1
        if proof is not None:
            self.proofs.setdefault(check_id, []).append(proof)

    def skip(self, reason: str) -> None:
        """A trial that cannot judge this check (e.g. another function it needs is broken).

        It counts neither way; if every trial is skipped the check fails with the reasons.
        """
        self.skipped += 1
        self.note(reason)

    def note(self, message: str) -> None:
        """Something worth telling even when the trial passed (e.g. a shape contract)."""
        # One note per kind: notes that differ only in numbers (shapes, sizes) are the same note.
        key = re.sub(r"\d+", "#", message)
        if message and key not in {re.sub(r"\d+", "#", n) for n in self.notes}:
            self.notes.append(message)

    def factor(self, name: str, verdict: Any, size: int) -> None:
        """Record one comparison of ``name`` (a compare() Verdict of ``size`` entries) for the factor
        hint: shown only when one factor explains every entry of every trial, and, for a single
        number, the same factor in at least two trials (one number alone fits any factor)."""
        values, entries = self._factors.get(name, ([], 0))
        values.append(1.0 if verdict.ok else verdict.factor)
        self._factors[name] = (values, entries + size)

    def _factor_hints(self) -> list[str]:
        hints = []
        for name, (values, entries) in self._factors.items():
            if not values or any(v is None for v in values) or entries < 2:
                continue
            c = values[0]
            if c is not None and abs(c - 1) > 1e-3 and all(v is not None and abs(v - c) <= 1e-3 * abs(c)
                                                           for v in values):
                hints.append(factor_message(f"In every trial, {name}", c))
        return hints

    def outcome(self, summary: str = "", leaderboard: tuple[tuple[str, float], ...] = ()) -> Outcome:
        for hint in self._factor_hints():
            self.note(hint)
        if self.total == 0:
            lines = ["No trial could judge this check.", *(f"- {n}" for n in self.notes)]
            return Outcome(0, 1, tuple(lines))
        lines = [f"{self.passed}/{self.total} randomized trials passed."
                 + (f" {self.skipped} trial(s) could not be judged." if self.skipped else "")
                 + (f" {summary}" if summary else "")]
        failed = self.total - self.passed
        if failed:
            shown = len(self.messages)
            lines.append(f"First failure{'s' if shown > 1 else ''}:" if shown else "")
            lines.extend(f"- {m}" for m in self.messages)
            if failed > shown and shown:
                lines.append(f"({failed - shown} more failing trial(s) not shown)")
        lines.extend(f"Note: {n}" for n in self.notes)
        return Outcome(self.passed, self.total, tuple(line for line in lines if line),
                       leaderboard=leaderboard,
                       charged=tuple(Charge(check, n, tuple(self.proofs.get(check, ())))
                                     for check, n in self.charged.items()))


def all_checks() -> dict[str, RegisteredCheck]:
    """Import every check module the assignment lists (its registry's ``CHECK_MODULES``, once) and
    return the registry of checks."""
    for name in assignment.registry().CHECK_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:    # the kit ships only the modules of visible checks
                raise
    return REGISTRY
