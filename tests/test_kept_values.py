"""grader/reading/kept_values.py: a sub-expression evaluated inside a sum is kept under the index
values it may mention, so a sum inside a sum is not |V|² evaluations; every value and every error
must be the plain Evaluator's.
"""

from __future__ import annotations

import numpy as np

from a2.written import instances
from grader.reading import kept_values
from grader.reading.evaluate import Evaluator
from grader.reading.kept_values import KeptEvaluator
from grader.reading.mathparse import parse_formula

SUMS = [
    r"-u_o + \sum_{w} \frac{\exp(u_w^T v_c)}{\sum_{x}\exp(u_x^T v_c)} u_w",
    r"\sum_{w} \hat{y}_w u_w - u_o", r"\sum_w (\hat y_w - y_w) u_w", r"\sum_{w} \mathbb{1}\{w = o\} u_w",
    r"\sum_w \sum_x \mathbb{1}\{x = w\} u_x", r"\sum_a\sum_b\sum_c 1", r"\sum_w \hat y_w u_w \sum_x \hat y_x",
    r"\sum_{w} (\hat{y}_w - \mathbb{1}\{w=o\}) u_w", r"\sum_w \frac{\exp(u_w^T v_c)}{\sum_x \exp(u_x^T v_c)} (u_w - u_o)",
    r"\sum_{k} W_{jk} \mathbb{1}\{z_k > 0\}", r"\sum_{j} \mathbb{1}\{i = j\} (\hat y_j - y_j)", r"\sum_w w",
    r"\sum_w \sum_x \hat y_w \hat y_x u_w", r"\sum_{w} v_c (\hat y_w)",
]
QUESTIONS = [instances.CENTER, instances.OUTSIDE_EQ, instances.MATRIX, instances.RELU, instances.SOFTMAX_CE]


def _read(cls, formula, env):
    try:
        return "value", np.asarray(cls(formula, env).value(), dtype=float)
    except Exception as exc:  # the error itself is compared
        return type(exc).__name__, str(exc)


def disagreements() -> tuple[int, list[str]]:
    """(values read, formulas whose kept reading differs from the plain one somewhere)."""
    values, differ = 0, []
    for latex in SUMS:
        formula = parse_formula(latex)
        for question in QUESTIONS:
            rng = np.random.default_rng(3)
            for k in range(4):
                env = question.make(rng, k).env
                plain, kept = _read(Evaluator, formula, env), _read(KeptEvaluator, formula, env)
                values += plain[0] == "value"
                same = plain[0] == kept[0] and (np.array_equal(plain[1], kept[1], equal_nan=True)
                                                if plain[0] == "value" else plain[1] == kept[1])
                if not same:
                    differ.append(f"{latex} ({question.what})")
    return values, differ


def test_kept_values_are_the_plain_evaluator_s():
    values, differ = disagreements()
    assert values >= 100 and differ == []


def test_a_sum_inside_a_sum_is_evaluated_once_per_value_of_its_own_index():
    formula = parse_formula(r"-u_o + \sum_{w} \frac{\exp(u_w^T v_c)}{\sum_{x}\exp(u_x^T v_c)} u_w")
    env = instances.CENTER.make(np.random.default_rng(0), 0).env
    counts = {}
    for cls in (Evaluator, KeptEvaluator):
        class Counting(cls):
            sums = 0

            def sum(self, node):
                Counting.sums += 1
                return super().sum(node)
        Counting(formula, env).value()
        counts[cls.__name__] = Counting.sums
    assert counts == {"Evaluator": 1 + env.sum_range, "KeptEvaluator": 2}


def test_a_key_without_the_index_values_is_caught(monkeypatch):
    """Planted control: values kept whatever the index values are give the first term's value to every term."""
    monkeypatch.setattr(kept_values.KeptEvaluator, "_indices_of", lambda self, node: ())
    assert disagreements()[1]


def test_only_a_formula_with_a_sum_inside_a_sum_is_read_with_kept_values():
    env = instances.CENTER.make(np.random.default_rng(0), 0).env
    chosen = {latex: type(kept_values.evaluator(parse_formula(latex), env)).__name__ for latex in
              (SUMS[0], r"\sum_{w} \hat{y}_w u_w - u_o",
               r"\sum_w \hat y_w u_w \sum_x \hat y_x", r"U(\hat y - y)")}
    assert chosen == {SUMS[0]: "KeptEvaluator", r"\sum_{w} \hat{y}_w u_w - u_o": "Evaluator",
                      r"\sum_w \hat y_w u_w \sum_x \hat y_x": "KeptEvaluator", r"U(\hat y - y)": "Evaluator"}
