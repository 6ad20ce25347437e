"""How this assignment's written answers are grouped for TAs (the framework's answer groups ask, through
a2/registry.py): which checkers' answers are formulas (grouped by their values), tables (by the first
wrong row) or readings (by what was read), and 3(f)'s four sentences as items of their own.

Light on purpose: it reads what a batch recorded (the reading and the feedback), nothing is parsed.
"""

from __future__ import annotations

import re
from typing import Any

TABLE, READING, FORMULA, PROSE = "table", "reading", "formula", "prose"
TRANSITIONS = "transition_table"
PARSER_ERRORS = "parser_errors"
ROMANS = ("i", "ii", "iii", "iv")
_ROW = re.compile(r"^Row (\d+):")


def group_kind(checker: str, formula_checkers: frozenset[str]) -> str:
    """How the answers graded by ``checker`` are grouped: formula, table, reading or prose."""
    if checker in formula_checkers:
        return FORMULA
    return {TRANSITIONS: TABLE, PARSER_ERRORS: READING}.get(checker, PROSE)


def group_label(checker: str, text: str, score: float | None, max_score: float | None,
                feedback: tuple[str, ...]) -> str:
    """What a table's or a reading's group shares. 3(a): "correct", the first wrong row, or what else
    went wrong; 3(f)'s sentences: the reading itself."""
    if checker != TRANSITIONS:
        return text
    if max_score and score == max_score:
        return "correct"
    for line in feedback:
        m = _ROW.match(line)
        if m:
            return f"first wrong row: {int(m.group(1))}"
    if any("only a sequence of transitions" in line for line in feedback):
        return "a transition sequence without a table (wrong)"
    if any("Steps are missing" in line for line in feedback):
        return "rows right, but steps are missing"
    return "rows right, but the tree is not the gold tree"


def _item_verdict(feedback: list[str], roman: str) -> tuple[float | None, float | None]:
    """3(f): the ✓ count of one sentence's line ("ii: type '...' ✓, incorrect ... ✗, correct ... ✓")."""
    for line in feedback:
        if line.startswith(f"{roman}: type "):
            return float(line.count("✓")), 3.0
    return 0.0, 3.0


def answer_items(checker: str, written: dict[str, Any], feedback: list[str]) -> list[tuple[str, str, float | None, float | None]] | None:
    """3(f): one (item, text, score, max score) per sentence, from the reading the grader recorded;
    None for a checker whose answer is one item."""
    if checker != PARSER_ERRORS:
        return None
    readings = {}
    for piece in str(written.get("read", "")).split(" | "):
        roman, _, rest = piece.partition(": ")
        if roman in ROMANS:
            readings[roman] = rest.strip()
    out = []
    for roman in ROMANS:
        text = readings.get(roman, "")
        score, most = _item_verdict([*feedback, *map(str, written.get("why", ()))], roman) if text else (0.0, 3.0)
        out.append((roman, text, score, most))
    return out
