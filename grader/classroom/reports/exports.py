"""Grades that reach students (``grader grades DIR --final``): files an LMS imports, one row per
student of the roster (a group submission gives each of its students a row), and each student's
feedback as a file named for them.

    export/canvas.csv       Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID,
                            Section, then one column per chosen item, and the "Points Possible"
                            row. Canvas matches a row by SIS User ID or SIS Login ID when ID (its
                            own number, which no export of ours knows) is empty: the roster's
                            student id and email go there.
    export/gradescope.csv   Name, SID, Email and the chosen columns ("Total Score" for the total):
                            the shape of the CSV Gradescope's "upload scores" takes for an
                            assignment graded outside it, matched by email (or SID).
    export/feedback/<sid>_<name>.md   each student's feedback (the grade book's), named for the
                            roster so that it can be sent or attached without a lookup table.

A column's cell is empty while the item is pending (a TA has still to mark it) and so is the total:
an empty cell leaves the LMS's grade alone, where a number would look final. The columns are the
instructor's choice (``--column``): ``total``, ``autograder``, ``ta`` (the TA items' sum) or a TA
item's id; ``total`` alone by default.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from grader.classroom.final_grades import FinalRow, GradeBook
from grader.classroom.reports.final import feedback
from grader.common.atomic import write_text
from grader.common.csvfile import csv_text

EXPORT_DIR = "export"
CANVAS_FILE = "canvas.csv"
GRADESCOPE_FILE = "gradescope.csv"
FEEDBACK_DIR = "feedback"
JOIN = "; "                   # how grades.csv joins the students of a group submission
DEFAULT_COLUMNS = ("total",)


class ExportError(ValueError):
    """A column that is not an item of the grade book; the message lists the choices."""


@dataclass(frozen=True)
class ExportColumn:
    id: str
    title: str
    most: float
    value: Callable[[FinalRow], float | None]     # None: pending


@dataclass(frozen=True)
class Student:
    name: str
    sid: str
    email: str
    row: FinalRow


def students(r: FinalRow) -> list[Student]:
    """The students of one submission, from the roster's names, ids and emails (in order)."""
    split = [[x.strip() for x in cell.split(JOIN.strip())] if cell else [] for cell in (r.names, r.sids, r.emails)]
    people = [Student(n or "", s or "", e or "", r) for n, s, e in zip_longest(*split, fillvalue="")]
    return [p for p in people if p.sid or p.email] or [Student(r.names or r.submission, "", "", r)]


def columns(book: GradeBook, chosen: Sequence[str], title: str) -> list[ExportColumn]:
    """The export's item columns, in the order chosen."""
    items = {slot: (name, points) for slot, name, points in book.ta_items}
    out = []
    for c in chosen:
        if c == "total":
            out.append(ExportColumn(c, title, book.max_total, lambda r: None if r.pending else r.total))
        elif c == "autograder":
            out.append(ExportColumn(c, f"{title}: autograder", book.auto_max, lambda r: r.auto))
        elif c == "ta":
            out.append(ExportColumn(c, f"{title}: graded by staff", book.ta_max,
                                    lambda r: None if r.pending else r.ta_total))
        elif c in items:
            out.append(ExportColumn(c, f"{title}: {items[c][0]}", items[c][1], _item_points(c)))
        else:
            raise ExportError(f"--column {c!r} is not an item of the grade book; choose total, autograder, ta "
                              f"or a TA item: {', '.join(items)}")
    return out


def _item_points(slot: str) -> Callable[[FinalRow], float | None]:
    def points(r: FinalRow) -> float | None:
        return r.ta.get(slot)
    return points


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def canvas_csv(book: GradeBook, cols: Sequence[ExportColumn]) -> str:
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *(c.title for c in cols)]
    rows = [["Points Possible", "", "", "", "", *(f"{c.most:g}" for c in cols)]]
    rows += [[s.name, "", s.sid, s.email, "", *(_cell(c.value(s.row)) for c in cols)]
             for r in book.rows for s in students(r)]
    return csv_text(header, rows)


def gradescope_csv(book: GradeBook, cols: Sequence[ExportColumn]) -> str:
    header = ["Name", "SID", "Email", *("Total Score" if c.id == "total" else c.title for c in cols)]
    rows = [[s.name, s.sid, s.email, *(_cell(c.value(s.row)) for c in cols)] for r in book.rows for s in students(r)]
    return csv_text(header, rows)


def file_name(s: Student) -> str:
    """``<sid>_<name>.md`` (the email's when there is no student id), safe on every file system."""
    who = s.sid or s.email or s.row.submission
    slug = re.sub(r"[^A-Za-z0-9]+", "-", s.name).strip("-") or s.row.submission
    return re.sub(r"[^A-Za-z0-9@._-]+", "-", f"{who}_{slug}")[:120] + ".md"


def write_exports(book: GradeBook, out: Path, chosen: Sequence[str] = DEFAULT_COLUMNS, *,
                  title: str = "Assignment") -> list[Path]:
    """The two gradebook CSVs and the per-student feedback files in ``out/export/``."""
    cols = columns(book, chosen, title)
    folder = out / EXPORT_DIR
    files = [folder / CANVAS_FILE, folder / GRADESCOPE_FILE]
    write_text(files[0], canvas_csv(book, cols))
    write_text(files[1], gradescope_csv(book, cols))
    for r in book.rows:
        text = feedback(book, r)
        for s in students(r):
            target = folder / FEEDBACK_DIR / file_name(s)
            write_text(target, text)
            files.append(target)
    return files
