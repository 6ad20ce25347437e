"""The layout of a display: what renders differently and means the same (:func:`drop_layout`), and
a display that states several results, one per row (:func:`result_rows`): an ``aligned`` (or ``align*``, ``eqnarray``)
whose rows each open with a derivative of their own,

    \\frac{\\partial J}{\\partial u_o} &= (\\hat y_o - 1) v_c \\\\
    \\frac{\\partial J}{\\partial u_w} &= \\hat y_w v_c

is as many formulas as it names derivatives (each with the rows that continue it: ``&= ...``), not
one formula whose left side is the first row's and whose result is the last row's. A derivation,
whose rows after the first continue it, or restate the same derivative, stays one formula.
"""

from __future__ import annotations

import re

from grader.reading.braces import top_level_split

_ENVS = re.compile(r"\\(?:begin|end)\s*\{(?:aligned|align\*?|split|gathered|gather\*?|eqnarray\*?|multline\*?)\}")


def _derivative(row: str) -> str:
    """The row's own left side when it is a derivative (``\\frac{\\partial J}{\\partial u_o}``), else ""."""
    parts = top_level_split(row, ("&=", "="))
    left = parts[0].replace("&", " ") if len(parts) > 1 else ""
    return re.sub(r"\s+", "", left) if "\\partial" in left or "∂" in left else ""


def result_rows(latex: str) -> list[str]:
    """``latex`` split into one formula per derivative its rows state (see the module's doc); ``[latex]``
    when it states one or none."""
    if "\\\\" not in latex or ("\\partial" not in latex and "∂" not in latex):
        return [latex]
    rows = [row for row in top_level_split(_ENVS.sub(" ", latex), ("\\\\",)) if row.strip()]
    heads = [_derivative(row) for row in rows]
    if len({head for head in heads if head}) < 2:
        return [latex]
    groups: list[list[str]] = []
    for row, head in zip(rows, heads):
        if head or not groups:
            groups.append([row])
        else:
            groups[-1].append(row)
    return [" \\\\ ".join(group) for group in groups]


def drop_layout(latex: str) -> str:
    """``latex`` without :data:`_LAYOUT` (each a space)."""
    latex = re.sub(r"&\s*=\s*&|&\s+=|=\s*&(?![&=])", "&=", latex)       # eqnarray's "& = &", "& =" spaced
    return _LAYOUT.sub(" ", re.sub(r"&&(?=[^&]*(?:\\\\|$))", r"\\quad ", latex))


_LAYOUT = re.compile(r"\\(?:displaystyle|textstyle|scriptstyle|scriptscriptstyle)(?![A-Za-z])|(?<!\\)\\[,;:!#](?![A-Za-z])|(?:^|(?<=\\\\))"
                     r"\s*(?:\\(?:Rightarrow|Longrightarrow|implies|therefore)(?![A-Za-z])|[⇒⟹∴]|\\text\s*\{\s*(?:so|hence|thus|then)\s*,?\s*\})"
                     r"\s*(?:\\q?quad(?![A-Za-z]))?")
"""Layout that renders differently and means the same: style sizes, thin and thick spaces, the "\\#" of
"\\#\\text{steps}", a "⇒" or "∴" or "so" opening a line of a derivation. Each is a space, before a formula's
sides, remarks or boxes are read (``\\boxed{\\; 2n \\;}`` is 2n). An alignment's last column after ``&&``
(``&= a && (w = o)``) is a remark, as after ``\\quad``."""
