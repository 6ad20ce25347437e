"""The one CSV writer (:func:`write_csv`) and reader of every CSV the tools write (grades, final grades, answer groups,
groups, review queue, similarity, points).

TAs open these files in a spreadsheet, and many cells hold text a student chose (an answer, a file
or folder name, a name from the roster, an exception message). A spreadsheet runs a cell that
starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return before one) as a formula:
``=HYPERLINK(...)``, ``=WEBSERVICE(...)``, DDE's ``=cmd|...``. So :func:`cell` writes such a cell
with a leading ``'`` (the spreadsheet shows it as text), unless the cell is a plain number (one
the grader wrote: ``-0.5``, ``1e-06``), and :func:`unescape` undoes it when a CSV is read back, so
that a TA's marks and comments round-trip. A cell that already starts with ``'`` before one of those
characters gets one more, so that reading back is exact whatever the text.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from grader.common.atomic import write_text

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP's CSV injection list)."""
QUOTE = "'"
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _starts_formula(text: str) -> bool:
    return text.lstrip(QUOTE)[:1] in FORMULA_STARTS if text else False


def cell(value: object) -> str:
    """``value`` as the text of one cell, never the start of a formula (numbers are left as they are)."""
    text = "" if value is None else str(value)
    if _NUMBER.fullmatch(text):
        return text
    if text[:1] in FORMULA_STARTS or (text[:1] == QUOTE and _starts_formula(text)):
        return QUOTE + text
    return text


def unescape(text: str) -> str:
    """The text :func:`cell` was given (a spreadsheet may keep or drop the quote: both read back)."""
    if text[:1] == QUOTE and _starts_formula(text[1:]):
        return text[1:]
    return text


def csv_text(header: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A whole CSV (RFC 4180: ``\\r\\n`` line ends, so that a carriage return inside a cell is quoted), every cell through :func:`cell`."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([cell(h) for h in header])
    writer.writerows([cell(v) for v in row] for row in rows)
    return buffer.getvalue()


def write_csv(path: Path, header: Sequence[object], rows: Iterable[Sequence[object]]) -> Path:
    """Write :func:`csv_text` to ``path`` through the one atomic writer; returns ``path``."""
    return write_text(path, csv_text(header, rows))


def read_dicts(text: str) -> tuple[list[str], list[dict[str, str]]]:
    """(field names, rows) of a CSV's text, every cell (and name) through :func:`unescape`."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    fields = [unescape(f or "") for f in (reader.fieldnames or ())]
    rows = [{unescape(k or ""): unescape(v) if isinstance(v, str) else v for k, v in row.items()} for row in reader]
    return fields, rows
