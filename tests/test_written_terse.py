"""Answers a careful TA reads without doubt, in shapes the reader flagged (issue 33, round 3):
z_i written out as a sum, an index as a superscript, a condition on the whole vector, the loss's
argument list without its name, terse plain-text answers (``Yhat``, ``Vc``, ``pdrop``, ``Wji``).
Each shape is graded as a whole upload would be, and a wrong answer in the same shape stays
below full.
"""

from __future__ import annotations

import pytest

from a2.written.grade import grade_written
from a2.written.process import InProcess
from grader.run.rubric import load_rubric

PARTS = load_rubric().written
RUNNER = InProcess()


def graded(tmp_path, text: str, name: str = "answers.md"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    results, _, _ = grade_written([path], PARTS, 5, runner=RUNNER)
    return {r.id: r for r in results}


def full(r) -> bool:
    return r.score >= r.max_score - 1e-9


RELU_HEAD = "### 3(e)(i)\n\n$$\\frac{\\partial h_i}{\\partial x_j} = "


# --- 3(e)(i): the pre-activation written out --------------------------------------------------

@pytest.mark.parametrize("answer", [
    "W_{j,i}\\cdot\\mathbb{I}\\left(\\sum_k x_k W_{k,i}+b_1^i>0\\right)",                # a sum, b_1's entry as b_1^i
    "\\begin{cases} W_{ji} & \\text{if } \\sum_k x_k W_{ki} + b_{1,i} > 0 \\\\ 0 & \\text{otherwise} \\end{cases}",
    "\\begin{cases} W_{j,i}, & \\text{if } \\mathbf{x} \\mathbf{W} + \\mathbf{b}_1 > 0 \\\\ 0, & \\text{otherwise} \\end{cases}",
])
def test_the_relu_condition_written_out_or_for_the_whole_vector_is_read(tmp_path, answer):
    r = graded(tmp_path, RELU_HEAD + answer + "$$\n")["3e_i"]
    assert full(r), r.outcome.feedback


@pytest.mark.parametrize("wrong", [
    "W_{ji}\\cdot\\mathbb{1}\\{\\sum_k x_k W_{kj} + b_1^i > 0\\}",      # the sum over the wrong column
    "W_{ji}\\cdot\\mathbb{1}\\{\\sum_k x_k W_{ki} > 0\\}",              # b_1 left out
    "\\begin{cases} W_{ji} & \\text{if } x > 0 \\\\ 0 & \\text{otherwise} \\end{cases}",   # the condition on x
])
def test_a_wrong_relu_condition_in_the_same_shapes_is_not_full(tmp_path, wrong):
    assert not full(graded(tmp_path, RELU_HEAD + wrong + "$$\n")["3e_i"])


# --- 1(d): the operator form with the loss's arguments and a case note ------------------------

def test_the_operator_form_on_the_losss_arguments_with_the_case_after_it(tmp_path):
    text = ("### 1(d)\n\n$$\\frac{\\partial}{\\partial u_o}J(v_c,o,U)=v_c(\\hat{y_o}-1)$$\n\n"
            "$$\\frac{\\partial}{\\partial u_w}(v_c,o,U)(w\\neq o)=\\frac{v_c\\exp(u_w^T v_c)}{\\sum_w\\exp(u_w^T v_c)}"
            "=v_c \\hat{y_w}$$\n")
    r = graded(tmp_path, text)["1d"]
    assert full(r) and not r.needs_review, r.outcome.feedback


def test_a_step_on_an_expression_is_still_a_step(tmp_path):
    text = ("### 1(d)\n\n$$\\frac{\\partial}{\\partial u_w}(u_o^T v_c) = 0$$\n\n"
            "$$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_w - y_w) v_c$$\n")
    assert full(graded(tmp_path, text)["1d"])
