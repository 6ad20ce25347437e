"""Where a plain-text equation (Unicode or ASCII math typed without ``$``) ends on its line.

:func:`grader.reading.answers.plain_equations` reads one equation per line, from its left-hand
side (∂J/∂v_c, dJ/dU, γ) to the end of the line. Markup and habits end one sooner:

* Markdown's bold around it (``**γ = 1/(1 − p_drop)**``, ``__…__``), hard-wrapped over two lines or not;
* inline code used for math (```dJ/dv_c = U (y_hat - y)```): the closing backtick ends it;
* a second equation on the same line, after ``,`` ``;`` or ``and`` (``dJ/du_w = (ŷ_o − 1) v_c when
  w = o, and dJ/du_w = ŷ_w v_c when w ≠ o``): each is an equation of its own, with its own condition.

:func:`equation_lines` returns the text with those ends made line ends, every offset kept.
"""

from __future__ import annotations

import re

_BOLD_EQUATION = re.compile(r"(\*\*|__)([^*_\n]*=[^*\n]*?(?:\n[^*\n]+?)?)\1")
_CODE_EQUATION = re.compile(r"`([^`\n]*=[^`\n]*)`")
_LHS = r"(?:∂|d)\s*[^\s/=]{0,16}\s*/\s*(?:∂|d)\s*[^\s=]{1,16}\s*="
_NEXT_EQUATION = re.compile(r"(?:(?<=[,;])|(?<=\band))[ \t]+(?=`?" + _LHS + ")")


def equation_lines(text: str) -> str:
    """``text`` (same length) with a line end where a plain-text equation ends before its line does."""
    text = _BOLD_EQUATION.sub(lambda m: "  " + m.group(2) + "\n ", text)     # the bold's end ends the formula
    text = _CODE_EQUATION.sub(lambda m: " " + m.group(1) + " ", text)          # inline code's backticks go
    return _NEXT_EQUATION.sub(lambda m: " " * (len(m.group(0)) - 1) + "\n", text)
