"""An answer's sub-expressions evaluated once where a ``\\sum`` would evaluate them again.

Inside ``\\sum_{w}``, every term is evaluated once per value of ``w``; a part of it that does not
mention ``w`` (the normaliser ``\\sum_x \\exp(u_x^\\top v_c)`` under ``\\sum_w``) has the same value
each time, and a sum inside a sum made the reading of one formula |V|² evaluations.
:class:`KeptEvaluator` (which :func:`evaluator` gives a formula with a sum inside a sum; any other
is read by the plain evaluator, which keeping would only slow down) keeps the value of each
sub-expression evaluated inside a sum, under the values of the index letters it may mention (an
index letter is taken as mentioned when it is part of any name in the sub-expression, symbol or
function; a placeholder mentions them all) and the sum nesting: the same key is the same
computation, so the value and every message are those of :class:`grader.reading.evaluate.Evaluator`
(tests/test_kept_values.py). Nothing is kept beyond one formula at one instance.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from grader.reading.evaluate import Env, Evaluator, Value
from grader.reading.mathparse import PLACEHOLDER, Formula
from grader.reading.show import split_name

_MISSING = object()


def evaluator(formula: Formula, env: Env) -> Evaluator:
    """The evaluator of ``formula`` in ``env``: a :class:`KeptEvaluator` when a sum holds a sum."""
    nested = formula.normalised.count("\\sum") > 1 and any(      # two \sum at least (most formulas: none)
        inner is not outer for outer in formula.tree.atoms(sympy.Sum) for inner in outer.function.atoms(sympy.Sum))
    return KeptEvaluator(formula, env) if nested else Evaluator(formula, env)


class KeptEvaluator(Evaluator):
    """:class:`Evaluator`, keeping what a sum would evaluate again (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._kept: dict[tuple, Value] = {}
        self._names: dict[int, tuple[frozenset[str], bool]] = {}

    def eval(self, node: Any) -> Value:
        if not self._sum_depth or isinstance(node, (sympy.Symbol, sympy.Number)):
            return super().eval(node)
        key = (id(node), self._sum_depth, self._indices_of(node))
        value = self._kept.get(key, _MISSING)
        if value is _MISSING:
            value = self._kept[key] = super().eval(node)
        return value

    def _indices_of(self, node: Any) -> tuple:
        """The current index values ``node``'s value may depend on."""
        names, every = self._names_in(node)
        return tuple(sorted((k, v) for k, v in self.env.indices.items() if every or any(k in n for n in names)))

    def _names_in(self, node: Any) -> tuple[frozenset[str], bool]:
        found = self._names.get(id(node))
        if found is None:
            names: set[str] = set()
            every = False
            for sub in sympy.preorder_traversal(node):
                if isinstance(sub, sympy.Symbol):
                    names.add(sub.name)
                    every = every or split_name(sub.name)[0] == PLACEHOLDER
                elif isinstance(sub, AppliedUndef):
                    names.add(str(sub.func))
            found = self._names[id(node)] = (frozenset(names), every)
        return found
