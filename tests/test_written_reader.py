"""The reader's new parts one by one: the document model, the one group scanner, the notation
tables, the remark rule and the answer choice on evidence."""

from __future__ import annotations

import numpy as np
import pytest
from written_support import full, graded

from a2.written.checker_registry import WrittenContext
from a2.written.checkers import all_written_checkers
from a2.written.documents import locate
from a2.written.evidence import reconsider
from a2.written.latex_doc import outline
from a2.written.sections import Section, parse_label
from a2.written.tables import table_rows
from grader.reading import braces
from grader.reading.answers import cut_remark, math_spans
from grader.reading.blocks import DISPLAY, HEADING, INLINE, PARAGRAPH, TABLE, read_blocks
from grader.reading.mathparse import parse_formula
from grader.reading.notation import to_latex
from grader.reading.sides import last_rhs
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
    markdown, (markers, _) = outline(text)
    assert "mathbb" not in markdown and "3n" not in markdown             # no preamble, no comment
    assert "(b)\n\nIt takes $2n$ steps." in markdown and "#" not in markdown     # headings are markers, not Markdown
    assert [(m.heading, m.level, m.is_heading) for m in markers if m.is_heading] == [
        ("Question 3", 1, True), ("(b)", 3, True), ("3(f)", 2, True)]
    assert "i. **Error type**: VP" in markdown and "ii. Modifier" in markdown
    assert "$$\\gamma = \\frac{1}{2}$$" in markdown and "| **Stack**" not in markdown     # no Markdown table text
    found = locate([("solutions.tex", text)], QUESTIONS | {"3f"})
    assert "Modifier" in found.sections["3f"].body and "2n" in found.sections["3b"].body
    assert [r.cells for r in table_rows(found.sections["3f"].body)[0]] == [("Stack", "x"), ("1", "2")]


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


_1D_CASES = {
    "markdown": ("## 1(c)\n\nNormalising loses the magnitude.\n\n#### Final Answer\n\n"
                 "For $w = o$: $$\\frac{{\\partial J}}{{\\partial u_o}} = {eq}$$\n\n"
                 "For $w \\neq o$: $$\\frac{{\\partial J}}{{\\partial u_w}} = {neq}$$\n\n"
                 "## 1(d)\n\nThe result is at the end of the previous answer.\n"),
    "plain": ("1(c)\n\nNormalising loses the magnitude.\n\nFinal answer of the next part: w = o: ∂J/∂u_w = {eq}\n\n"
              "w ≠ o: ∂J/∂u_w = {neq}\n\n1(d)\n\nSee the end of the previous answer.\n"),
}


@pytest.mark.parametrize("shape", sorted(_1D_CASES))
def test_the_cases_of_1d_written_at_the_end_of_a_neighbour_keep_their_conditions(tmp_path, shape):
    """1(d) under 1(c)'s Final Answer, each case led by its condition: read elsewhere, each equation
    keeps the case its line states (the last one was read for both cases: a right answer scored 0)."""
    latex = shape == "markdown"
    right = ("(\\hat{y}_o - 1) v_c", "\\hat{y}_w v_c") if latex else ("(ŷ_o − 1)v_c", "ŷ_w v_c")
    name = "answers.md" if latex else "answers.txt"
    got = graded(tmp_path, _1D_CASES[shape].format(eq=right[0], neq=right[1]), name)["1d"]
    assert full(got) and "not in its section" in "\n".join(got.written.reading)
    # the two cases swapped: each is judged as the case its condition names, so neither is right
    swapped = graded(tmp_path, _1D_CASES[shape].format(eq=right[1], neq=right[0]), name)["1d"]
    assert swapped.score == 0 and swapped.needs_review


_3B_AFTER_3A = ("## 3(a)\n\n| Stack | Buffer | Transition |\n|---|---|---|\n| [ROOT] | [I, presented] | Initial |\n\n{tail}\n\n"
                "## 3(b)\n\nThe result is written at the end of the previous answer.\n")


@pytest.mark.parametrize("tail, right", [
    ("#### Final Answer\n\nsteps = 2·n", True),
    ("#### Final Answer\n\nIt takes n + n steps in total, since each word is shifted once and attached once.", True),
    ("Final answer of the next part: 2n (this holds for every sentence)", True),
    ("#### Final Answer\n\nsteps = 2n + 1", False),
    ("Final answer of the next part: n", False),
])
def test_3b_written_at_the_end_of_3a_is_read_there(tmp_path, tail, right):
    """3(b)'s count of steps written at the end of 3(a)'s table, its own section empty of an answer:
    read as a TA would (kept only when right, with the doubt of its place), never a silent zero."""
    got = graded(tmp_path, _3B_AFTER_3A.format(tail=tail))["3b"]
    if right:
        assert full(got) and "whose content answers 3(b)" in "\n".join(got.written.reading)
    else:
        assert got.score == 0 and got.needs_review


def test_what_counts_as_a_statement_of_3b_elsewhere():
    from a2.written.scalar_answers import step_statements

    said = "| [ROOT] | [I] | S |\n\nFinal answer of the next part: 2n\n\n#### Final Answer\n\nIt takes $n + n$ steps"
    assert [line for _, line in step_statements(said)] == ["Final answer of the next part: 2n", "It takes $n + n$ steps"]
    for not_said in ("There are n words in the buffer.", "The transitions, in order: SHIFT, SHIFT, LEFT-ARC.",
                     "Each of the n words is shifted once: 16 steps for this sentence.", "| n | steps | S |"):
        assert step_statements(not_said) == [], not_said


def test_a_3b_section_with_an_unreadable_marked_answer_is_not_replaced_from_elsewhere(tmp_path):
    """Only a section with no answer of its own is answered from elsewhere: a marked answer that
    cannot be read stays the student's answer, flagged."""
    text = _3B_AFTER_3A.format(tail="#### Final Answer\n\nsteps = 2n").replace(
        "The result is written at the end of the previous answer.", "Answer: $\\frac{2}{$")
    got = graded(tmp_path, text)["3b"]
    assert got.score == 0 and got.needs_review


@pytest.mark.parametrize("answer, right", [("1/(1 - p_drop)", True), ("1/p_drop", False)])
def test_a_plain_formula_under_a_final_answer_heading_is_the_marked_answer(tmp_path, answer, right):
    """A formula typed without math on the line under ``#### Final Answer`` is the answer the heading
    marks, read whole (it was read as the tail of a line of plain text: "not read with full
    confidence" for everyone, and a wrong one flagged)."""
    got = graded(tmp_path, f"## 2(b)(i)\n\nThe expectation must be h.\n\n#### Final Answer\n\n{answer}\n")["2b_i"]
    assert full(got) == right and not got.needs_review
    assert not any("not read with full confidence" in line for line in got.written.reading)


def test_prose_under_a_final_answer_heading_is_not_taken_for_a_formula(tmp_path):
    from grader.reading.answers import MARKED_TEXT, candidates

    text = "#### Final Answer\n\nIt takes n + n steps in total, since each word is shifted once.\n"
    assert not [c for c in candidates(text) if c.kind == MARKED_TEXT]
    assert full(graded(tmp_path, "## 3(b)\n\n" + text)["3b"])


_3E_STEPS = ("## 3(b)\n\n$2n$\n\n#### Final Answer\n\n$$\\frac{{\\partial h_i}}{{\\partial x_j}} = {answer}$$\n\n"
             "## 3(e)(i)\n\nLet $$z = xW + b_1$$\n\n{own}The result is written at the end of the previous answer.\n")


@pytest.mark.parametrize("answer, right", [("\\mathbb{{1}}\\{{(xW + b_1)_i > 0\\}} W_{{ji}}", True), ("W_{{ij}}", False)])
def test_a_section_of_steps_whose_answer_ends_the_previous_section(tmp_path, answer, right):
    """3(e)(i)'s section holds only a step (z = xW + b_1) and its answer, named by its left-hand
    side, ends the previous section: read there as a TA would (the step was read as the answer:
    0, flagged), kept only when right; the same reading is shown either way."""
    got = graded(tmp_path, _3E_STEPS.format(answer=answer, own="").replace("{{", "{").replace("}}", "}"))["3e_i"]
    assert full(got) == right and got.needs_review != right
    assert "whose formulas are steps of a derivation" in "\n".join(got.written.reading)


def test_a_section_with_its_own_answer_is_not_answered_from_elsewhere(tmp_path):
    """A formula of the section without a left-hand side is its answer (wrong here): a right one
    elsewhere never replaces it."""
    text = _3E_STEPS.format(answer="\\mathbb{{1}}\\{{(xW + b_1)_i > 0\\}} W_{{ji}}", own="$$W_{{ji}}$$\n\n")
    got = graded(tmp_path, text.replace("{{", "{").replace("}}", "}"))["3e_i"]
    assert not full(got) and "∂h_i/∂x_j = W_{ji}" in got.written.read


def test_a_3e_ii_section_holding_a_step_only_is_answered_by_the_end_of_3e_i(tmp_path):
    text = ("## 3(e)(i)\n\n$$\\frac{\\partial h_i}{\\partial x_j} = \\mathbb{1}\\{(xW + b_1)_i > 0\\} W_{ji}$$\n\n"
            "#### Final Answer\n\n$$\\frac{\\partial CE}{\\partial l_i} = \\hat{y}_i - y_i$$\n\n## 3(e)(ii)\n\n"
            "By the chain rule, $$\\frac{\\partial CE}{\\partial \\hat{y}_k} = -\\frac{y_k}{\\hat{y}_k}$$\n\n"
            "The result is written at the end of the previous answer.\n")
    got = graded(tmp_path, text)
    assert full(got["3e_ii"]) and full(got["3e_i"])


def test_a_bold_label_line_is_no_formula(tmp_path):
    """``**(e)(i)**`` opening a section with no answer was read as a formula ('(i)**', unreadable,
    flagged) instead of the answer written at the end of the previous section."""
    from grader.reading.answers import plain_tails

    assert plain_tails("**(e)(i)**\n\nSee above.", lambda w: w == "i") == []
    text = ("**(b)**\n\nsteps = 2n\n\n#### Final Answer\n\n∂h_i/∂x_j = W_ji if (xW + b₁)_i > 0, else 0\n\n"
            "**(e)(i)**\n\nThe result is written at the end of the previous answer.\n")
    assert full(graded(tmp_path, text)["3e_i"])


def test_the_end_of_another_questions_equation_is_no_formula_of_this_one(tmp_path):
    """3(e)(i)'s section ends with 3(e)(ii)'s answer and its own is at the end of the previous
    section: the end of ∂CE/∂l_i's line ('_i') was read as 3(e)(i)'s formula (unreadable, flagged)."""
    text = ("## 3(b)\n\nsteps = 2n\n\n#### Final Answer\n\n∂h_i/∂x_j = 𝟙[(xW + b₁)_i > 0] W_ji\n\n## 3(e)(i)\n\n"
            "The result is written at the end of the previous answer.\n\n#### Final Answer\n\n"
            "∂CE/∂l_i = ŷ_i − y_i (so this is the final answer)\n\n## 3(e)(ii)\n\nWritten at the end of the previous answer.\n")
    got = graded(tmp_path, text)
    assert full(got["3e_i"]) and full(got["3e_ii"])


def test_a_pointer_to_another_question_is_no_formula(tmp_path):
    """'See the end of 3(e)(i).' ends with a question's label, a reference: it was read as 3(e)(ii)'s
    formula (flagged at 0) instead of the answer written at the end of 3(e)(i)."""
    text = ("## 3(e)(i)\n\n∂h_i/∂x_j = 𝟙[(xW + b₁)_i > 0] W_ji\n\n#### Final Answer\n\n∂CE/∂l_i = ŷ_i − y_i\n\n"
            "## 3(e)(ii)\n\nSee the end of 3(e)(i).\n")
    got = graded(tmp_path, text)
    assert full(got["3e_ii"]) and full(got["3e_i"])
