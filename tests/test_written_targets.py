"""The one map from a variable to its question (a2/written/targets.py) and the section finder
that uses it. The entries two former copies of the map disagreed on (z_i, θ_i) are pinned to the
assignment's text (shared/ASSIGNMENT.md, Parts 2 and 3(e))."""

from __future__ import annotations

import pytest
from written_support import graded

from a2.written.documents import locate
from a2.written.targets import STEP, derivative_target, differentiated_by, lhs_target, question_of

QUESTIONS = {"1b_i", "1d", "1e", "2b_i", "3b", "3e_i", "3e_ii"}


@pytest.mark.parametrize("lhs, expected", [
    # 3(e)(ii) asks ∂CE(y, ŷ)/∂l_i with ŷ = softmax(l): l (ℓ) is the logits' only name.
    (r"\frac{\partial CE(y, \hat{y})}{\partial l_i}", "3e_ii"),
    (r"\frac{\partial J}{\partial \ell_i}", "3e_ii"),
    # 3(e)(i) asks ∂h_i/∂x_j for h = ReLU(xW + b1). Writeups call the pre-activation xW + b1 z
    # (the real writeup 001 in its 3(e)(i); the grader's own catalogue message for swapped
    # indices), so a derivative by z is a step of 3(e)(i)'s chain rule, never a final answer: not
    # the 3(e)(ii) answer the old targets map made of it.
    (r"\frac{\partial h_i}{\partial z_i}", STEP),
    (r"\frac{\partial z_i}{\partial x_j}", STEP),
    (r"\frac{\partial J}{\partial z}", STEP),
    ("∂CE/∂z_i", STEP),
    (r"\frac{\partial h_i}{\partial x_j}", "3e_i"),
    # θ is no question's variable here: Part 2 (Adam) names the model's parameters θ, and
    # 3(e)(ii)'s prompt writes the loss J(θ) = CE(y, ŷ) of those parameters. A gradient by θ
    # answers nothing (the old targets map read it as 3(e)(ii), the sections map as nothing).
    (r"\frac{\partial J}{\partial \theta}", None),
    (r"\frac{\partial CE(y, \hat{y})}{\partial \theta_i}", None),
    ("∂J/∂θ", None),
])
def test_what_a_derivative_answers(lhs, expected):
    assert lhs_target(lhs) == expected


@pytest.mark.parametrize("variable, expected", [
    ("z_i", ("3e_i", False)), (r"\mathbf{z}", ("3e_i", False)),
    (r"\theta_i", None), ("θ", None),
    (r"\ell", ("3e_ii", True)), (r"\mathbf{l}", ("3e_ii", True)),
])
def test_the_disputed_variables(variable, expected):
    assert differentiated_by(variable) == expected


@pytest.mark.parametrize("heading, body", [
    ("(e)(ii)", r"$$\frac{\partial h_i}{\partial z_i} = \mathbb{1}[z_i > 0]$$"),
    ("(e)(ii) Derivative with respect to $z_i$", "the loss is minimised"),
    ("(e)(i) Derivative with respect to $\\theta$", r"$$\frac{\partial J}{\partial \theta} = g$$"),
])
def test_a_step_or_parameter_variable_does_not_move_a_section(heading, body):
    assert derivative_target(heading, body) is None


@pytest.mark.parametrize("variable", ["v_c", "u_w", "u_{|V|}", r"\mathbf{U}", "x_j", r"\ell_i", "l"])
def test_the_section_finder_reads_the_same_map(variable):
    # u_{|V|} (the last column of ∂J/∂U's breakdown) was known to the formula map only.
    expected = question_of(variable)
    assert expected is not None
    num = "h_i" if expected == "3e_i" else "J"
    assert derivative_target("", rf"$$\frac{{\partial {num}}}{{\partial {variable}}} = 0$$") == expected
    assert derivative_target(f"Derivative with respect to ${variable}$", "") == expected
    assert lhs_target(rf"\frac{{\partial {num}}}{{\partial {variable}}}") == expected


_D_FROM_U = ("# 1. Understanding word2vec\n\n## (d)\n\nSince $\\frac{\\partial J}{\\partial U}$ is made of the columns "
             "$\\frac{\\partial J}{\\partial u_w}$, we compute each column.\n\n{d}\n\n## (e)\n\n"
             "$$\\frac{\\partial J}{\\partial U} = v_c (\\hat{y} - y)^\\top$$\n")


def test_a_1d_whose_first_derivative_is_du_but_whose_equations_are_1ds_stays_1d():
    """A (d) that names ∂J/∂U in its first sentence and answers ∂J/∂u_w in its equations is 1(d)
    (it was read as 1(e), dropped for the section labelled (e), and 1(d) read from loose equations)."""
    d = ("For $w = o$: $$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_o - 1) v_c$$\n\n"
         "For $w \\neq o$: $$\\frac{\\partial J}{\\partial u_w} = \\hat{y}_w v_c$$")
    sections = locate([("answers.md", _D_FROM_U.replace("{d}", d))], QUESTIONS | {"1c"}).sections
    assert "(\\hat{y}_o - 1) v_c" in sections["1d"].body and not sections["1d"].notes
    assert "v_c (\\hat{y} - y)^\\top" in sections["1e"].body and "u_w" not in sections["1e"].body
    # a (d) whose equations answer ∂J/∂U only (the Winter handouts' swapped numbering) still moves
    swapped = locate([("answers.md", _D_FROM_U.replace("{d}", "$$\\frac{\\partial J}{\\partial U} = v_c(\\hat{y} - y)^\\top$$")
                       .replace("## (e)\n\n$$\\frac{\\partial J}{\\partial U} = v_c (\\hat{y} - y)^\\top$$",
                                "## (e)\n\n$$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_w - y_w) v_c$$"))],
                     QUESTIONS | {"1c"}).sections
    assert "v_c(\\hat{y} - y)^\\top" in swapped["1e"].body and "(\\hat{y}_w - y_w) v_c" in swapped["1d"].body


def test_a_wrong_1d_under_a_du_sentence_is_judged_in_its_section_without_a_flag(tmp_path):
    d = ("For $w = o$: $$\\frac{\\partial J}{\\partial u_w} = (1 - \\hat{y}_o) v_c$$\n\n"
         "For $w \\neq o$: $$\\frac{\\partial J}{\\partial u_w} = -\\hat{y}_w v_c$$")
    got = graded(tmp_path, _D_FROM_U.replace("{d}", d))["1d"]
    assert got.score == 0 and not got.needs_review and got.written.where.startswith("answers.md, line 3")
