"""A double sum written ``\\sum_w \\sum_x f`` is a sum over w of a sum over x (latex2sympy, and SymPy
itself, make it ONE ``Sum`` with two limits), so every index is summed: never one index left at the
question's own value (1(d)'s w) or unread; and it is shown with both signs."""

from __future__ import annotations

import numpy as np
import pytest

from a2.written import instances
from grader.reading.evaluate import Evaluator
from grader.reading.mathparse import parse_formula
from grader.reading.show import show

DOUBLE = r"\sum_w \sum_x \hat y_w \hat y_x u_x"
PRODUCT = r"\left(\sum_w \hat y_w\right) \left(\sum_x \hat y_x u_x\right)"


@pytest.mark.parametrize("question", [instances.CENTER, instances.OUTSIDE_EQ], ids=["1b_i", "1d"])
def test_a_double_sum_sums_both_indices(question):
    for seed in range(5):
        env = question.make(np.random.default_rng(seed), seed).env
        double = np.asarray(Evaluator(parse_formula(DOUBLE), env).value(), dtype=float)
        product = np.asarray(Evaluator(parse_formula(PRODUCT), env).value(), dtype=float)
        assert double.shape == product.shape and np.allclose(double, product), (seed, double, product)


def test_a_double_sum_is_shown_with_both_signs():
    assert show(parse_formula(DOUBLE).tree).startswith("Σ_w Σ_x ")
