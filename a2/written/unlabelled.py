"""Writeups with no question labels at all: a zero there is never silent.

Some students answer in the handout's order without any label ("my answers in order, one per
paragraph"): no heading, no ``(b)(i)``, no ``Answer to 3(a)``. The reader then finds only what
names its own target (an equation whose left-hand side is ∂J/∂v_c, γ, ...). An item not found that
way may still be answered in such a file, by its position, which the reader does not judge: each
such item gets an empty section whose place is in doubt, so that its zero is flagged for a TA.
"""

from __future__ import annotations

from a2.written.sections import Section, pretty

MIN_LINES = 5
"""Non-blank lines a file needs to count as a writeup (a short note beside the code is none)."""


def is_unlabelled(text: str, found: dict[str, Section]) -> bool:
    """Whether a Markdown or text file with ``found`` sections (by label) is a writeup without labels."""
    return not found and sum(1 for line in text.split("\n") if line.strip()) >= MIN_LINES


def flag_unlabelled(sections: dict[str, Section], questions: set[str], names: list[str]) -> None:
    """An empty, doubtful section for each question not found, when files in ``names`` have no labels."""
    if not names:
        return
    for q in questions - set(sections):
        sections[q] = Section(q, "", where=f"{names[0]}, line 1", doubt=(
            f"no section was found for {pretty(q)}, but {', '.join(names)} has no question labels at all: "
            "its answers may be given in the handout's order, which the reader does not judge"))
