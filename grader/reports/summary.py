"""The class at a glance: per check, the mean score, the pass rate and the commonest failure.

``summarize`` computes a ClassSummary from a batch's results (pure); ``write_markdown`` and
``render`` print it. Failed gradings (the grader, not the student) are counted apart and left
out of the statistics; unreadable uploads count as submissions that scored 0.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.results import PASSED

if TYPE_CHECKING:
    from grader.batch import Column, GradedSubmission

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


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_CHARS else text[:MESSAGE_CHARS - 1] + "…"


def summarize(results: Sequence[GradedSubmission], columns: Sequence[Column], *,
              seed: int) -> ClassSummary:
    """The statistics of ``results`` on the scored items ``columns`` (in the rubric's order)."""
    from grader.batch import FAILED

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
            common_failure=_short(example.get(top, "")), common_failure_count=count))
    return ClassSummary(
        seed=seed, submissions=len(results),
        statuses=dict(Counter(r.status for r in results)),
        failed_keys=tuple(r.submission.key for r in results if r.status == FAILED),
        max_score=round(sum(c.points for c in columns), 4),
        totals=tuple(r.report.score for r in counted),
        checks=tuple(stats),
        reviews=tuple(ReviewEntry(r.submission.key, c.number, c.id, c.written.review if c.written else "",
                                  c.written.where if c.written else "")
                      for r in counted for c in r.report.reviews))


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(summary: ClassSummary, *, plots: Sequence[str] = ()) -> str:
    s = summary
    statuses = ", ".join(f"{n} {status}" for status, n in sorted(s.statuses.items()))
    lines = [
        "# Batch summary", "",
        (f"{s.submissions} submissions ({statuses}); seed {s.seed}; {len(s.checks)} checks worth "
         f"{s.max_score:g} points."), "",
        (f"Totals of the {s.counted} graded submissions: mean {s.total_stat('mean'):.2f}, median "
         f"{s.total_stat('median'):g}, min {s.total_stat('min'):g}, max {s.total_stat('max'):g} "
         f"(out of {s.max_score:g})."), "",
        "| # | check | points | mean score | pass rate | most common failure |",
        "|---|---|---:|---:|---:|---|",
    ]
    for c in s.checks:
        failure = (f"{_md(c.common_failure)} ({c.common_failure_count} of {c.failures} failing)"
                   if c.failures else "")
        lines.append(f"| {c.number} | {_md(c.name)} (`{c.id}`) | {c.points:g} | {c.mean_score:.2f} | "
                     f"{100 * c.pass_rate:.0f}% | {failure} |")
    if s.reviews:
        lines += ["", f"## Written answers that need TA review ({len(s.reviews)})", "",
                  "| submission | # | question | why | where |", "|---|---|---|---|---|"]
        lines += [f"| {_md(e.submission)} | {e.number} | `{e.id}` | {_md(_short(e.reason))} | {_md(e.where)} |"
                  for e in s.reviews]
    else:
        lines += ["", "Written answers that need TA review: none."]
    if s.failed_keys:
        lines += ["", (f"Gradings that failed (not counted above; graded again when the batch is "
                       f"rerun): {', '.join(s.failed_keys)}.")]
    if plots:
        lines += ["", *(f"![{Path(p).stem}]({p})" for p in plots)]
    return "\n".join(lines) + "\n"


def write_markdown(summary: ClassSummary, path: Path, *,
                   plots: Sequence[str] = ("plots/totals.png", "plots/pass_rate.png")) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_markdown(summary, plots=plots), encoding="utf-8")
    return path


def render(summary: ClassSummary, console: Console) -> None:
    """The summary as a terminal table."""
    table = Table(title=f"Class summary: {summary.counted} graded submissions (seed {summary.seed})",
                  expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("check")
    table.add_column("mean", justify="right", no_wrap=True)
    table.add_column("pass", justify="right", no_wrap=True)
    table.add_column("most common failure", overflow="fold")
    for c in summary.checks:
        style = "green" if c.pass_rate >= 0.8 else "yellow" if c.pass_rate >= 0.5 else "red"
        table.add_row(c.number, c.id, f"{c.mean_score:.2f}/{c.points:g}",
                      Text(f"{100 * c.pass_rate:.0f}%", style=style),
                      f"{c.common_failure} ({c.common_failure_count}×)" if c.failures else "")
    console.print(table)
    console.print(f"Totals out of {summary.max_score:g}: mean {summary.total_stat('mean'):.2f}, "
                  f"median {summary.total_stat('median'):g}, min {summary.total_stat('min'):g}, "
                  f"max {summary.total_stat('max'):g}")
    if summary.reviews:
        console.print(Text(f"{len(summary.reviews)} written answer(s) need TA review (summary.md lists them): "
                           + ", ".join(f"{e.submission} {e.number}" for e in summary.reviews[:20])
                           + (" …" if len(summary.reviews) > 20 else ""), style="magenta"))
    if summary.failed_keys:
        console.print(Text(f"{len(summary.failed_keys)} grading(s) failed and are not counted: "
                           f"{', '.join(summary.failed_keys)}; run the same command again to retry them",
                           style="red"))
