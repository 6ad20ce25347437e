"""Named functions in answers (grader/reading/latex_tables.py ``FUNCTIONS``): ``softmax(l)_i`` in any
style is the entry of the call, computed by the evaluator, never the letters s·o·f·t·m·a·x times an
entry of (l). The issue's class: "softmax(l)_i − 1[i = c]" for 3(e)(ii) was refused and flagged.
"""

from __future__ import annotations

import pytest
from written_support import full, graded

from grader.reading.evaluate import show
from grader.reading.mathparse import parse_formula


def _ce(tmp_path, answer: str):
    return graded(tmp_path, "## 3(e)(ii)\n\n$$\\frac{\\partial CE}{\\partial l_i} = " + answer + "$$\n")["3e_ii"]


@pytest.mark.parametrize("answer", [
    r"\operatorname{softmax}(l)_i - y_i",
    r"\mathrm{Softmax}\left(l\right)_{i} - \mathbb{1}[i = c]",
    r"\text{softmax}(\boldsymbol{l})_i - \delta_{ic}",
    r"softmax(l)_i - y_i",
    r"-y_i + \operatorname{softmax}(l)_{i}",
])
def test_softmax_of_the_logits_indexed_is_read_and_right(tmp_path, answer):
    r = _ce(tmp_path, answer)
    assert full(r) and not r.needs_review, r.outcome.feedback


@pytest.mark.parametrize("answer", [
    r"\operatorname{softmax}(l)_c - y_i",         # the wrong entry
    r"y_i - \operatorname{softmax}(l)_i",         # the sign
    r"\operatorname{softmax}(y)_i - y_i",         # softmax of the wrong vector
    r"\operatorname{softmax}(l)_i",               # no label term
])
def test_wrong_answers_with_softmax_stay_below_full(tmp_path, answer):
    r = _ce(tmp_path, answer)
    assert r.score == 0, r.outcome.feedback


def test_softmax_is_shown_as_written():
    f = parse_formula(r"\operatorname{softmax}(l)_i - y_i")
    assert show(f.tree, f) == "(softmax(l))_i − y_i"
