"""The table a student reads in a terminal: number, check, points, status, one-line reason."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader.run.results import PARTIAL, PASSED, GradeReport

_STYLE = {PASSED: "green", PARTIAL: "yellow"}


def _reason(feedback: tuple[str, ...]) -> str:
    """The most useful single line: the first failure if any, else the summary."""
    for line in feedback:
        if line.startswith("- "):
            return line[2:]
    return feedback[0] if feedback else ""


def render(report: GradeReport, console: Console, *, details: bool = True) -> None:
    table = Table(title=f"Autograder results (seed {report.seed})", show_lines=False,
                  expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("check")
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("reason", overflow="fold")
    for c in report.checks:
        style = "magenta" if c.needs_review else _STYLE.get(c.status, "red")
        reason = "" if c.passed else _reason(c.outcome.feedback)
        shown = "REVIEW" if c.needs_review else c.status.replace("_", " ").upper() if c.status != PASSED else "PASS"
        table.add_row(c.number, c.name, f"{c.score:g}/{c.max_score:g}", Text(shown, style=style),
                      Text(reason[:160] + ("…" if len(reason) > 160 else "")))
    console.print(table)
    console.print(f"[bold]Total: {report.score:g} / {report.max_score:g}[/bold]   "
                  f"({len([c for c in report.checks if c.passed])}/{len(report.checks)} checks passed, "
                  f"{report.seconds:.1f} s; replay with --seed {report.seed})")
    for note in report.notes:
        console.print(Text(f"Note: {note}"))
    if report.reviews:
        render_reviews(report, console)
    if report.manual:
        render_manual(report, console)
    if details:
        failing = [c for c in report.checks if not c.passed]
        for c in failing:
            console.print(f"\n[bold]{c.number} {c.name}[/bold] — {c.score:g}/{c.max_score:g}")
            for line in c.outcome.feedback:
                console.print(Text(line))
            if c.written is not None and c.written.why:  # instructors see all; students when rubric.yaml says
                console.print(Text(f"Why (students see it with the score: {c.visibility.replace('_', ' ')}):"))
                for line in c.written.why:
                    console.print(Text(f"  {line}"))
            if c.written is not None and c.held_back and c.written.reading:
                console.print(Text("Before then students see only what was read:"))
                for line in c.written.reading:
                    console.print(Text(f"  {line}"))


def render_reviews(report: GradeReport, console: Console) -> None:
    """Auto-graded written items the grader could not judge with confidence (why, where, what it
    read), checks the grading's time budget could not afford, and checks whose score a failing
    prerequisite raised."""
    table = Table(title=f"Items that need TA review ({len(report.reviews)}; scored as far as "
                        "the autograder could prove)", show_lines=False, expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("question")
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("why", overflow="fold")
    table.add_column("where", overflow="fold")
    table.add_column("text read", overflow="fold")
    for c in report.reviews:
        w = c.written
        raw = " ".join(w.raw.split()) if w is not None else ""
        table.add_row(c.number, c.name, f"{c.score:g}/{c.max_score:g}", Text(c.review[:200]),
                      Text(w.where) if w is not None else "",
                      Text(raw[:200] + ("…" if len(raw) > 200 else "")))
    console.print(table)


def render_manual(report: GradeReport, console: Console) -> None:
    """The written answers a TA grades: whether each was found, where, and its points."""
    table = Table(title=f"Written answers for TA grading ({report.manual_points:g} points, not in the total)",
                  show_lines=False, expand=False)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("question")
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("found", no_wrap=True)
    table.add_column("read from / why not", overflow="fold")
    for m in report.manual:
        found = Text("yes", style="green") if m.found else Text("NO", style="red")
        detail = m.where if m.found else m.text
        if m.notes:
            detail += " (" + " ".join(m.notes) + ")"
        table.add_row(m.number, m.name.split(" (for TA grading")[0], f"{m.points:g}", found,
                      Text(detail[:200] + ("…" if len(detail) > 200 else "")))
    console.print(table)
