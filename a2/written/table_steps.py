"""3(a): a configuration table written otherwise than the parse runs: stacks top first, fewer rows.

ROOT is always at the bottom of the stack, so a table whose every stack of two or more words has ROOT
last (``[presented, ROOT]``) writes its stacks top first, as some lecture slides do: they are read
bottom first, with a note (whether the writeup says so or not: the cells themselves show it).

A table that ends complete (empty buffer, only ROOT on the stack) in fewer rows than the parse's steps
shows two steps in one row somewhere: read whole, it is scored as it stands. A table that ends before the
parse is complete may go on where the reader did not look (a second table after a page break, under
another heading, in a file beside it) or be unfinished: its rows are scored as read, and the score goes to
a TA with the reason, never silently (a TA may also count the missing steps otherwise).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

TOP_FIRST_NOTE = "Your stacks are written top first (ROOT last); they were read that way."


def top_first(rows: list[Any]) -> tuple[list[Any], bool]:
    """``rows`` with each stack bottom first when every stack of two or more words ends with ROOT, and whether they were."""
    long = [r.stack for r in rows if r.stack and len(r.stack) >= 2]
    if not long or any(s[-1] != "ROOT" or "ROOT" in s[:-1] for s in long) or any(
            r.stack and len(r.stack) == 1 and r.stack[0] != "ROOT" for r in rows):
        return rows, False
    return [replace(r, stack=tuple(reversed(r.stack))) if r.stack else r for r in rows], True


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
