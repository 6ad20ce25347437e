"""Final answers collected in a summary table (``| Question | Final answer |``).

A writeup may list its finals in one table whose first column labels the questions
(``| 1(b)(i) | $U(\\hat y - y)$ |``) and keep only derivations in its sections. Such a table is
the student's statement of their answers: each row becomes its question's answer, ahead of the
free text of its section (which holds the steps). A table is one only when at least two of its
rows name two different questions and no question is named twice; a row that points elsewhere
("see the list under 3(f)") or is empty leaves its question to its section.
"""

from __future__ import annotations

import re

from a2.written.sections import Section, parse_label, question_for
from a2.written.tables import table_rows
from a2.written.targets import pretty
from grader.reading.braces import math_groups

_ELSEWHERE = re.compile(r"^\W*(?:see|cf\.?|refer|as\s+(?:above|below)|below|above)\b", re.I)
"""A cell that sends the reader elsewhere ("see the list under 3(f)")."""


def summary_sections(text: str, questions: set[str], source: str) -> list[Section]:
    """The answers of ``text``'s summary tables, one Section per labelled row."""
    out: list[Section] = []
    for table in table_rows(text):
        rows = []
        for row in table:
            label = parse_label(row.cells[0], heading=True) if len(row.cells) >= 2 else None
            q = question_for(label.part, label.letter, label.roman, questions) if label else None
            if q is not None:
                rows.append((q, row))
        named = [q for q, _ in rows]
        if len(set(named)) < 2 or len(set(named)) != len(named):
            continue
        for q, row in rows:
            answer = next((c for c in reversed(row.cells[1:]) if c.strip()), "")
            if not answer or _ELSEWHERE.match(answer):
                continue
            where = f"{source}, line {row.line + 1}"
            out.append(Section(q, answer, row.cells[0], row.cells[0], where, block=True, notes=[
                f"{pretty(q)} was read from the summary table's row {row.cells[0]!r} ({where})."]))
    return out


ROW_MARKER = "**Answer:**"
"""How a summary row's answer heads its question's section: the section's marked answer."""


def _one_formula(cell: str) -> bool:
    """Whether a cell is one formula and nothing else (``$U(\\hat y - y)$``), not a sentence."""
    groups = list(math_groups(cell.strip()))
    return len(groups) == 1 and groups[0][0] == 0 and not cell.strip()[groups[0][1]:].strip(" .,;")


def with_summary(sections: dict[str, Section], text: str, questions: set[str], source: str) -> None:
    """Put the summary table's answers of ``text`` in ``sections`` (in place), ahead of the free text."""
    for new in summary_sections(text, questions, source):
        old = sections.get(new.question)
        if old is not None and not old.empty:
            new.notes.append(f"Its section ({old.where}) was read as the derivation, not as the answer.")
            if _one_formula(new.body):
                # The row is the section's marked answer and the section stays its working, so what
                # the student declares there (a keep probability, column vectors) still holds.
                new.body = f"{ROW_MARKER} {new.body.strip()}\n\n{old.body}"
                new.block = old.block
        sections[new.question] = new
