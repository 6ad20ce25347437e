"""grader.reading.mathparse / evaluate: LaTeX -> ordered SymPy tree -> values with shapes."""

from __future__ import annotations

import builtins

import numpy as np
import pytest
import sympy
from latex2sympy2_extended import latex2sympy2

from grader.reading.evaluate import Env, EvalError, ShapeMismatch, evaluate, show
from grader.reading.mathparse import MAX_FORMULA_CHARS, FormulaError, clear_parse_cache, parse_formula

RNG = np.random.default_rng(7)
D, V = 4, 9
U = RNG.normal(size=(D, V))
VC = RNG.normal(size=(D, 1))
YHAT = RNG.dirichlet(np.ones(V)).reshape(-1, 1)
Y = np.eye(V)[:, [2]]
ENV = Env({"U": U, "v_c": VC, "yhat": YHAT, "y": Y, "u_o": U[:, [2]], "p": 0.3, "n": 7.0},
          {"o": 2, "w": 5}, families={"u": lambda k: U[:, [k]]}, sum_range=V,
          dims={D: "d", V: "|V|"}, convention="U's columns are the outside vectors")


def value(latex: str):
    return evaluate(parse_formula(latex), Env(**{**ENV.__dict__, "indices": dict(ENV.indices)}))


@pytest.mark.parametrize("latex", [
    r"U(\hat{y} - y)", r"\mathbf{U}(\hat{\mathbf{y}} - \mathbf{y})", r"\boldsymbol{U}\left(\hat{\boldsymbol{y}} - \boldsymbol{y}\right)",
    r"U\hat y - U y", "U(ŷ − y)", r"-\mathbf{u}_o + \sum_{w \in V} \hat{y}_w \mathbf{u}_w", r"-u_o + \sum_{w=1}^{|V|} \hat y_w u_w",
    r"\left((\hat y - y)^\top U^\top\right)^T", r"-U(y - \hat{y})", r"\displaystyle U\,(\hat{y}-y)",
])
def test_equivalent_forms_of_the_center_gradient_have_the_same_value(latex):
    np.testing.assert_allclose(value(latex), U @ (YHAT - Y))


@pytest.mark.parametrize("latex", [r"\frac{1}{1-p}", r"(1-p_{drop})^{-1}", "1/(1-p)", r"\frac{1}{1 - p_{\text{drop}}}",
                                   r"\dfrac{1}{1-p_\mathrm{drop}}", r"\left(1 - p\right)^{-1}", "1/(1 − p_drop)"])
def test_gamma_forms(latex):
    assert value(latex) == pytest.approx(1 / 0.7)


def test_products_keep_their_order_and_report_shapes_with_the_convention():
    assert value(r"v_c (\hat y - y)^T").shape == (D, V)
    with pytest.raises(ShapeMismatch) as info:
        value(r"\mathbf{U}^\top (\hat{\mathbf{y}} - \mathbf{y})")
    message = str(info.value)
    assert "Uᵀ(ŷ − y): Uᵀ is |V|×d and ŷ − y has |V| rows" in message
    assert "U's columns are the outside vectors" in message
    with pytest.raises(ShapeMismatch, match="only terms of the same shape can be added"):
        value(r"U + v_c")


@pytest.mark.parametrize("latex, expected", [
    (r"\mathbb{1}\{o = 2\}", 1.0), (r"\mathbf{1}[w = o]", 0.0), (r"1[w \neq o]", 1.0), (r"[w > o]", 1.0),
    (r"\mathbb{1}_{o = 2}", 1.0), (r"\delta_{wo}", 0.0), (r"\delta_{oo}", 1.0),
    (r"\begin{cases} 5 & w = o \\ 7 & \text{otherwise} \end{cases}", 7.0),
    (r"\begin{cases} 5, & \text{if } w \neq o \\ 7, & \text{else} \end{cases}", 5.0),
    (r"\text{ReLU}'(n - 8)", 0.0), (r"ReLU'(n)", 1.0), (r"(\hat y)_{o}", float(YHAT[2, 0])),
])
def test_indicators_cases_and_indexing(latex, expected):
    assert value(latex) == pytest.approx(expected)


def test_unknown_symbols_and_constructs_are_reported_not_guessed():
    with pytest.raises(EvalError, match="the symbol Q is not part of this question's notation"):
        value("Q v_c")
    with pytest.raises(FormulaError, match="element-wise"):
        parse_formula(r"a \odot b")
    with pytest.raises(EvalError, match="comparison"):
        value(r"w = o")


def test_show_is_readable():
    f = parse_formula(r"\frac{1}{1-p} + (\hat{y}_o - 1)\mathbf{v}_c^\top")
    assert show(f.tree, f) == "1/(1 − p) + (ŷ_o − 1)v_cᵀ"


@pytest.mark.parametrize("latex, problem", [
    ("x" * (MAX_FORMULA_CHARS + 1), "characters long"),
    ("(" * 200 + "p" + ")" * 200, "nests brackets"),
    ("{" * 5000 + "p" + "}" * 5000, "characters long"),
])
def test_oversized_formulas_are_refused_quickly(latex, problem):
    with pytest.raises(FormulaError, match=problem):
        parse_formula(latex)


def test_huge_numbers_evaluate_to_inf_without_computing_them():
    assert value(r"10^{10^{10^{10}}} p") == np.inf
    assert value(r"n^{n^{n^{n^{n}}}}") == np.inf


def test_student_text_is_never_evaluated(monkeypatch):
    """Parsing and evaluating never reach eval/exec/sympify/parse_expr."""
    def forbidden(*args, **kwargs):
        raise AssertionError("student text reached an evaluator")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    monkeypatch.setattr(sympy, "sympify", forbidden)
    monkeypatch.setattr(sympy.parsing.sympy_parser, "parse_expr", forbidden)
    monkeypatch.setattr(latex2sympy2, "parse_expr", forbidden)
    clear_parse_cache()           # parse for real, not from an earlier test's kept parse
    for latex in (r"U(\hat y - y)", r"__import__('os').system('true')", r"\frac{1}{1-p}",
                  r"\mathbb{1}\{z_i > 0\} W_{ji}", r"\text{eval}(1)", "lambda: 0"):
        try:
            value(latex)
        except (FormulaError, EvalError):
            pass
