"""The batch's data model and the class statistics: what ``grader batch`` produces and every
class-level reporter (``grader/reports/``: CSV, summary, plots) reads.

Plain data and pure functions only: :class:`Column` (a scored item), :class:`Submission`,
:class:`GradedSubmission` (how its grading ended, with its report), the statuses of a grading, the
round trip of a report through jsonout's document, and :func:`summarize`, which computes a
:class:`ClassSummary` from a batch's results. Failed gradings (the grader, not the student) are
counted apart and left out of the statistics; unreadable uploads count as submissions that scored 0.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.run.results import (
    ERROR,
    PASSED,
    Charge,
    CheckResult,
    GradeReport,
    ManualItem,
    Outcome,
    Proof,
    WrittenRead,
)
from grader.run.rubric import Rubric

#: How a submission's grading ended.
GRADED = "graded"          # the engine ran every selected check
UNREADABLE = "unreadable"  # the upload could not be read (bad zip, not a folder): all checks 0
FAILED = "failed"          # the grading process crashed or ran out of time: graded again on resume
COMPLETE = (GRADED, UNREADABLE)


class BatchError(ValueError):
    """The batch cannot start: unreadable metadata, conflicting settings, a bad folder."""


@dataclass(frozen=True)
class Column:
    """A scored item of the class reports: a code check, or the auto-graded share of a written
    question (the engine reports both as checks, with these ids)."""

    id: str
    number: str
    name: str
    points: float


def scored_items(rubric: Rubric) -> list[Column]:
    """Every item a grading can score, in the engine's order: code checks, then written parts."""
    return [Column(s.id, s.number, s.name, s.points) for s in rubric.checks + rubric.written_checks]


def selectable_ids(rubric: Rubric) -> tuple[str, ...]:
    """What --only may name: code check ids and written question ids (as `GradingSettings.only`)."""
    return tuple(s.id for s in rubric.checks) + tuple(p.id for p in rubric.written)


@dataclass(frozen=True)
class Submission:
    """One submission found in SUBMISSIONS, with who submitted it (when the export says)."""

    key: str                       # its folder name under OUT/submissions/
    path: Path                     # a folder or a .zip
    names: tuple[str, ...] = ()
    sids: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()


@dataclass(frozen=True)
class GradedSubmission:
    """A submission and how its grading ended: the report every class-level reporter reads."""

    submission: Submission
    status: str                    # GRADED, UNREADABLE or FAILED
    report: GradeReport
    message: str = ""              # why it is UNREADABLE or FAILED
    leaderboard: dict[str, float] = field(default_factory=dict)


def zero_report(upload: str, columns: Sequence[Column], seed: int, message: str) -> GradeReport:
    """Every selected item at 0 with ``message``: the report of a grading that did not run."""
    checks = tuple(CheckResult(c.id, "", c.name, c.number, c.points, 0.0, "visible",
                               Outcome(0, 1, (message,), status=ERROR), 0.0) for c in columns)
    return GradeReport(upload, seed, checks, 0.0)


def report_from_json(doc: dict[str, Any]) -> GradeReport:
    """Rebuild a GradeReport from jsonout's document (the inverse of ``jsonout.to_json``: the
    report it gives is equal to the one written, manual items included)."""
    checks = tuple(CheckResult(
        c["id"], c.get("part", ""), c.get("name", c["id"]), str(c.get("number", "")),
        float(c.get("max_score", 0.0)), float(c.get("score", 0.0)), c.get("visibility", "visible"),
        _outcome_from_json(c), float(c.get("seconds", 0.0)), c.get("kind", "code"),
        _written_from_json(c.get("written")), tuple(str(t) for t in c.get("tags", ())))
        for c in doc.get("checks", []))
    manual = tuple(ManualItem(
        str(m["id"]), str(m.get("name", m["id"])), str(m.get("number", "")), float(m.get("points", 0.0)),
        str(m.get("visibility", "visible")), str(m.get("text", "")), bool(m.get("found", False)),
        str(m.get("where", "")), tuple(str(note) for note in m.get("notes", ())))
        for m in doc.get("manual", []))
    return GradeReport(str(doc.get("submission", "")), int(doc.get("seed", 0)), checks,
                       float(doc.get("seconds", 0.0)), tuple(doc.get("notes", ())), manual,
                       tuple(doc.get("stubs", ())))


def _outcome_from_json(c: dict[str, Any]) -> Outcome:
    charged = tuple(Charge(str(ch["check_id"]), int(ch.get("trials", 0)),
                           tuple(Proof(str(p.get("what", "")), tuple(p.get("got", ())), tuple(p.get("expected", ())))
                                 for p in ch.get("proofs", ())))
                    for ch in c.get("charged", ()))
    return Outcome(int(c.get("trials_passed", 0)), int(c.get("trials_total", 0)),
                   tuple(c.get("feedback", ())), status=c.get("status", ERROR),
                   leaderboard=tuple((str(name), float(value)) for name, value in c.get("leaderboard", ())),
                   charged=charged, ran=bool(c.get("ran", True)), review=str(c.get("review", "")))


def _written_from_json(w: Any) -> WrittenRead | None:
    if not isinstance(w, dict):
        return None
    return WrittenRead(str(w.get("raw", "")), str(w.get("read", "")), str(w.get("where", "")),
                       str(w.get("review", "")), tuple(str(line) for line in w.get("why", ())),
                       str(w.get("why_visibility", "after_due_date")),
                       tuple(str(line) for line in w.get("reading", ())), str(w.get("read_visibility", "visible")))


#: A failure message is cut to this many characters in the summary.
MESSAGE_CHARS = 160
#: Numbers in a message (values, shapes, sizes) are masked to group messages that differ only there.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class CheckStats:
    """How the class did on one check."""

    id: str
    number: str
    name: str
    points: float
    mean_score: float
    pass_rate: float              # fraction of counted submissions that passed it
    failures: int                 # counted submissions that did not pass it
    common_failure: str           # an example of the commonest failure message ("" if none)
    common_failure_count: int     # how many submissions failed with that message (numbers aside)


@dataclass(frozen=True)
class ReviewEntry:
    """One written answer on the review list: whose, which item, why, where."""

    submission: str
    number: str
    id: str
    reason: str
    where: str


@dataclass(frozen=True)
class ClassSummary:
    """A batch's statistics: totals of the counted submissions and one CheckStats per check."""

    seed: int
    submissions: int
    statuses: dict[str, int]
    failed_keys: tuple[str, ...]  # gradings that failed: not counted in the statistics
    max_score: float
    totals: tuple[float, ...]
    checks: tuple[CheckStats, ...]
    reviews: tuple[ReviewEntry, ...] = ()   # written answers a TA should look at, per submission

    @property
    def counted(self) -> int:
        return len(self.totals)

    def total_stat(self, name: str) -> float:
        """mean, median, min or max of the counted totals (0.0 when nothing was counted)."""
        if not self.totals:
            return 0.0
        stats: dict[str, Callable[[Sequence[float]], float]] = {
            "mean": statistics.fmean, "median": statistics.median, "min": min, "max": max}
        return float(stats[name](self.totals))


def failure_reason(feedback: Sequence[str]) -> str:
    """The line that says what went wrong: the first listed failure, else the first line."""
    for line in feedback:
        if line.startswith("- "):
            return line[2:].strip()
    return feedback[0].strip() if feedback else "(no message)"


def shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def summarize(results: Sequence[GradedSubmission], columns: Sequence[Column], *,
              seed: int) -> ClassSummary:
    """The statistics of ``results`` on the scored items ``columns`` (in the rubric's order)."""
    counted = [r for r in results if r.status != FAILED]
    stats = []
    for col in columns:
        outcomes = [c for r in counted for c in r.report.checks if c.id == col.id]
        failing = [c for c in outcomes if c.status != PASSED]
        keys: Counter[str] = Counter()
        example: dict[str, str] = {}
        for c in failing:
            reason = failure_reason(c.outcome.feedback)
            key = _NUMBER.sub("#", reason)
            keys[key] += 1
            example.setdefault(key, reason)
        top, count = keys.most_common(1)[0] if keys else ("", 0)
        n = len(counted)
        stats.append(CheckStats(
            col.id, col.number, col.name, col.points,
            mean_score=sum(c.score for c in outcomes) / n if n else 0.0,
            pass_rate=(len(outcomes) - len(failing)) / n if n else 0.0,
            failures=n - (len(outcomes) - len(failing)),
            common_failure=shorten(example.get(top, "")), common_failure_count=count))
    return ClassSummary(
        seed=seed, submissions=len(results),
        statuses=dict(Counter(r.status for r in results)),
        failed_keys=tuple(r.submission.key for r in results if r.status == FAILED),
        max_score=round(sum(c.points for c in columns), 4),
        totals=tuple(r.report.score for r in counted),
        checks=tuple(stats),
        reviews=tuple(ReviewEntry(r.submission.key, c.number, c.id, c.review,
                                  c.written.where if c.written else "")
                      for r in counted for c in r.report.reviews))
