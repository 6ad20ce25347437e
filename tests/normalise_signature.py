"""What a normalised formula parses to, as a comparable string: the SymPy tree's ``srepr`` and each
placeholder's parts (indicator conditions, indexed groups, cases branches), their source text left
out (it is a slice of the normalised text, which may be spelled differently), or the
FormulaError's message. Two normalisers agree on a formula when these are equal."""

from __future__ import annotations

import sympy

from grader.reading import mathparse
from grader.reading.latex_normal import FormulaError


def _srepr(value: object) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_srepr(v) for v in value) + ")"
    return sympy.srepr(value) if isinstance(value, sympy.Basic) else repr(value)


def signature(normalised: str) -> str:
    ph = mathparse._Placeholders()
    try:
        tree = mathparse._convert(mathparse._substitute(normalised, ph), ph)
    except FormulaError as exc:
        return "error: " + str(exc)
    parts = []
    for key, item in ph.table.items():
        fields = {name: _srepr(getattr(item, name)) for name in item.__dataclass_fields__ if name != "source"}
        parts.append(f"{key}={type(item).__name__}{fields}")
    return sympy.srepr(tree) + " | " + "; ".join(parts)
