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


_MATRIX_ROW = re.compile(r"^\s*(?:\\begin\s*\{[pbvBV]?matrix\}(.*)\\end\s*\{[pbvBV]?matrix\}|\[(.*)\])\s*$", re.S)
_YHAT_INDEX = re.compile(r"(\\(?:hat|widehat)\s*\{?\s*y\s*\}?\s*_\s*)(\{[^{}]*\}|\w)")


def explicit_columns(rhs: str) -> list[tuple[str, str]] | None:
    """``[\\hat y_1 v_c & \\cdots & (\\hat y_o - 1) v_c & \\cdots]``: ∂J/∂U as one row of columns, each
    written out for its own word. Each column as ("o" or "w", its formula for ∂J/∂u_w at that word,
    the index written as o or w); None unless one row holds the column of o and another word's."""
    text = re.sub(r"\\(?:left|right|big|Big)\s*", "", rhs).strip()
    m = _MATRIX_ROW.match(text)
    if m is None:
        return None
    body = m.group(1) if m.group(1) is not None else m.group(2)
    if "\\\\" in body:
        return None
    out: list[tuple[str, str]] = []
    for cell in re.split(r"&" if "&" in body else r",(?![^{}]*\})", body):
        if not cell.strip() or not re.sub(_DOTS, "", cell).strip():
            continue
        indices = {i.strip("{} ") for _, i in _YHAT_INDEX.findall(cell)}
        if len(indices) != 1 or re.search(r"\^\s*\{?\s*(?:T|\\top|\\intercal)|'|ᵀ", cell):   # a row in a row is no column
            return None
        role = "o" if indices == {"o"} else "w"
        out.append((role, _YHAT_INDEX.sub(r"\g<1>" + role, cell).strip()))
    return out if {r for r, _ in out} == {"o", "w"} else None
