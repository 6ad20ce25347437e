"""The grade book as files: ``final_grades.csv`` (one row per submission, keyed like grades.csv)
and ``feedback/<submission>.md`` (what a student reads: the autograder's score, each TA-graded
item's points and the TA's comment). A submission with TA items still to mark has no total that
looks final: its ``total`` says ``pending N items`` (the points so far are in ``total_so_far``).
What an LMS imports is :mod:`grader.classroom.reports.exports`."""

from __future__ import annotations

from pathlib import Path

from grader.classroom.final_grades import FinalRow, GradeBook
from grader.classroom.groups.marks import pending_line
from grader.common.atomic import write_text
from grader.common.csvfile import write_csv
from grader.common.shown import markdown_text

FINAL_FILE = "final_grades.csv"
FEEDBACK_DIR = "feedback"


def header(book: GradeBook) -> list[str]:
    return ["submission", "names", "sids", "emails", "status", "autograder", "autograder_max",
            *(slot for slot, _, _ in book.ta_items), "ta_total", "ta_max", "total", "max_total", "total_so_far",
            "pending", "overrides"]


def decisions_cell(r: FinalRow) -> str:
    """The TA's decisions on auto-graded items: what, from and to, who, when and why."""
    return "; ".join(f"{o.slot}: {o.auto:g} -> {o.points:g} by {o.who or 'a TA'}"
                     + (f" at {o.when}" if o.when else "") + f" ({o.reason})" for o in r.overrides)


def total_cell(r: FinalRow) -> str:
    """The total, or ``pending N items`` while a TA item of the submission has no points."""
    return pending_line(r.pending) if r.pending else f"{r.total:g}"


def row(book: GradeBook, r: FinalRow) -> list[str]:
    return [r.submission, r.names, r.sids, r.emails, r.status, f"{r.auto:g}", f"{book.auto_max:g}",
            *(f"{r.ta[s]:g}" if s in r.ta else "" for s, _, _ in book.ta_items),
            f"{r.ta_total:g}", f"{book.ta_max:g}", total_cell(r), f"{book.max_total:g}", f"{r.total:g}",
            " ".join(r.unmarked), decisions_cell(r)]


def feedback(book: GradeBook, r: FinalRow) -> str:
    lines = [f"# Feedback for {markdown_text(r.names or r.submission)}", "",
             f"Autograder: {r.auto:g} / {book.auto_max:g} (each check's feedback is in Gradescope)."]
    for o in r.overrides:
        lines.append(f"- {o.slot}: changed by a TA from {o.auto:g} to {o.points:g} points"
                     + (f": {o.reason}" if o.reason else ""))
    so_far = f" so far ({pending_line(r.pending)} still to be marked)" if r.pending else ""
    lines += ["", f"Graded by the course staff: {r.ta_total:g} / {book.ta_max:g}{so_far}", ""]
    for slot, name, points in book.ta_items:
        got = f"{r.ta[slot]:g}" if slot in r.ta else "not marked yet" if slot in r.unmarked else "0 (no answer)"
        lines.append(f"- {name}: {got} / {points:g}")
        if r.comments.get(slot):
            lines.append(f"  - {r.comments[slot]}")
    total = (f"Total: {pending_line(r.pending)} still to be marked; this is not your grade yet"
             if r.pending else f"Total: {r.total:g} / {book.max_total:g}")
    lines += ["", total, ""]
    return "\n".join(lines)


def write(book: GradeBook, out: Path) -> list[Path]:
    """final_grades.csv and one feedback file per submission in ``out``."""
    path = out / FINAL_FILE
    write_csv(path, header(book), [row(book, r) for r in book.rows])
    files = [path]
    for r in book.rows:
        target = out / FEEDBACK_DIR / f"{r.submission}.md"
        write_text(target, feedback(book, r))
        files.append(target)
    return files
