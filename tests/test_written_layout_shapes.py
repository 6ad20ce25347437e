"""Shapes of the blind writeups 65-76 (tests/writeups/wild/, BLIND.yaml), one class each, in variants
the writeups do not have: Quarto and R Markdown files, answers typed inside blockquotes, "**Answer.**"
with a full stop, fractions drawn over three lines of plain text, one case of a formula with its
condition written after it, case words of other languages, a display stating two results one per
row, derivation rows opening with "⇒" or "so", eqnarray's "& = &", "\\#" and "&&". Each right
answer is read right (or, where it cannot be read whole, flagged); a wrong one stays below full.
"""

from __future__ import annotations

import pytest
from written_support import full, graded

from grader.reading.answers import opens_with_marker
from grader.reading.ascii_art import ascii_fractions
from grader.run.submission import _written_files


@pytest.mark.parametrize("name", ["hw2.qmd", "Homework2.Rmd", "a2.rmarkdown"])
def test_quarto_and_r_markdown_files_are_read_as_markdown(tmp_path, name):
    assert _written_files(_upload(tmp_path, name, "x")) == [tmp_path / name]
    text = "---\ntitle: A2\n---\n\n## 2(b)(i)\n\n::: {.callout-note}\n$$\\gamma = \\frac{1}{1 - p_{drop}}$$\n:::\n"
    assert full(graded(tmp_path, text, name)["2b_i"])


@pytest.mark.parametrize("name", ["a2.typ", "a2_written.adoc", "hw.latex"])
def test_a_writeup_in_a_markup_the_reader_cannot_read_goes_to_review(tmp_path, name):
    assert _written_files(_upload(tmp_path, name, "x")) == [tmp_path / name]
    got = graded(tmp_path, "= Question 2\n\n$ gamma = 1/(1 - p_\"drop\") $\n", name)["2b_i"]
    assert got.score == 0 and got.needs_review and name in got.written.review and "an image" not in got.written.review


def _upload(folder, name, text):
    (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("marker", ["**Answer.**", "*Solution.*", "__Answer.__", "\\textbf{Answer.}"])
def test_an_answer_marker_in_bold_or_italics_may_end_with_a_full_stop(marker):
    assert opens_with_marker(f"{marker} $2n$")
    assert not any(opens_with_marker(line) for line in ("Answer. $2n$", "The answer. $2n$", "**Answers** $2n$"))


QUOTED = "## 3(b)\n\n> A sentence has $n$ words. In how many steps will it be parsed?\n\n{reply}\n"


@pytest.mark.parametrize("reply", ["> > **Answer.** ${rhs}$ steps: one SHIFT and one arc per word.",
                                   "> > > **Answer:** ${rhs}$",
                                   "> We shift each word once and attach it once, so ${rhs}$ steps."])
def test_an_answer_typed_inside_a_blockquote_is_read(tmp_path, reply):
    assert full(graded(tmp_path, QUOTED.format(reply=reply.format(rhs="2n")))["3b"])
    wrong = graded(tmp_path, QUOTED.format(reply=reply.format(rhs="2n + 1")))["3b"]
    assert wrong.score == 0
    # a quoted prompt alone is no answer, and no flag
    got = graded(tmp_path, "## 3(b)\n\n> A sentence has $n$ words. In how many steps, as an expression in $n$, "
                           "will it be parsed? Briefly explain why.\n\n## 3(e)(i)\n\n> Compute $\\frac{\\partial h_i}"
                           "{\\partial x_j}$ for $h = \\mathrm{ReLU}(xW + b_1)$.\n")
    assert got["3b"].score == 0 and not got["3b"].needs_review
    assert got["3e_i"].score == 0 and not got["3e_i"].needs_review


def test_a_quote_inside_a_list_item_is_the_students(tmp_path):
    text = "## Part 2\n\n- (b)\n  - (i)\n    > So $\\gamma(1 - p_{drop}) = 1$, hence\n    > $$\\gamma = GAMMA$$\n"
    assert full(graded(tmp_path, text.replace("GAMMA", "\\frac{1}{1-p_{drop}}"))["2b_i"])
    assert graded(tmp_path, text.replace("GAMMA", "1 - p_{drop}"))["2b_i"].score == 0
    # a list label goes on from the labels before it: 3(f)'s sentences lettered (a)-(d) stay 3(f)'s
    sentences = "".join(f"- ({letter}) {kind} Attachment Error. Incorrect dependency: {bad}. Correct dependency: {good}.\n"
                        for letter, kind, bad, good in (("a", "Verb Phrase", "acquisition → citing", "blocked → citing"),
                                                        ("b", "Modifier", "elements → most", "crucial → most")))
    got = graded(tmp_path, "## 3(b)\n\n$2n$ steps.\n\n## 3(f)\n\n" + sentences)
    assert full(got["3b"]) and got["3f"].score == 6, got["3f"].outcome.feedback


ART = """3(b)(i)

 {pad}        {num}
 gamma = {bar}
 {pad}        {den}
"""


@pytest.mark.parametrize("right, wrong", [(("1", "1 - p_drop"), ("1", "p_drop")), (("1", "1-p"), ("p_drop", "1 - p_drop"))])
@pytest.mark.parametrize("name, fence, short", [("a2.txt", "", False), ("answers.md", "```text\n", True)])
def test_a_fraction_drawn_over_three_lines_is_one_formula(tmp_path, right, wrong, name, fence, short):
    """In a .txt file, or in a Markdown code block with a bar a little shorter than the denominator."""
    for (num, den), full_marks in ((right, True), (wrong, False)):
        width = max(3, len(den) - 1) if short else max(len(num), len(den)) + 2
        drawn = ART.split("\n", 2)[2].format(pad="", num=num.center(width), bar="-" * width, den=den if short else den.center(width))
        text = f"## 2(b)(i)\n\n{fence}{drawn}{fence.strip() and chr(96) * 3}\n"
        got = graded(tmp_path, text, name)["2b_i"]
        assert full(got) == full_marks and (full_marks or got.score == 0), (text, got.outcome.feedback)


def test_rules_headings_and_tables_are_no_fractions():
    text = ("Part 1\n------\n(a)\n\n+----+----+\n| a  | b  |\n+----+----+\n\n  x\n-----\n  y\n\n"
            "| q | a |\n|---|---|\n| 1 | 2 |\n")
    assert ascii_fractions(text) == text
    drawn = "   dJ\n  ---- = U(y_hat - y)\n  dv_c\n  = 0 otherwise\n"
    assert ascii_fractions(drawn) == "\n\n  dJ/dv_c = U(y_hat - y)\n  = 0 otherwise\n"


@pytest.mark.parametrize("line, score, review", [
    ("dh_i/dx_j = W_ji if (xW + b1)_i > 0, and 0 otherwise", 3, False),
    ("dh_i/dx_j = W_ji if (xW + b1)_i > 0, and 1 otherwise", 0, False),
    ("dh_i/dx_j = W_ji if (xW + b1)_i > 0", 1.5, True),         # one case: a TA reads the rest
    ("dh_i/dx_j  =  W_ji   if (xW + b1)_i > 0\n               =  0      otherwise", 3, False),
    ("dh_i/dx_j  =  W_ji   if (xW + b1)_i > 0\n               =  1      otherwise", 0, False),
])
def test_a_plain_formula_with_its_case_condition_after_it(tmp_path, line, score, review):
    got = graded(tmp_path, f"3(e)(i)\n\n     {line}\n", "a2.txt")["3e_i"]
    assert (got.score, got.needs_review) == (score, review), got.outcome.feedback


@pytest.mark.parametrize("if_word, otherwise", [("falls", "sonst"), ("si", "sinon"), ("si", "en otro caso"),
                                                ("se", "altrimenti"), ("如果", "否则"), ("если", "иначе")])
def test_case_words_of_other_languages(tmp_path, if_word, otherwise):
    text = ("## 1(d)\n\n$$\\frac{{\\partial J}}{{\\partial u_w}} = \\begin{{cases}} (\\hat y_o - 1) v_c & \\text{{{i} }} w = o "
            "\\\\ {rest} v_c & \\text{{{o}}} \\end{{cases}}$$\n")
    right = graded(tmp_path, text.format(i=if_word, o=otherwise, rest="\\hat y_w"))["1d"]
    assert full(right), right.outcome.feedback
    wrong = graded(tmp_path, text.format(i=if_word, o=otherwise, rest="-\\hat y_w"))["1d"]
    assert wrong.score == 2


@pytest.mark.parametrize("env", ["aligned", "split", "gathered"])
def test_a_display_stating_each_case_on_its_own_row(tmp_path, env):
    rows = (r"\frac{\partial J}{\partial u_o} &= (\hat y_o - 1)\,v_c \quad (w = o), \\"
            r" \text{so}\quad \frac{\partial J}{\partial u_w} &= " + "{neq}" + r"\,v_c \quad (w \neq o).")
    text = f"## 1(d)\n\n$$\\begin{{{env}}}\n{rows}\n\\end{{{env}}}$$\n"
    right = graded(tmp_path, text.replace("{neq}", r"\hat y_w"))["1d"]
    assert full(right), right.outcome.feedback
    wrong = graded(tmp_path, text.replace("{neq}", r"(\hat y_w - 1)"))["1d"]
    assert wrong.score == 2


def test_the_rows_of_a_derivation_stay_one_formula(tmp_path):
    text = ("## 3(e)\n\n$$\\begin{aligned}\\frac{\\partial h_i}{\\partial x_j} &= \\mathbb{1}\\{z_i > 0\\} W_{ji} \\\\"
            " \\frac{\\partial CE}{\\partial l_i} &= \\hat y_i - y_i\\end{aligned}$$\n")
    got = graded(tmp_path, text)
    assert full(got["3e_i"]) and full(got["3e_ii"]), (got["3e_i"].outcome.feedback, got["3e_ii"].outcome.feedback)


@pytest.mark.parametrize("lead", [r"\Rightarrow \quad", r"\implies \quad", r"\therefore \qquad", r"⇒ \quad", r"\text{so}\quad",
                                  r"\text{hence, }\qquad"])
def test_a_derivation_row_opening_with_a_connective(tmp_path, lead):
    text = ("\\begin{{align*}}\n\\mathbb{{E}}[h_{{drop}}]_i &= \\gamma (1 - p_{{drop}}) h_i = h_i \\\\\n"
            "{lead} \\gamma &= {g}\n\\end{{align*}}\n")
    doc = "\\documentclass{{article}}\n\\begin{{document}}\n\\section*{{Question 2}}\n\\subsection*{{(b)}}\n(i)\n{body}\\end{{document}}\n"
    right = graded(tmp_path, doc.format(body=text.format(lead=lead, g="\\frac{{1}}{{1 - p_{{drop}}}}")), "a.tex")["2b_i"]
    assert full(right), right.outcome.feedback
    wrong = graded(tmp_path, doc.format(body=text.format(lead=lead, g="1 - p_{{drop}}")), "a.tex")["2b_i"]
    assert wrong.score == 0


EQNARRAY = r"\begin{eqnarray*} \frac{\partial J}{\partial v_c} & = & -u_o + \sum_w \hat y_w u_w \\ & = & RHS \end{eqnarray*}"


@pytest.mark.parametrize("body, item, right, wrong", [
    (EQNARRAY, "1b_i", r"U(\hat y - y)", r"U(y - \hat y)"),
    (r"\begin{equation*}\begin{split} \frac{\partial J}{\partial U} & = RHS \end{split}\end{equation*}", "1e",
     r"v_c (\hat y - y)^T", r"(\hat y - y) v_c^T"),
    (r"\[ \#\text{steps} = \sum_{i=1}^{n} 2 = RHS \]", "3b", "2n", "2n + 1"),
])
def test_eqnarray_split_and_number_sign(tmp_path, body, item, right, wrong):
    part, rest = {"1b_i": ("1", "(b)(i)"), "1e": ("1", "(e)"), "3b": ("3", "(b)")}[item]
    for rhs, ok in ((right, True), (wrong, False)):
        doc = (f"\\documentclass{{article}}\n\\begin{{document}}\n\\section*{{Question {part}}}\n\\subsection*{{{rest}}}\n"
               f"{body.replace('RHS', rhs)}\n\\end{{document}}\n")
        got = graded(tmp_path, doc, "a.tex")[item]
        assert full(got) == ok and (ok or got.score == 0), got.outcome.feedback


@pytest.mark.parametrize("text", ["Two times $n$: the answer is $2n$.", "Each step handles $n$; all in all $2n$."])
def test_a_wrong_count_picked_among_expressions_one_of_them_right_is_flagged(tmp_path, text):
    got = graded(tmp_path, f"## 3(b)\n\n{text}\n")["3b"]
    assert full(got) or got.needs_review, got.outcome.feedback
    wrong = graded(tmp_path, "## 3(b)\n\nFor $n$ words we need $2n + 1$ steps.\n")["3b"]
    assert wrong.score == 0 and not wrong.needs_review


NESTED = """# HW2

1. **Part 1**
   - **(d)** For $w = o$: $(\\hat y_o - 1) v_c$; for $w \\ne o$: $\\hat y_w v_c$.
2. **Part 3**
   - **(b)** $STEPS$
   - **(e)**
     - (i) $\\mathbb{1}\\{(xW + b_1)_i > 0\\} W_{ji}$
     - (ii) $CE$
   - **(f)**
     - (i) Verb Phrase Attachment Error. Incorrect dependency: acquisition → citing. Correct dependency: blocked → citing.
     - (ii) Modifier Attachment Error. Incorrect dependency: elements → most. Correct dependency: crucial → most.
"""


def test_labels_of_nested_list_items(tmp_path):
    got = graded(tmp_path, NESTED.replace("STEPS", "2n").replace("CE", "\\hat y_i - y_i"))
    assert all(full(got[q]) for q in ("1d", "3b", "3e_i", "3e_ii")), {q: got[q].outcome.feedback for q in got}
    assert got["3f"].score == 6            # two sentences of four, each whole
    got = graded(tmp_path, NESTED.replace("STEPS", "3n").replace("CE", "y_i - \\hat y_i"))
    assert got["3b"].score == 0 and got["3e_ii"].score == 0 and full(got["3e_i"])


@pytest.mark.parametrize("picture", ["![question 1b](img/q1b.png)", '<img src="q1b.png" width="400">'])
def test_an_answer_quoted_under_a_picture_of_the_question(tmp_path, picture):
    text = f"## 1(b)(i)\n\n{picture}\n\n> $$\\frac{{\\partial J}}{{\\partial v_c}} = RHS$$\n"
    assert full(graded(tmp_path, text.replace("RHS", "U(\\hat y - y)"))["1b_i"])
    assert graded(tmp_path, text.replace("RHS", "U(y - \\hat y)"))["1b_i"].score == 0
