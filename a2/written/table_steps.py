"""3(a): a configuration table with fewer rows than the parse takes.

A table that ends complete (empty buffer, only ROOT on the stack) in fewer rows than the parse's steps
shows two steps in one row somewhere: read whole, it is scored as it stands. A table that ends before the
parse is complete may go on where the reader did not look (a second table after a page break, under
another heading, in a file beside it) or be unfinished: its rows are scored as read, and the score goes to
a TA with the reason, never silently (a TA may also count the missing steps otherwise).
"""

from __future__ import annotations

from typing import Any


def missing_steps(rows: list[Any], steps: int) -> tuple[list[str], str]:
    """(lines for the explanation, a review reason or "") for a table of ``rows`` when the parse takes ``steps``."""
    if len(rows) >= steps:
        return [], ""
    if rows[-1].stack == ("ROOT",) and rows[-1].buffer == ():
        return [f"Steps are missing: the table ends complete after {len(rows)} rows, but a row holds one "
                "transition, and this parse takes more (a row that shows two steps at once counts as one)."], ""
    return (["Steps are missing: after the last row the parse is not complete (a complete parse "
             "ends with an empty buffer and only ROOT on the stack)."],
            f"the table ends after {len(rows)} steps with the parse not complete: the rest may be elsewhere "
            "(a second table, another page) or missing, a TA decides")
