"""The reader's new parts one by one: the document model, the one group scanner, the notation
tables, the remark rule and the answer choice on evidence."""

from __future__ import annotations

import numpy as np
import pytest

from a2.written.checker_registry import WrittenContext
from a2.written.checkers import all_written_checkers
from a2.written.documents import locate
from a2.written.evidence import reconsider
from a2.written.latex_doc import tex_to_markdown
from a2.written.sections import Section, parse_label
from grader.reading import braces
from grader.reading.answers import cut_remark, last_rhs, math_spans
from grader.reading.blocks import DISPLAY, HEADING, INLINE, PARAGRAPH, TABLE, read_blocks
from grader.reading.mathparse import parse_formula
from grader.reading.notation import to_latex
from grader.reading.tex_walk import answer_blocks, inputs, markers

QUESTIONS = {"1b_i", "1d", "1e", "2b_i", "3b", "3e_i", "3e_ii"}


def test_one_block_list_per_format_with_file_and_line():
    md = read_blocks("answers.md", "## 1(b)(i)\n\nSo $x$:\n\n$$a = b$$\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted $q$\n")
    kinds = [(b.kind, b.line) for b in md]
    assert (HEADING, 1) in kinds and (INLINE, 3) in kinds and (DISPLAY, 5) in kinds and (TABLE, 7) in kinds
    assert not any(b.text == "q" for b in md) and md[0].where == "answers.md, line 1"
    tex = read_blocks("q1.tex", "\\part[2] Prompt $\\gamma = p$\n\\answer{\nSo\n\\[ \\gamma = \\frac{1}{1-p} \\]\n}",
                      template=True)
    assert [(b.kind, b.text, b.line) for b in tex if b.kind == DISPLAY] == [(DISPLAY, "\\gamma = \\frac{1}{1-p}", 4)]
    assert not any("p" == b.text for b in tex if b.kind == INLINE)        # the prompt is never read
    plain = read_blocks("answers.txt", "b i)\ndJ/dv_c = U(y_hat - y)\n", plain=True)
    assert [(b.kind, b.line) for b in plain] == [(PARAGRAPH, 1), (PARAGRAPH, 2)]


def test_the_template_structure_comes_from_the_latex_parser():
    text = ("\\titledquestion{Understanding word2vec}[15]\n\\begin{parts}\n\\part[2] a\n\\begin{subparts}\n"
            "\\subpart[1] b \\answer{x {nested {deep}} \\} y}\n\\end{subparts}\n\\end{parts}")
    assert [m.kind for m in markers(text)] == ["question", "part", "subpart", "end_subparts", "end_parts"]
    assert markers(text)[0].title == "Understanding word2vec"
    assert [c for _, _, c in answer_blocks(text)] == ["x {nested {deep}} \\} y"]
    env = "\\begin{mdframed}[backgroundcolor=gray!10]\\begin{answer}[x] body \\end{answer}\\end{mdframed}"
    assert [c.strip() for _, _, c in answer_blocks(env)] == ["body"]
    main = "\\input{macros}\\begin{document}\\input{q1.tex} \\include{ q2 } {\\subfile{sub/q3}} \\input{a b}\\end{document}"
    assert inputs(main) == ["q1.tex", "q2", "sub/q3"]          # the body's, from the parser (not the preamble's)


@pytest.mark.parametrize(("text", "start", "end"), [
    ("{a{b}c}", 0, 6), ("{a\\}b}", 0, 5), ("{a\\\\}", 0, 4), ("(x(y))z", 0, 5), ("\\{a \\{b\\} c\\}", 0, 11), ("{open", 0, -1)])
def test_one_group_scanner(text, start, end):
    assert braces.closing(text, start) == end


def test_math_spans_come_from_the_group_scanner_with_its_escapes():
    # an inline formula may be hard-wrapped onto the next line, never over a blank line (a paragraph's end)
    text = "cost \\$5, $a$ and $$b = 1$$ \\[c\\] \\(d\\) \\begin{align*}e\\end{align*} $f\\$g$ $h -\ni$ $open\n\nline"
    spans = [(body, display) for _s, _e, body, display in braces.math_groups(text)]
    assert spans == [("a", False), ("b = 1", True), ("c", True), ("d", False), ("e", True), ("f\\$g", False),
                     ("h -\ni", False)]
    assert [(s.latex, s.start) for s in math_spans("x $y$")] == [("y", 2)]


def test_an_article_is_read_through_the_latex_parser():
    text = ("\\documentclass{article}\\newcommand{\\R}{\\mathbb{R}}\\begin{document}\n\\section*{Question 3}\n"
            "\\begin{enumerate}\\item[(b)] It takes $2n$ steps. % not $3n$\n\\end{enumerate}\n"
            "\\subsection*{3(f)}\n\\begin{enumerate}\n\\item \\textbf{Error type}: VP \\\\ {\\em wrong} a $\\to$ b\n"
            "\\item Modifier\n\\end{enumerate}\n\\begin{tabular}{ll} \\textbf{Stack} & x \\\\ \\hline 1 & 2 \\\\ \\end{tabular}\n"
            "\\[ \\gamma =\n \\frac{1}{2} \\]\n\\end{document}\n")
    markdown = tex_to_markdown(text)
    assert "mathbb" not in markdown and "3n" not in markdown             # no preamble, no comment
    assert "### (b)\n\nIt takes $2n$ steps." in markdown and "# Question 3" in markdown
    assert "## 3(f)" in markdown and "i. **Error type**: VP" in markdown and "ii. Modifier" in markdown
    assert "| **Stack** | x |\n|---|---|\n| 1 | 2 |" in markdown and "$$\\gamma = \\frac{1}{2}$$" in markdown
    found = locate([("solutions.tex", text)], QUESTIONS | {"3f"})
    assert "Modifier" in found.sections["3f"].body and "2n" in found.sections["3b"].body


def test_top_level_splits_leave_groups_and_cases_whole():
    assert braces.top_level_split(r"a = \begin{cases} b = 1 \end{cases} = c", ("=",)) == \
        ["a ", r" \begin{cases} b = 1 \end{cases} ", " c"]
    assert braces.opening("f(a(b))", 6) == 1


@pytest.mark.parametrize(("text", "latex"), [
    ("U(y_hat - y)", r"U( \hat{y} - y)"), ("Uy_hat", r"U \hat{y}"), ("(1 - p)^(-1)", "(1 - p)^{-1}"),
    ("1{(xW + b1)_i > 0} * W_ji", r"\mathbb{1}\{(xW + b_1)_i > 0\}  \cdot  W_ji"), ("U(ŷ − y)ᵀ", r"U(\hat{y} - y)^{T}"),
    ("gamma", r"\gamma "), (r"\hat{y}_i − y_i", r"\hat{y}_i - y_i")])
def test_notation_tables(text, latex):
    assert to_latex(text) == latex


def test_conditions_in_words_become_cases():
    assert "cases" in to_latex("W_ji if (xW + b1)_i > 0, else 0")
    assert "cases" in to_latex("ŷ_i − 1 if i = c, ŷ_i otherwise")
    assert parse_formula("W_ji if (xW + b1)_i > 0, else 0").placeholders


@pytest.mark.parametrize(("formula", "rhs"), [
    (r"\frac{\partial J}{\partial v_c} = U(\hat{y} - y) \quad \text{where } \hat{y} = \mathrm{softmax}(U^\top v_c)", r"U(\hat{y} - y)"),
    (r"h = \mathbb{1}\{z_i > 0\} W_{ji}, \quad z = xW + b_1", r"\mathbb{1}\{z_i > 0\} W_{ji}"),
    ("dCE/dl_i = ŷ_i − y_i (ŷ_c − 1 for the true class, ŷ_i otherwise)", "ŷ_i − y_i"),
    ("dJ/dv_c = U(y_hat - y), i.e. the gradient", "U(y_hat - y)"),
    ("x = y_hat_i - 1 if i = c, y_hat_i otherwise", "y_hat_i - 1 if i = c, y_hat_i otherwise"),
    (r"\gamma = \frac{1}{1-p_{\text{drop}}}", r"\frac{1}{1-p_{\text{drop}}}"),
    (r"W_{j,i}\,\mathbb{1}_{h_i > 0}", r"W_{j,i}\,\mathbb{1}_{h_i > 0}")])
def test_one_remark_rule_before_the_split(formula, rhs):
    assert last_rhs(formula) == rhs
    assert cut_remark("2n steps, since each word is shifted once") == "2n steps"


def test_labels_of_plain_text_and_never_ie():
    assert (parse_label("b i)", heading=True).letter, parse_label("b i)", heading=True).roman) == ("b", "i")
    assert parse_label("i.e. the result", heading=False) is None
    assert parse_label("e.g. this", heading=False) is None


def _ctx(question: str) -> WrittenContext:
    return WrittenContext(question, np.random.default_rng(0), 0)


def test_evidence_flags_instead_of_a_silent_zero_and_never_raises_a_score():
    checker = all_written_checkers()["grad_center"]
    wrong_last = Section("1b_i", "$$\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - y)$$\n\nAnswer: $U\\hat{y}$",
                         where="answers.md, line 3",
                         evidence=[["$$\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - y)$$", "answers.md, line 3", "1b_i"]])
    first = checker(wrong_last, _ctx("1b_i"))
    verdict = reconsider(checker, wrong_last, _ctx("1b_i"), first)
    assert verdict.passed == first.passed == 0 and "not the only formula" in verdict.review and "U(\\hat{y} - y)" in verdict.raw
    assert "scores more" in " ".join(verdict.why) and "scores more" not in verdict.review  # the review is shown at once
    # No section, but the writeup names the target elsewhere: read as a TA would, kept only when right;
    # a right step before a wrong final answer is never credited (the two disagree: flagged, 0).
    no_section = Section("1b_i", "", where="answers.md, line 9",
                         evidence=[["dJ/dv_c = U(y_hat - y)", "answers.md, line 9", ""]])
    verdict = reconsider(checker, no_section, _ctx("1b_i"), checker(no_section, _ctx("1b_i")))
    assert verdict.passed == verdict.total and "left-hand side names 1(b)(i)" in verdict.feedback[-1]
    step_then_wrong = Section("1b_i", "", where="answers.md, line 9",
                              evidence=[["dJ/dv_c = -u_o + U y_hat", "answers.md, line 7", ""],
                                        ["dJ/dv_c = U(y - y_hat)", "answers.md, line 9", ""]])
    verdict = reconsider(checker, step_then_wrong, _ctx("1b_i"), checker(step_then_wrong, _ctx("1b_i")))
    assert verdict.passed == 0 and verdict.review


def test_an_answer_under_a_neighbours_heading_is_read_by_its_left_hand_side():
    text = ("## 3(e)(i)\n\n$$\\frac{\\partial h_i}{\\partial x_j} = \\mathbb{1}\\{z_i > 0\\} W_{ji}$$\n\n#### Final Answer\n\n"
            "$$\\frac{\\partial CE}{\\partial l_i} = \\hat{y}_i - y_i$$\n\n## 3(e)(ii)\n\nSee the end of the previous answer.\n")
    found = locate([("answers.md", text)], QUESTIONS)
    section = found.sections["3e_ii"]
    checker = all_written_checkers()["softmax_ce_grad"]
    verdict = reconsider(checker, section, _ctx("3e_ii"), checker(section, _ctx("3e_ii")))
    assert verdict.passed == verdict.total and "left-hand side names 3(e)(ii)" in "\n".join(verdict.feedback)


def test_a_full_answer_contradicted_elsewhere_is_held_for_review():
    text = ("## 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = -u_o + U\\hat{y}$$\n\n## 1(c)\n\nFinal answer of (b)(i): "
            "$$\\frac{\\partial J}{\\partial v_c} = U\\hat{y}$$\n")
    section = locate([("answers.md", text)], QUESTIONS | {"1c"}).sections["1b_i"]
    checker = all_written_checkers()["grad_center"]
    first = checker(section, _ctx("1b_i"))
    verdict = reconsider(checker, section, _ctx("1b_i"), first)
    assert first.passed == 1 and verdict.passed == 0 and verdict.review.startswith("two different answers")


def test_an_unread_answer_read_past_is_flagged():
    body = ("$$z = xW + b_1$$\n\n$$\\frac{\\partial h_i}{\\partial x_j} = \\mathbb{1}\\{z_i > 0\\} W_{ji} \\oplus 1$$")
    verdict = all_written_checkers()["relu_jacobian"](Section("3e_i", body, where="answers.md, line 2"), _ctx("3e_i"))
    assert verdict.passed == 0 and "could not be read whole" in verdict.review
