"""A marked answer that goes on to its conclusion is read at the conclusion: ``Answer: $step$, hence
$$final$$`` answers with the final formula when both name the same left-hand side; a remark after
the answer (``so $\\gamma > 1$``) or a formula after a blank line stays what it was."""

from __future__ import annotations

from written_support import graded


def test_a_marked_step_that_goes_on_to_its_conclusion_is_read_at_the_conclusion(tmp_path):
    got = graded(tmp_path, (
        "### 3(e)(ii)\n\n**Answer:** $\\frac{\\partial CE}{\\partial l_i} = -\\frac{\\partial}{\\partial l_i} "
        "\\log \\operatorname{softmax}(l)_c$, hence\n$$\\frac{\\partial CE}{\\partial l_i} = \\hat y_i - y_i$$\n\n"
        "### 1(b)(i)\n\nAnswer: $\\frac{\\partial J}{\\partial v_c} = -u_o + \\sum_w \\hat y_w u_w$, "
        "which gives $\\frac{\\partial J}{\\partial v_c} = U(\\hat y - y)$.\n"), "a2.md")
    assert (got["3e_ii"].score, got["3e_ii"].needs_review) == (3, False)
    assert got["3e_ii"].written.read.endswith("ŷ_i − y_i")
    assert got["1b_i"].written.read.endswith("U(ŷ − y)")


def test_a_remark_or_a_formula_after_a_blank_line_is_not_the_conclusion(tmp_path):
    got = graded(tmp_path, (
        "### 2(b)(i)\n\n**Answer:** $\\gamma = 1 - p_{drop}$, so $\\gamma > 1$.\n\n"
        "### 3(e)(ii)\n\n**Answer:** $\\frac{\\partial CE}{\\partial l_i} = y_i - \\hat y_i$, hence\n\n"
        "$$\\frac{\\partial CE}{\\partial l_i} = \\hat y_i - y_i$$ is what the handout's sign would give.\n"), "a2.md")
    assert got["2b_i"].score == 0 and got["2b_i"].written.read.endswith("1 − p_drop")
    assert got["3e_ii"].score < 3
