"""The class at a glance: per check, the mean score, the pass rate and the commonest failure.

Formats a :class:`grader.classroom.gradebook.ClassSummary` (computed there by ``summarize``):
``to_markdown``/``write_markdown`` for summary.md, ``render`` for the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.classroom.gradebook import ClassSummary, shorten
from grader.common.shown import markdown_text


def _n(n: int, word: str) -> str:
    """``1 check``, ``2 checks``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(summary: ClassSummary, *, plots: Sequence[str] = ()) -> str:
    s = summary
    statuses = ", ".join(f"{n} {status}" for status, n in sorted(s.statuses.items()))
    lines = [
        "# Batch summary", "",
        (f"{_n(s.submissions, 'submission')} ({statuses}); seed {s.seed}; {_n(len(s.checks), 'check')} worth "
         f"{s.max_score:g} points."), "",
        (f"Totals of the {_n(s.counted, 'graded submission')}: mean {s.total_stat('mean'):.2f}, median "
         f"{s.total_stat('median'):g}, min {s.total_stat('min'):g}, max {s.total_stat('max'):g} "
         f"(out of {s.max_score:g})."), "",
        "| # | check | points | mean score | pass rate | most common failure |",
        "|---|---|---:|---:|---:|---|",
    ]
    for c in s.checks:
        failure = (f"{markdown_text(c.common_failure)} ({c.common_failure_count} of {c.failures} failing)"
                   if c.failures else "")
        lines.append(f"| {c.number} | {_md(c.name)} (`{c.id}`) | {c.points:g} | {c.mean_score:.2f} | "
                     f"{100 * c.pass_rate:.0f}% | {failure} |")
    if s.reviews:
        lines += ["", f"## Items that need TA review ({len(s.reviews)})", "",
                  "Decide each in `grader review DIR` (written answers on their question's page, code checks "
                  "on its code checks page, with a reason); `grader grades DIR` applies the decisions.", "",
                  "| submission | # | question | why | where |", "|---|---|---|---|---|"]
        lines += [f"| {markdown_text(e.submission)} | {e.number} | `{e.id}` | {markdown_text(shorten(e.reason))} | "
                  f"{markdown_text(e.where)} |"
                  for e in s.reviews]
    else:
        lines += ["", "Items that need TA review: none."]
    if s.failed_keys:
        lines += ["", (f"Gradings that failed (not counted above; graded again when the batch is "
                       f"rerun): {', '.join(markdown_text(k) for k in s.failed_keys)}.")]
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
    table = Table(title=f"Class summary: {_n(summary.counted, 'graded submission')} (seed {summary.seed})",
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
                      Text(f"{c.common_failure} ({c.common_failure_count}×)" if c.failures else ""))
    console.print(table)
    console.print(f"Totals out of {summary.max_score:g}: mean {summary.total_stat('mean'):.2f}, "
                  f"median {summary.total_stat('median'):g}, min {summary.total_stat('min'):g}, "
                  f"max {summary.total_stat('max'):g}")
    if summary.reviews:
        needs = "needs" if len(summary.reviews) == 1 else "need"
        console.print(Text(f"{_n(len(summary.reviews), 'item')} {needs} TA review (summary.md lists them; decide "
                           "them in `grader review`): "
                           + ", ".join(f"{e.submission} {e.number}" for e in summary.reviews[:20])
                           + (" …" if len(summary.reviews) > 20 else ""), style="magenta"))
    if summary.failed_keys:
        verb = "is" if len(summary.failed_keys) == 1 else "are"
        console.print(Text(f"{_n(len(summary.failed_keys), 'grading')} failed and {verb} not counted: "
                           f"{', '.join(summary.failed_keys)}; run the same command again to retry them",
                           style="red"))
