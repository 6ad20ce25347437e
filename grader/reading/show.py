"""Formulas written back for messages, and symbol names split into base and subscripts.

:func:`show` prints a parsed sub-expression the way students write it (``U^T(ŷ − y)``), so that a
message can name the part of an answer that is wrong; :func:`split_name` and
:func:`display_name` read and print the canonical symbol names of :mod:`grader.reading.evaluate`.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy.core.relational import Relational

from grader.reading.mathparse import PLACEHOLDER, Cases, Formula, IndexOf, Indicator

_ACCENT = re.compile(r"^(hat|bar|tilde|vec|math|dot)\{([^{}]*)\}$")



def split_name(name: str) -> tuple[str, list[str]]:
    """``hat{y}_o`` -> (``yhat``, [``o``]); ``W_{j,i}`` -> (``W``, [``j``, ``i``]); ``b_{1i}`` -> (``b``, [``1``, ``i``])."""
    base, _, sub = name.partition("_")
    base = base.strip()
    m = _ACCENT.match(base)
    if m:
        accent, letter = m.groups()
        base = letter + ("hat" if accent == "hat" else "")
    base = base.replace("\\", "").replace("{", "").replace("}", "")
    if base == "ell":
        base = "l"
    sub = sub.replace("{", "").replace("}", "").replace(" ", "")
    if "," in sub:
        tokens = [t for t in sub.split(",") if t]
    else:
        tokens = list(sub)
    return base, tokens


def display_name(name: str) -> str:
    base, tokens = split_name(name)
    shown = {"yhat": "ŷ", "delta": "δ", "Omega": "Ω", "varsigma": "e"}.get(base, base)   # varsigma: notation.ONE_HOT_SYMBOL
    if base.endswith("hat") and base != "yhat":
        shown = base[:-3] + "\u0302"
    if not tokens:
        return shown
    sub = "".join(tokens) if all(len(t) == 1 for t in tokens) else ",".join(tokens)
    return f"{shown}_{sub}" if len(sub) == 1 else f"{shown}_{{{sub}}}"


def show(node: Any, formula: Formula | None = None) -> str:
    """A readable one-line form of ``node`` ("Uᵀ(ŷ − y)")."""
    if isinstance(node, sympy.Symbol):
        base, tokens = split_name(node.name)
        if base == PLACEHOLDER and formula is not None:
            item = formula.placeholders.get("".join(tokens))
            if item is not None:
                return _show_placeholder(item, formula)
        return display_name(node.name)
    if isinstance(node, sympy.Integer):
        return str(int(node)).replace("-", "−") if abs(int(node)) < 10**6 else "(a huge number)"
    if isinstance(node, sympy.Rational):
        return f"{node.p}/{node.q}".replace("-", "−")
    if isinstance(node, sympy.Float):
        return f"{float(node):g}".replace("-", "−")
    if isinstance(node, sympy.Add):
        parts: list[str] = []
        for k, term in enumerate(node.args):
            text = show(term, formula)
            if k and text.startswith("−"):
                parts.append(f" − {text[1:]}")
            elif k:
                parts.append(f" + {text}")
            else:
                parts.append(text)
        return "".join(parts)
    if isinstance(node, sympy.Mul):
        factors = list(node.args)
        sign = ""
        if factors and factors[0] == sympy.Integer(-1):
            sign, factors = "−", factors[1:]
        numer = [f for f in factors if not (isinstance(f, sympy.Pow) and f.exp == -1)]
        denom = [f.base for f in factors if isinstance(f, sympy.Pow) and f.exp == -1]
        if numer and numer[0] == sympy.Integer(1) and (denom or len(numer) > 1):
            numer = numer[1:]
        text = _join_factors(numer, formula) if numer else "1"
        if denom:
            below = _join_factors(denom, formula)
            below = f"({below})" if len(denom) > 1 or isinstance(denom[0], sympy.Mul) else below
            text = f"{text}/{below}"
        return sign + text
    if isinstance(node, sympy.Pow):
        if node.exp == -1:
            return f"1/{_wrap(node.base, formula)}"
        if node.exp == sympy.Rational(1, 2):
            return f"√{_wrap(node.base, formula)}"
        return f"{_wrap(node.base, formula)}^{_wrap(node.exp, formula)}"
    if isinstance(node, sympy.Sum):
        signs = " ".join(f"Σ_{display_name(str(limit[0]))}" for limit in reversed(node.limits))   # outermost first
        return f"{signs} {_wrap(node.function, formula)}"
    if isinstance(node, Relational):
        op = {"==": "=", "!=": "≠", ">=": "≥", "<=": "≤"}.get(node.rel_op, node.rel_op)
        return f"{show(node.lhs, formula)} {op} {show(node.rhs, formula)}"
    if node.__class__.__name__ == "transpose":
        return f"{_wrap(node.args[0], formula)}ᵀ"
    if isinstance(node, sympy.Function) or hasattr(node, "func") and node.args:
        name = getattr(node.func, "__name__", str(node.func)).lstrip("\\").removeprefix("mathrm{").rstrip("}")
        return f"{name}({', '.join(show(a, formula) for a in node.args)})"
    return str(node)


def _wrap(node: Any, formula: Formula | None) -> str:
    text = show(node, formula)
    if isinstance(node, (sympy.Add, sympy.Mul)) or (isinstance(node, sympy.Number) and text.startswith("−")):
        return f"({text})"
    return text


def _join_factors(factors: list[Any], formula: Formula | None) -> str:
    out = ""
    for f in factors:
        text = f"({show(f, formula)})" if isinstance(f, sympy.Add) else show(f, formula)
        if out and not (out.endswith(")") or text.startswith("(")):
            out += " " if not (out[-1].isdigit() and not text[0].isdigit()) else ""
        out += text
    return out


def _show_placeholder(item: Any, formula: Formula) -> str:
    if isinstance(item, Indicator):
        return f"1{{{show(item.condition, formula)}}}" if item.condition is not None else "1"
    if isinstance(item, IndexOf):
        return f"({show(item.inner, formula)})_{item.indices}"
    if isinstance(item, Cases):
        rows = [f"{show(e, formula)} if {show(c, formula)}" if c is not None else f"{show(e, formula)} otherwise"
                for e, c in item.branches]
        return "{" + "; ".join(rows) + "}"
    return "?"
