"""Fractions drawn over three lines in plain text, as a student types them in an editor without math:

        1                    dJ
    ----------   or         ----  =  U (y_hat - y)
    1 - p_drop              dv_c

become one line, ``1/(1 - p_drop)`` and ``dJ/dv_c  =  U (y_hat - y)``, so that the line with the bar
holds the whole formula (read alone it says ``gamma = ----------`` and the line below ``1 - p_drop``,
which is another answer). A bar is a run of three or more ``-`` (or ``_``, ``─``) with text right
above and right below it, each held within the bar's columns; table borders (``|``, ``+``) and
Markdown's rules and headings (a bar alone on its line) are left alone. The second case of a formula
written on the next line under the first (``= W_ji  if z_i > 0`` then ``= 0  otherwise``) joins it
there: ``= W_ji if z_i > 0, 0 otherwise``.
"""

from __future__ import annotations

import re

_BAR = re.compile(r"[-_─]{3,}")
_TABLE_CHARS = re.compile(r"[|│┼]|\+[-=]|[-=]\+")
_ATOM = re.compile(r"[\w.^']+")
_FIRST_CASE = re.compile(r"=.*\S\s+(?:if|when|for)\s+\S.*(?:[<>≠≤≥]|!=|=)")
_OTHER_CASE = re.compile(r"^\s*=\s*(\S.*?\s(?:otherwise|else|elsewhere)\.?)\s*$", re.I)


SLACK = 3
"""Columns a numerator or denominator may stick out of its bar on each side (bars typed by hand are short)."""


def _inside(line: str, start: int, end: int) -> tuple[str, int, int] | None:
    """The text of ``line`` over columns [start, end), widened to whole words by at most :data:`SLACK`
    columns each side, when nothing else touches it (the columns just outside are blank): (text, from, to)."""
    padded = line.ljust(end + SLACK + 1)
    lo, hi = start, end
    while lo > max(0, start - SLACK) and not padded[lo - 1].isspace() and not padded[lo].isspace():
        lo -= 1
    while hi < end + SLACK and not padded[hi].isspace() and not padded[hi - 1].isspace():
        hi += 1
    if (lo > 0 and not padded[lo - 1].isspace()) or not padded[hi].isspace():
        return None
    text = padded[lo:hi].strip()
    return (text, lo, hi) if text else None


def _wrapped(text: str) -> str:
    return text if _ATOM.fullmatch(text) else f"({text})"


def ascii_fractions(text: str) -> str:
    """``text`` with its three-line fractions written on the bar's line (see the module's doc)."""
    lines = text.split("\n")
    if "---" not in text and "___" not in text and "───" not in text:
        return _cases_joined(lines)
    for k in range(1, len(lines) - 1):
        line = lines[k]
        if _TABLE_CHARS.search(line) or not _BAR.search(line) or not _BAR.sub("", line).strip():
            continue            # a bar alone on its line is a rule or a heading's underline
        above, below = lines[k - 1], lines[k + 1]
        if not above.strip() or not below.strip() or _TABLE_CHARS.search(above + below):
            continue
        pieces: list[tuple[int, int, str, int, int]] = []
        for bar in _BAR.finditer(line):
            num = _inside(above, bar.start(), bar.end())
            den = _inside(below, bar.start(), bar.end())
            if num is None or den is None:
                pieces = []
                break
            pieces.append((bar.start(), bar.end(), f"{_wrapped(num[0])}/{_wrapped(den[0])}", min(num[1], den[1]), max(num[2], den[2])))
        # every word of the lines above and below must belong to a fraction: else they are prose
        if not pieces or any(_outside(row, pieces) for row in (above, below)):
            continue
        for start, end, frac, _, _ in reversed(pieces):
            line = line[:start] + frac + line[end:]
        # on the denominator's line, so that a line continuing the formula ("= 0 otherwise") stays next to it
        lines[k - 1], lines[k], lines[k + 1] = "", "", line
    return _cases_joined(lines)


def _cases_joined(lines: list[str]) -> str:
    """The lines, with a second case written on its own line under the first joined to it."""
    for k in range(1, len(lines)):
        other = _OTHER_CASE.match(lines[k])
        if other and _FIRST_CASE.search(lines[k - 1]) and not re.search(r"otherwise|else", lines[k - 1], re.I):
            lines[k - 1], lines[k] = f"{lines[k - 1].rstrip()}, {other.group(1)}", ""
    return "\n".join(lines)


def _outside(row: str, pieces: list[tuple[int, int, str, int, int]]) -> bool:
    """Whether ``row`` has text outside the columns of the fractions."""
    covered = list(row)
    for _, _, _, lo, hi in pieces:
        covered[lo:hi] = " " * max(0, min(hi, len(covered)) - lo)
    return bool("".join(covered).strip())
