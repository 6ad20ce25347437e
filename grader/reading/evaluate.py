"""Evaluate a parsed answer numerically: symbols -> arrays with the assignment's shapes.

The tree from :mod:`grader.reading.mathparse` is walked node by node (nothing is compiled or
``eval``-ed). Products are matrix products taken left to right with numbers and 1×1 results as
scalars; a product or sum whose shapes do not fit raises :class:`ShapeMismatch`, whose message
names the offending sub-expression, the shapes involved and the question's convention
("U^T(ŷ−y): Uᵀ is |V|×d, ŷ − y has |V| rows; ...").

Which names exist is the question's business: an :class:`Env` maps canonical symbol names to
arrays (``U``, ``v_c``, ``yhat``), names whose subscripts are indices (``yhat_o``, ``W_{ji}``,
``u_w``), index letters (``i``, ``o``, ``w``) and the range of a ``\\sum``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy
from sympy.core.relational import Relational

from grader.reading.latex_tables import FUNCTIONS
from grader.reading.mathparse import PLACEHOLDER, Cases, Formula, IndexOf, Indicator
from grader.reading.numeric import softmax
from grader.reading.show import display_name, show, split_name

MAX_SUM_NESTING = 2
"""Sums inside sums inside sums are not evaluated (each level multiplies the work)."""


class EvalError(ValueError):
    """The answer parsed but cannot be evaluated here; the message is for the student."""


UNEVALUABLE = (ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError, np.linalg.LinAlgError)
"""What evaluating an accepted formula of unexpected shape or arity may raise below this module
(numpy's broadcasting, sympy's accessors); each becomes an :class:`EvalError` for the student."""


class ShapeMismatch(EvalError):
    """A product or sum whose operands' shapes do not fit."""


@dataclass(frozen=True)
class Index:
    """An index letter's value (``o``, ``w``, ``i``...), 0-based."""

    value: int


Value = Any   # float | np.ndarray (2-D) | Index


@dataclass
class Env:
    """What the symbols of one question mean at one random point.

    arrays: canonical name -> float or 2-D array (``"U"``, ``"v_c"``, ``"yhat"``, ``"b_1"``);
    families: base name -> function of the index values (``"u"`` -> column of U);
    indices: index letter -> 0-based value; sum_range: values a ``\\sum`` index runs over;
    dims: array size -> its name in messages (``{5: "d", 9: "|V|"}``); convention: the sentence
    a shape message ends with; allowed: the names a student may use, for messages; implied: the
    index a condition on a whole vector of that shape is read at, in a per-entry answer
    (``W_ji if xW + b_1 > 0``: 3(e)(i)'s h_i is entry i of the 1×D_h vector).
    """

    arrays: dict[str, Any]
    indices: dict[str, int] = field(default_factory=dict)
    families: dict[str, Callable[..., Any]] = field(default_factory=dict)
    sum_range: int = 0
    dims: dict[int, str] = field(default_factory=dict)
    convention: str = ""
    allowed: str = ""
    implied: dict[tuple[int, int], str] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Evaluation.

def is_scalar(value: Value) -> bool:
    return isinstance(value, float) or (isinstance(value, np.ndarray) and value.size == 1)


def as_scalar(value: Value) -> float:
    return float(value) if isinstance(value, float) else float(np.asarray(value).reshape(-1)[0])


class Evaluator:
    """Evaluates one formula in one environment; raise EvalError/ShapeMismatch with a message."""

    def __init__(self, formula: Formula, env: Env) -> None:
        self.formula = formula
        self.env = env
        self._sum_depth = 0

    # shapes in words -------------------------------------------------------------------------
    def dim(self, n: int) -> str:
        return self.env.dims.get(n, str(n))

    def shape(self, value: Value) -> str:
        if is_scalar(value):
            return "a number"
        rows, cols = value.shape
        return f"{self.dim(rows)}×{self.dim(cols)}"

    def _mismatch(self, message: str) -> ShapeMismatch:
        tail = f"; {self.env.convention}" if self.env.convention else ""
        return ShapeMismatch(message + tail)

    # the walk --------------------------------------------------------------------------------
    def value(self) -> Value:
        tree = self.formula.tree
        if isinstance(tree, Relational):
            raise EvalError("this is an equation or comparison, not an expression")
        try:
            with np.errstate(all="ignore"):
                out = self.eval(tree)
        except EvalError:
            raise
        except UNEVALUABLE as exc:
            # A construct the reader accepts but this walk cannot give a value (a function of
            # arrays that do not fit, an argument missing, an index past the end...): the
            # student's formula cannot be read here, never a grader error.
            raise EvalError(f"{show(tree, self.formula)} cannot be evaluated here ({type(exc).__name__}: "
                            f"{str(exc)[:200]}); write it with the question's symbols, one operation at a time") from None
        if isinstance(out, Index):
            return float(out.value)
        return out

    def eval(self, node: Any) -> Value:
        if isinstance(node, sympy.Symbol):
            return self.symbol(node)
        if node is sympy.S.ImaginaryUnit:
            raise EvalError("I is read as the imaginary unit, which no answer here needs")
        if isinstance(node, sympy.Number) or isinstance(node, sympy.NumberSymbol) or node in (sympy.E, sympy.pi):
            try:
                return float(node)
            except (OverflowError, TypeError, ValueError):
                raise EvalError(f"the number {show(node)} is too large to evaluate") from None
        if isinstance(node, sympy.Add):
            return self.add(node)
        if isinstance(node, sympy.Mul):
            return self.mul(node)
        if isinstance(node, sympy.Pow):
            return self.pow(node)
        if isinstance(node, sympy.Sum):
            return self.sum(node)
        if isinstance(node, Relational):
            raise EvalError(f"a comparison ({show(node, self.formula)}) where a value was expected")
        name = node.__class__.__name__
        if name == "transpose":
            inner = self.eval(node.args[0])
            return inner if is_scalar(inner) or isinstance(inner, Index) else inner.T
        if name in ("exp", "log", "Abs", "Max", "Min", "sqrt", "sigmoid", "\\sigma", "tanh") or isinstance(
                node, sympy.core.function.AppliedUndef) and str(node.func) in ("\\sigma", "sigma", *FUNCTIONS.values()):
            return self.function(node)
        if isinstance(node, sympy.core.function.AppliedUndef) and len(node.args) == 1:
            # v_c (ŷ_w): a name of the question before a bracket multiplies it (the grammar reads a call)
            with sympy.evaluate(False):
                product = sympy.Mul(sympy.Symbol(str(node.func), commutative=False), node.args[0])
            return self.mul(product)
        raise EvalError(f"{show(node, self.formula)} uses {name}, which is not read in answers here")

    def number(self, value: Value, node: Any) -> Value:
        if isinstance(value, Index):
            return float(value.value)
        return value

    def add(self, node: Any) -> Value:
        total: Value = None
        first: Any = None
        for term in node.args:
            value = self.number(self.eval(term), term)
            if total is None:
                total, first = value, term
                continue
            if is_scalar(total) and is_scalar(value):
                total = as_scalar(total) + as_scalar(value)
            elif not is_scalar(total) and not is_scalar(value) and total.shape == value.shape:
                total = total + value
            else:
                raise self._mismatch(
                    f"{show(node, self.formula)}: {show(first, self.formula)} is {self.shape(total)} "
                    f"but {show(term, self.formula)} is {self.shape(value)}, and only terms of the "
                    "same shape can be added")
            first = sympy.Add(first, term, evaluate=False)
        return total

    def mul(self, node: Any) -> Value:
        acc: Value = 1.0
        shown: list[Any] = []
        for factor in node.args:
            value = self.number(self.eval(factor), factor)
            if is_scalar(value) or is_scalar(acc):
                if is_scalar(value) and is_scalar(acc):
                    acc = as_scalar(acc) * as_scalar(value)
                elif is_scalar(value):
                    acc = acc * as_scalar(value)
                else:
                    acc = as_scalar(acc) * value
            else:
                if acc.shape[1] != value.shape[0]:
                    left = sympy.Mul(*shown, evaluate=False) if len(shown) > 1 else shown[0]
                    raise self._mismatch(
                        f"{show(node, self.formula)}: {show(left, self.formula)} is {self.shape(acc)} and "
                        f"{show(factor, self.formula)} has {self.dim(value.shape[0])} rows, so they cannot "
                        "be multiplied")
                acc = acc @ value
                if acc.size == 1:
                    acc = float(acc.reshape(-1)[0])
            shown.append(factor)
        return acc

    def pow(self, node: Any) -> Value:
        base = self.number(self.eval(node.base), node.base)
        if isinstance(node.exp, sympy.Symbol) and node.exp.name in self.env.indices and not is_scalar(base) \
                and 1 in np.shape(base):
            # b_1^i: an index written as a superscript names an entry of a vector, as b_{1,i} does
            return self.entry(str(node.base), base, [node.exp.name], str(node))
        exponent = self.number(self.eval(node.exp), node.exp)
        if not is_scalar(exponent):
            raise EvalError(f"{show(node, self.formula)}: an exponent must be a number")
        e = as_scalar(exponent)
        if is_scalar(base):
            b = as_scalar(base)
            try:
                return float(np.float64(b) ** np.float64(e))
            except (OverflowError, ZeroDivisionError):
                return math.inf
        if e == 1:
            return base
        raise EvalError(f"{show(node, self.formula)}: a {self.shape(base)} array raised to a power is not "
                        "defined here (write products explicitly)")

    def function(self, node: Any) -> Value:
        args = [self.number(self.eval(a), a) for a in node.args]
        name = node.__class__.__name__
        if isinstance(node, sympy.core.function.AppliedUndef):
            name = str(node.func).lstrip("\\")
        arrays = [np.asarray(a, dtype=float) if not is_scalar(a) else as_scalar(a) for a in args]
        if not arrays:
            raise EvalError(f"{show(node, self.formula)}: {name} needs an argument")
        shapes = {np.shape(a) for a in arrays if not is_scalar(a)}
        if len(shapes) > 1:
            raise self._mismatch(f"{show(node, self.formula)}: the arguments of {name} are "
                                 f"{', '.join(self.shape(a) for a in arrays)}, and {name} takes numbers or arrays "
                                 "of one shape")
        out: Value
        if name == "exp":
            out = np.exp(arrays[0])
        elif name == "log":
            out = np.log(arrays[0])       # \log is the natural logarithm in this course
        elif name == "Abs":
            out = np.abs(arrays[0])
        elif name in ("sqrt",):
            out = np.sqrt(arrays[0])
        elif name in ("sigma", "sigmoid"):
            out = 1.0 / (1.0 + np.exp(-np.asarray(arrays[0])))
        elif name == "tanh":
            out = np.tanh(arrays[0])
        elif name == "mathrm{softmax}" and not is_scalar(arrays[0]) and min(np.shape(arrays[0])) == 1:
            out = softmax(np.asarray(arrays[0]).reshape(-1)).reshape(np.shape(arrays[0]))   # over its entries
        elif name in ("Max", "Min"):
            fn = np.maximum if name == "Max" else np.minimum
            out = arrays[0]
            for a in arrays[1:]:
                out = fn(out, a)
        else:
            raise EvalError(f"the function {name} is not read in answers here")
        return float(out) if np.ndim(out) == 0 else np.asarray(out, dtype=float)

    def sum(self, node: Any) -> Value:
        if self._sum_depth + len(node.limits) > MAX_SUM_NESTING:
            raise EvalError("sums nested more than two deep are not evaluated")
        if not self.env.sum_range:
            raise EvalError(f"{show(node, self.formula)}: this answer needs no sum; give the vectorised form")
        names = [str(limit[0]) for limit in node.limits]     # \sum_w \sum_x f is ONE Sum over (x, w)
        saved = dict(self.env.indices)
        self._sum_depth += len(names)
        total: Value = None
        try:
            for ks in np.ndindex(*[self.env.sum_range] * len(names)):
                self.env.indices.update(zip(names, ks))
                value = self.number(self.eval(node.function), node.function)
                if total is None:
                    total = value
                elif is_scalar(total) and is_scalar(value):
                    total = as_scalar(total) + as_scalar(value)
                elif not is_scalar(total) and not is_scalar(value) and total.shape == value.shape:
                    total = total + value
                else:
                    raise self._mismatch(f"{show(node, self.formula)}: the terms of the sum change shape")
        finally:
            self._sum_depth -= len(names)
            self.env.indices.clear()
            self.env.indices.update(saved)
        return total

    # symbols -------------------------------------------------------------------------------
    def index_value(self, token: str, name: str) -> int:
        if token in self.env.indices:
            return self.env.indices[token]
        if token.isdigit():
            return int(token) - 1
        raise EvalError(f"{display_name(name)}: the subscript {token!r} is not an index this question uses"
                        + (f" ({', '.join(sorted(self.env.indices))})" if self.env.indices else ""))

    def symbol(self, node: sympy.Symbol) -> Value:
        name = node.name
        base, tokens = split_name(name)
        arrays = self.env.arrays
        if base == PLACEHOLDER:
            return self.placeholder("".join(tokens))
        full = base + ("_" + "".join(tokens) if tokens else "")
        if full in arrays:
            return arrays[full]
        if tokens and len(tokens) > 1 and f"{base}_{tokens[0]}" in arrays:
            return self.entry(f"{base}_{tokens[0]}", arrays[f"{base}_{tokens[0]}"], tokens[1:], name)
        if tokens and f"{base}_{tokens[0]}" in self.env.families and len(tokens) > 1:
            return self.env.families[f"{base}_{tokens[0]}"](*[self.index_value(t, name) for t in tokens[1:]])
        if base == "varsigma" and len(tokens) == 1 and self.env.sum_range:   # e_o (notation.ONE_HOT_SYMBOL): one-hot at o
            return np.eye(self.env.sum_range)[:, [self.index_value(tokens[0], name)]]
        if base == "delta" and len(tokens) == 2:
            a, b = (self.index_value(t, name) for t in tokens)
            return 1.0 if a == b else 0.0
        if tokens and base in self.env.families:
            return self.env.families[base](*[self.index_value(t, name) for t in tokens])
        if tokens and base in arrays:
            return self.entry(base, arrays[base], tokens, name)
        if not tokens and base in self.env.indices:
            return Index(self.env.indices[base])
        allowed = f" Names this answer can use: {self.env.allowed}." if self.env.allowed else ""
        raise EvalError(f"the symbol {display_name(name)} is not part of this question's notation.{allowed}")

    def entry(self, base: str, array: Any, tokens: list[str], name: str) -> Value:
        idx = [self.index_value(t, name) for t in tokens]
        if is_scalar(array):
            raise EvalError(f"{display_name(name)}: {display_name(base)} is a number and has no entries")
        rows, cols = array.shape
        try:
            if len(idx) == 1 and (rows == 1 or cols == 1):
                return float(array.reshape(-1)[idx[0]])
            if len(idx) == 2:
                return float(array[idx[0], idx[1]])
        except IndexError:
            raise self._mismatch(f"{display_name(name)}: {display_name(base)} is {self.shape(array)}, so this "
                                 "index is out of range (check the order of the subscripts)") from None
        raise EvalError(f"{display_name(name)}: {display_name(base)} is {self.shape(array)} and needs "
                        f"{1 if rows == 1 or cols == 1 else 2} subscript(s)")

    def placeholder(self, key: str) -> Value:
        item = self.formula.placeholders.get(key)
        if item is None:
            raise EvalError("the symbol Ω is not part of this question's notation")
        if isinstance(item, Indicator):
            return 1.0 if self.condition(item.condition) else 0.0
        if isinstance(item, IndexOf):
            inner = self.number(self.eval(item.inner), item.inner)
            if is_scalar(inner):
                raise EvalError(f"{item.source}: a number has no entries")
            tokens = list(item.indices)
            return self.entry("(…)", inner, tokens, f"({show(item.inner, self.formula)})_{item.indices}")
        if isinstance(item, Cases):
            for expr, cond in item.branches:
                if cond is None or self.condition(cond):
                    return self.eval(expr)
            raise EvalError(f"{item.source}: no case applies here (add an 'otherwise' case)")
        raise EvalError("an unknown construct")

    def implied_entry(self, value: Value) -> Value:
        """A whole vector compared in a condition, read at the entry the answer is about
        (:attr:`Env.implied`); any other value as it is."""
        index = self.env.implied.get(np.shape(value)) if not is_scalar(value) else None
        return value if index is None else float(np.asarray(value).reshape(-1)[self.env.indices[index]])

    def condition(self, cond: Any) -> bool:
        if cond is None:
            return True
        if isinstance(cond, (sympy.And, sympy.Or)):
            parts = [self.condition(c) for c in cond.args]
            return all(parts) if isinstance(cond, sympy.And) else any(parts)
        if not isinstance(cond, Relational):
            raise EvalError(f"{show(cond, self.formula)} is not a condition")
        a = self.eval(cond.lhs)
        b = self.eval(cond.rhs)
        a = float(a.value) if isinstance(a, Index) else self.implied_entry(a)
        b = float(b.value) if isinstance(b, Index) else self.implied_entry(b)
        if not (is_scalar(a) and is_scalar(b)):
            raise EvalError(f"{show(cond, self.formula)}: a condition must compare numbers")
        x, y = as_scalar(a), as_scalar(b)
        op = cond.rel_op
        return {"==": x == y, "!=": x != y, ">": x > y, ">=": x >= y, "<": x < y, "<=": x <= y}[op]


def evaluate(formula: Formula, env: Env) -> Value:
    """The value of ``formula`` in ``env`` (a float or a 2-D array)."""
    return Evaluator(formula, env).value()
