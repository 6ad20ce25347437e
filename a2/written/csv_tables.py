"""A table handed in as a ``.csv`` beside the text (3(a)'s table kept in a spreadsheet).

``csv.reader`` reads it; it becomes the Markdown pipe table it shows as, and is placed by its
header (stack and buffer columns: 3(a); error type or dependency columns: 3(f)) or else by its
file name's label (``3a_table.csv``). It is that question's answer when the question's section is
absent, empty or names the file ("See `3a_table.csv`"); otherwise it is left unread, with a note.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import PurePosixPath

from a2.written.sections import Section
from a2.written.targets import pretty
from grader.reading.markup import pipe_table_lines

TABLE_SUFFIXES = (".csv",)
"""Files read as one table each."""
_FILE_LABEL = re.compile(r"(?:^|[^a-z0-9])(?:q|p|part|problem)?[ _.-]?([1-3])[ _.-]?\(?([a-f])\)?(?![0-9a-z])", re.I)


def is_table_file(name: str) -> bool:
    return name.lower().endswith(TABLE_SUFFIXES)


def pipe_table(text: str) -> str:
    """``text`` (CSV) as a Markdown pipe table: the first row its header."""
    rows = [row for row in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in row)]
    if not rows:
        return ""
    return "\n".join(pipe_table_lines([[c.strip().replace("|", "\\|") for c in r] for r in rows]))


def table_question(name: str, table: str, questions: set[str]) -> str | None:
    """The question a table file answers: by its header's words, else by its file name's label."""
    header = table.split("\n", 1)[0].lower()
    if "stack" in header and "buffer" in header and "3a" in questions:
        return "3a"
    if re.search(r"error|dependenc|incorrect", header) and "3f" in questions:
        return "3f"
    m = _FILE_LABEL.search(PurePosixPath(name).name.rsplit(".", 1)[0])
    q = f"{m.group(1)}{m.group(2).lower()}" if m else None
    return q if q in questions else None


def place_tables(sections: dict[str, Section], tables: list[tuple[str, str]], questions: set[str]) -> list[str]:
    """Put each table file of ``tables`` (name, CSV text) into its question's section (in place);
    the notes on what was read or left."""
    notes: list[str] = []
    for name, text in tables:
        table = pipe_table(text)
        q = table_question(name, table, questions) if table else None
        if q is None:
            notes.append(f"{name} was read as a table, but no question it answers was found; it was not graded.")
            continue
        old = sections.get(q)
        base = PurePosixPath(name).name
        if old is not None and not old.empty and base not in old.body:
            notes.append(f"{name} holds a table for {pretty(q)}, but the writeup answers {pretty(q)} in "
                         f"{old.where}; that answer was read, not the table.")
            continue
        note = f"{pretty(q)} was read from the table in {name}."
        if old is None or old.empty:
            sections[q] = Section(q, table, "", "", f"{name}, line 1", [note])
        else:
            old.body = f"{old.body}\n\n{table}\n"
            old.notes.append(note)
    return notes
