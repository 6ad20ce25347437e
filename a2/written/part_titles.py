"""The assignment's part titles, as a heading or a handout line names a part.

A heading without a label may name a part by its title ("Neural Transition-Based Dependency
Parsing"); a plain-text line copied from the handout PDF gives the part's number before its title
("3 Neural Transition-Based Dependency Parsing (54 points)"). A bare number at the start of a line
is no label in plain text ("1 SHIFT + 1 ARC per word"); with the title of that very part after it, it is.
"""

from __future__ import annotations

import re

_PART_TITLES = ((1, re.compile(r"\bword2vec\b", re.I)), (2, re.compile(r"machine\s+learning", re.I)),
                (3, re.compile(r"dependency\s+pars", re.I)))


def title_part(text: str) -> int | None:
    """The part whose title ``text`` names, or None."""
    for part, pattern in _PART_TITLES:
        if pattern.search(text):
            return part
    return None


def numbered_title(line: str, part: int | None) -> bool:
    """Whether ``line`` is part ``part``'s number followed by that part's title (a handout's section line)."""
    m = re.match(r"\s*([1-3])\s+\D", line)
    return m is not None and int(m.group(1)) == part and title_part(line) == part
