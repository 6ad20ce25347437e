"""1(e) written column by column: ∂J/∂U as ``[∂J/∂u_1 … ∂J/∂u_|V|]`` (each column the gradient
for one outside vector), or as the sum of those columns put in place by one-hot rows,
``Σ_w ∂J/∂u_w δ_wᵀ``: both are ∂J/∂U by definition, whatever ∂J/∂u_w is (1(d) judges that).
"""

from __future__ import annotations

import re

_PARTIAL_U = (r"\\frac\s*\{\s*\\partial\s*(?:\\(?:mathbf|boldsymbol|bm|mathcal)\s*)?\{?\s*J\s*\}?"
              r"[^{}]*(?:\{[^{}]*\}[^{}]*)*\}\s*\{\s*\\partial\s*"
              r"(?:\\mathbf\s*|\\boldsymbol\s*|\\bm\s*|\\vec\s*)?\{?\s*u\s*\}?\s*_\s*"
              r"(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|\w)\s*\}")
_PLAIN_PARTIAL_U = r"(?:∂|d)\s*J\s*/\s*(?:∂|d)\s*u_?(?:\{[^{}]*\}|\|V\||\w+)"
_OPERATOR_PARTIAL_U = r"\\frac\s*\{\s*\\partial\s*\}\s*\{\s*\\partial\s*u\s*_\s*\{?\s*w\s*\}?\s*\}\s*J\s*(?:\([^()]*\))?"
"""``\\frac{\\partial}{\\partial u_w} J(v_c, o, U)``: the operator form."""
_PLACED = re.compile(r"\\sum\s*_\s*(?:\{\s*w[^{}]*\}|w)\s*(?:\^\s*(?:\{[^{}]*\}|\S))?\s*(.+?)\s*(?:\\cdot)?\s*"
                     r"(?:\\delta|e|\\mathbf\s*\{\s*e\s*\}|\\mathbb\s*\{\s*1\s*\})"
                     r"\s*_\s*\{?\s*w\s*\}?\s*\^\s*\{?\s*(?:T|\\top|\\intercal)\s*\}?", re.S)
"""``Σ_w (∂J/∂u_w) δ_wᵀ``: each column put in its place by the one-hot row δ_wᵀ (or e_wᵀ)."""
_DOTS = r"\\(?:dots|ldots|cdots|vdots|ddots)|\.\.\.|…"


def column_breakdown(rhs: str) -> str | None:
    """"columns" for ``[∂J/∂u_1 … ∂J/∂u_|V|]`` or ``Σ_w ∂J/∂u_w δ_wᵀ``, "rows" for the columns
    stacked with ``\\\\``, else None."""
    text = re.sub(r"\\(?:left|right|big|Big)\s*", "", rhs.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac"))
    placed = _PLACED.fullmatch(text.strip())
    if placed and re.fullmatch(f"{_OPERATOR_PARTIAL_U}|{_PARTIAL_U}|{_PLAIN_PARTIAL_U}", placed.group(1).strip()):
        return "columns"
    text = re.sub(r"\\begin\s*\{[pbvBV]?matrix\}|\\end\s*\{[pbvBV]?matrix\}", "", text)
    partial = f"(?:{_PARTIAL_U}|{_PLAIN_PARTIAL_U})"
    if not re.search(partial, text):
        return None
    rest = re.sub(partial, " ", text)
    rest = re.sub(_DOTS, " ", rest)
    rest = re.sub(r"\\(?:quad|qquad|,|;|:|!)|[\[\](),;&|\s]", " ", rest)
    stacked = "\\\\" in rest
    rest = rest.replace("\\\\", " ")
    if rest.strip():
        return None
    return "rows" if stacked else "columns"
