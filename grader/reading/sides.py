"""The sides of an equation as a student writes it: the left-hand side its final right-hand side
belongs to (:func:`lhs`) and that final right-hand side (:func:`last_rhs`), through a derivation
chain over several lines (``J &= ... \\\\ \\frac{\\partial J}{\\partial v_c} &= ...``), cases written as a brace
and an array (:func:`brace_arrays`) and a remark after the formula. Every reader of an answer asks
which question a formula answers (its left side) and what it says (its last right side) here.
"""

from __future__ import annotations

import functools
import re

from grader.reading.braces import top_level_split
from grader.reading.latex_normal import brace_cases
from grader.reading.notation import word_cases
from grader.reading.remarks import cut_remark
from grader.reading.rows import drop_layout

_CHAIN_ENVS = re.compile(r"\\(?:begin|end)\s*\{(?:aligned|align\*?|split|gathered|gather\*?|eqnarray\*?|"
                         r"array)\}(?:\s*\{[^{}]*\})?")
_BRACE_ARRAY = re.compile(r"\\\{\s*\\begin\s*\{(?:array|matrix|aligned)\}")


def brace_arrays(latex: str) -> str:
    """Cases written as a brace and an array (``\\left\\{\\begin{array}{ll} a, & c \\\\ ... \\end{array}\\right.``)
    as ``cases``, before an array is read as a derivation's layout."""
    if not _BRACE_ARRAY.search(re.sub(r"\\(?:left|[bB]igg?l?)\s*(?=\\\{)", "", latex)):
        return latex
    return brace_cases(re.sub(r"\\right\s*\.", " ", re.sub(r"\\(?:left|[bB]igg?l?)\s*(?=\\\{)", "", latex)))


@functools.lru_cache(maxsize=512)        # each filter asks for every candidate's sides again
def last_rhs(latex: str) -> str:
    """The final right-hand side of a derivation chain (the whole formula if it has no ``=``)."""
    text = _CHAIN_ENVS.sub(" ", brace_arrays(latex))
    lines = [ln for ln in top_level_split(text, ("\\\\",)) if ln.strip()]
    for line in reversed(lines):
        parts = top_level_split(cut_remark(line), ("&=", "=", "\\approx", "\\equiv", "\\triangleq"))
        cases = [w for w in ("=".join(parts[k:]).strip() for k in range(1, len(parts))) if word_cases(w) != w]
        if cases:
            return cases[0]
        rhs = parts[-1].strip()
        if rhs and rhs not in ("\\dots", "\\cdots", "..."):
            return rhs
    return cut_remark(text).strip()


@functools.lru_cache(maxsize=512)
def lhs(latex: str) -> str:
    """The left-hand side that the formula's final right-hand side belongs to (empty if it has no
    ``=``): in a chain over several lines, the last line's own left side (``J &= … \\\\ ∂J/∂v_c &= …``
    states ∂J/∂v_c), else the first left side (``∂J/∂v_c &= … \\\\ &= …``)."""
    text = _CHAIN_ENVS.sub(" ", drop_layout(brace_arrays(latex)))
    for row in reversed(top_level_split(text, ("\\\\",))[1:]):
        parts = top_level_split(row, ("&=", "="))
        if len(parts) > 1 and parts[0].strip(" &"):
            return parts[0].strip(" &")
    parts = top_level_split(text, ("&=", "="))
    return parts[0].strip() if len(parts) > 1 else ""
