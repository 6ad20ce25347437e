"""Declared catalogues of bug shapes ("buggy rules"): a known-wrong variant and what to say.

Shared by the code checks (``a2/checks/``) and the written-answer checkers
(``a2/written/``). An entry is an id, a matcher, a message and a credit fraction: the
matcher is given a *case* (whatever its catalogue defines: the inputs, the expected answer and
the student's answer) and computes, in the trusted process, what the known-wrong variant would
give from the same inputs; it matches when the student's answer is that and the right answer is
not. The message names the bug in words a student can act on (it may name an operation such as
``np.add.at`` or ``pop(0)``, never an implementation). ``credit`` is the fraction of the trial a
match still earns: 0 for a real bug, 1 for a difference that another check charges.

Catalogues are plain tuples of entries declared next to the check that uses them, so a reader
sees every shape a check can name; ``tests/test_catalogue.py`` proves each entry against a
submission with exactly that bug, and that correct solutions never match any entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

C = TypeVar("C")

#: What a matcher may raise on odd student data (a shape that does not fit, a NaN); it means "no match".
MATCH_ERRORS = (ArithmeticError, ValueError, IndexError, TypeError, KeyError)


@dataclass(frozen=True)
class BugShape(Generic[C]):
    """One known bug: ``matches(case)`` is true when the student's answer is this bug's."""

    id: str
    matches: Callable[[C], bool]
    message: str
    credit: float = 0.0

    def __post_init__(self) -> None:
        if not self.id or not self.message:
            raise ValueError("a bug shape needs an id and a message")
        if not 0.0 <= self.credit <= 1.0:
            raise ValueError(f"bug shape {self.id!r}: credit {self.credit} is not in [0, 1]")

    def test(self, case: C) -> bool:
        """``matches(case)``, with odd data meaning no match (a matcher never crashes a check)."""
        try:
            return bool(self.matches(case))
        except MATCH_ERRORS:
            return False


def diagnose(shapes: Iterable[BugShape[C]], case: C) -> BugShape[C] | None:
    """The first entry of ``shapes`` that matches ``case`` (catalogues list specific shapes first)."""
    for shape in shapes:
        if shape.test(case):
            return shape
    return None


def all_matches(shapes: Iterable[BugShape[C]], case: C) -> list[BugShape[C]]:
    """Every entry that matches ``case`` (tests use it to prove correct answers match none)."""
    return [shape for shape in shapes if shape.test(case)]


def check_ids_unique(shapes: Iterable[BugShape[C]]) -> None:
    """Raise ValueError when two entries of one catalogue share an id."""
    seen: set[str] = set()
    for shape in shapes:
        if shape.id in seen:
            raise ValueError(f"bug shape id {shape.id!r} is declared twice")
        seen.add(shape.id)
