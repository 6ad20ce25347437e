"""Answers given twice: a first attempt, then a line that corrects it.

Students keep their draft and write the fix below it: ``First attempt: …`` then ``Corrected: …``,
``**Corrected (after OH):**``, ``Correction — sign: …``, ``Edit: …``, ``Update: …``, ``Corrected iii
(…): …``. A TA grades what comes after the correction: for a field it states again (a formula of
the question, 3(f)'s error type or one of its dependencies) the corrected text wins over the draft;
what the correction does not restate stays as the draft gave it (``Edit: double-checked, no change``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

CORRECTION = re.compile(
    r"(?im)^[ \t>*_]*(?:\*\*|__)?[ \t]*(?:corrected|correction|corrigendum|erratum|edit(?:ed)?|update[d]?|fix(?:ed)?|revised"
    r"|revision)\b[^\n:—–]{0,60}?(?::|—|–|\s-\s)")
"""A line that opens a correction, its marker word first (within the line, a colon or a dash ends the marker)."""


def last_correction(text: str) -> int | None:
    """Where the last correction of ``text`` starts, or None when it has none."""
    found = list(CORRECTION.finditer(text))
    return found[-1].start() if found else None


def split_at_correction(text: str) -> tuple[str, str] | None:
    """(the draft, the correction) of ``text`` cut at its last correction line, or None."""
    at = last_correction(text)
    return None if at is None else (text[:at], text[at:])


class _Placed(Protocol):
    @property
    def start(self) -> int: ...


C = TypeVar("C", bound=_Placed)


def others_standing(answers: Iterable[C], chosen: int, text: str) -> list[C]:
    """The answers of ``text`` other than the one at offset ``chosen`` that still stand: without
    those a correction line replaced (a draft above the last correction, when the chosen answer
    is below it)."""
    at = last_correction(text)
    return [a for a in answers if a.start != chosen and not (at is not None and a.start < at <= chosen)]
