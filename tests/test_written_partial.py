"""Partial credit a careful TA gives on a written formula: an answer in cases with one case right
(3(e)(ii)). The credit is declared once, in a2/written/catalogue.py; a wrong answer not in cases
that happens to be right in one case (ŷ_i − 1) earns nothing, and both cases wrong earn nothing.
"""

from __future__ import annotations

import pytest
from written_support import graded

CE_HEAD = "### 3(e)(ii)\n\n$$\\frac{\\partial CE}{\\partial l_i} = "


@pytest.mark.parametrize("rhs", [
    r"y_c \cdot \begin{cases} \hat{y}_c - 1 & i = c \\ \hat{y}_c & i \neq c \end{cases}",   # R3's shape
    r"\begin{cases} \hat{y}_i - 1 & \text{if } i = c \\ 0 & \text{otherwise} \end{cases}",
    r"\begin{cases} 1 - \hat{y}_i & i = c \\ \hat{y}_i & i \neq c \end{cases}",
])
def test_3e_ii_in_cases_with_one_case_right_gets_half(tmp_path, rhs):
    r = graded(tmp_path, CE_HEAD + rhs + "$$\n")["3e_ii"]
    assert r.score == pytest.approx(r.max_score / 2), (r.score, r.outcome.feedback, r.written.why)
    assert any("one case is right" in line for line in r.written.why)


@pytest.mark.parametrize(("rhs", "score"), [
    (r"\begin{cases} \hat{y}_i - 1 & i = c \\ \hat{y}_i & i \neq c \end{cases}", 1.0),
    (r"\begin{cases} \hat{y}_i & i = c \\ \hat{y}_i - 1 & i \neq c \end{cases}", 0.0),    # both wrong
    (r"\hat{y}_i - 1", 0.0),               # right at i = c by accident, not written in cases
    (r"\hat{y}_c - 1", 0.0),
])
def test_3e_ii_other_shapes_keep_their_score(tmp_path, rhs, score):
    r = graded(tmp_path, CE_HEAD + rhs + "$$\n")["3e_ii"]
    assert r.score == pytest.approx(score * r.max_score), (r.outcome.feedback, r.written.why)
