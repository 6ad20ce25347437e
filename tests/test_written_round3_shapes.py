"""Shapes of the blind writeups 77-88 (tests/writeups/wild/, BLIND.yaml), one class each, in variants
the writeups do not have: a README that is the only writeup, labels by the handout's position
(``Question 2.2(i)``, ``### 3.2``, ``Problem 3, part f``), prose cases that repeat the left-hand side,
a one-hot ``e_o``, LaTeX's ``\\paragraph`` labels, labels in ``\\shortintertext``, a 3(a) table typed as a
math ``array``, the left side of a chain's last line, a bare letter before a bracketed numeral
(``c (ii)``) and a 3(f) sentence answered twice. Each right answer is read right; a wrong one stays below full.
"""

from __future__ import annotations

import pytest
from written_support import full, graded

from a2.written.sections import parse_label
from grader.reading.sides import lhs
from grader.run.submission import _written_files

ROWS = [("[ROOT]", "[I, presented, my, findings, at, the, NLP, conference]", "", ""),
        ("[ROOT, I]", "[presented, my, findings, at, the, NLP, conference]", "", "SHIFT"),
        ("[ROOT, I, presented]", "[my, findings, at, the, NLP, conference]", "", "SHIFT"),
        ("[ROOT, presented]", "[my, findings, at, the, NLP, conference]", "presented -> I", "LEFT-ARC"),
        ("[ROOT, presented, my]", "[findings, at, the, NLP, conference]", "", "SHIFT"),
        ("[ROOT, presented, my, findings]", "[at, the, NLP, conference]", "", "SHIFT"),
        ("[ROOT, presented, findings]", "[at, the, NLP, conference]", "findings -> my", "LEFT-ARC"),
        ("[ROOT, presented]", "[at, the, NLP, conference]", "presented -> findings", "RIGHT-ARC"),
        ("[ROOT, presented, at]", "[the, NLP, conference]", "", "SHIFT"),
        ("[ROOT, presented, at, the]", "[NLP, conference]", "", "SHIFT"),
        ("[ROOT, presented, at, the, NLP]", "[conference]", "", "SHIFT"),
        ("[ROOT, presented, at, the, NLP, conference]", "[]", "", "SHIFT"),
        ("[ROOT, presented, at, the, conference]", "[]", "conference -> NLP", "LEFT-ARC"),
        ("[ROOT, presented, at, conference]", "[]", "conference -> the", "LEFT-ARC"),
        ("[ROOT, presented, conference]", "[]", "conference -> at", "LEFT-ARC"),
        ("[ROOT, presented]", "[]", "presented -> conference", "RIGHT-ARC"),
        ("[ROOT]", "[]", "ROOT -> presented", "RIGHT-ARC")]


# 78: the answers kept in the repository's README --------------------------------------------------

def test_a_readme_is_read_when_the_upload_has_no_other_writeup(tmp_path):
    (tmp_path / "word2vec.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "Readme.txt").write_text("Run: python run.py\n\n3(b) 2n steps\n", encoding="utf-8")
    assert _written_files(tmp_path) == [tmp_path / "Readme.txt"]
    assert full(graded(tmp_path, "# Notes\n\n```text\n- dev UAS: 88.1\n```\n\n## 2(b)(i)\n\n"
                                 "$\\gamma = 1/(1 - p_{drop})$\n", "README.md")["2b_i"])
    # beside a writeup of its own, a README stays code notes
    (tmp_path / "hw2.md").write_text("## 3(b)\n\n$2n$\n", encoding="utf-8")
    assert _written_files(tmp_path) == [tmp_path / "hw2.md"]


# 80: numbering by the handout's position, "Problem N part x" ---------------------------------------

@pytest.mark.parametrize("label2, label3", [("Question 2.2(i)", "### 3.2"), ("Problem 2, part b (i)", "Q3 part (b)")])
def test_labels_by_handout_position_or_part_word(tmp_path, label2, label3):
    text = (f"### Question 1\n\nnotes\n\n**{label2}**\n\n$\\gamma = \\frac{{1}}{{1-p_{{drop}}}}$\n\n"
            f"{label3}\n\nEvery word is shifted once and attached once: $2n$.\n")
    got = graded(tmp_path, text)
    assert full(got["2b_i"]) and full(got["3b"])
    wrong = graded(tmp_path, text.replace("$2n$", "$2n + 1$").replace("1-p_{drop}", "p_{drop}"))
    assert wrong["2b_i"].score == 0 and wrong["3b"].score == 0
    # a position needs a question word, or a heading of its own: "### 3.2 Results" is a README's section
    assert parse_label("3.2 Results", heading=True) is None and parse_label("1.5 points", heading=False) is None


# 80/87: both cases in prose, each repeating the left-hand side ------------------------------------

@pytest.mark.parametrize("neq", ["\\hat y_w \\mathbf{v}_c", "-\\hat y_w \\mathbf{v}_c"])
def test_prose_cases_that_repeat_the_left_side(tmp_path, neq):
    text = ("## 1(d)\n\n$\\frac{\\partial J}{\\partial \\mathbf{u}_w} = (\\hat y_o - 1)\\mathbf{v}_c$ if $w = o$; "
            f"$\\frac{{\\partial J}}{{\\partial \\mathbf{{u}}_w}} = {neq}$ otherwise.\n")
    got = graded(tmp_path, text)["1d"]
    assert got.score == (4 if not neq.startswith("-") else 2)


# 81: the one-hot vector e_o for y -------------------------------------------------------------------

@pytest.mark.parametrize("rhs, points", [("\\boldsymbol{v}_c(\\hat{\\boldsymbol{y}} - \\boldsymbol{e}_{o})^T", 1),
                                         ("(\\hat{y} - e_{o}) v_c^\\top", 0)])
def test_a_one_hot_basis_vector_e_o(tmp_path, rhs, points):
    got = graded(tmp_path, f"## 1(e)\n\n$$\\frac{{\\partial J}}{{\\partial U}} = {rhs}$$\n")["1e"]
    assert got.score == points and not got.needs_review


# 82: \paragraph labels ------------------------------------------------------------------------------

def test_paragraph_headings_of_a_latex_writeup(tmp_path):
    tex = ("\\documentclass{article}\\begin{document}\n\\section*{Part 3}\n\\paragraph*{b.} It takes $2n$ steps.\n"
           "\\paragraph{e.i} $\\frac{\\partial h_i}{\\partial x_j} = W_{ji}\\,\\mathbb{1}[(xW+b_1)_i > 0]$\n\\end{document}\n")
    got = graded(tmp_path, tex, "sol.tex")
    assert full(got["3b"]) and full(got["3e_i"])


# 86: labels inside an align's \intertext, a table typed as a math array ----------------------------

def test_labels_in_shortintertext_and_an_array_table(tmp_path):
    rows = " \\\\\n".join(" & ".join(f"\\text{{{c}}}" if c else "" for c in row) for row in ROWS)
    tex = ("\\documentclass{article}\\usepackage{mathtools}\\begin{document}\n\\begin{align}\n"
           "\\shortintertext{Part 3(e)(ii):}\n\\frac{\\partial CE}{\\partial l_i} &= \\hat{y}_i - y_i \\\\\n"
           "\\shortintertext{Part 2(b)(i):}\n\\gamma &= \\frac{1}{1 - p_{drop}}\n\\end{align}\n"
           "\\subsection*{3(a)}\n\\begin{equation*}\n\\begin{array}{|l|l|l|l|}\n"
           "\\text{Stack} & \\text{Buffer} & \\text{New dependency} & \\text{Transition} \\\\ \\hline\n"
           f"{rows}\n\\end{{array}}\n\\end{{equation*}}\n\\end{{document}}\n")
    got = graded(tmp_path, tex, "a2.tex")
    assert full(got["3e_ii"]) and full(got["2b_i"])
    assert full(got["3a"]) and not got["3a"].needs_review


# 28/66: a chain's final right side belongs to its last line's own left side ------------------------

def test_the_left_side_of_a_chains_last_line():
    assert lhs("z &= xW + b_1 \\\\ \\frac{\\partial h_i}{\\partial x_j} &= 1[z_i>0] \\\\ &= W_{ij}") == \
        "\\frac{\\partial h_i}{\\partial x_j}"
    assert lhs("\\frac{\\partial J}{\\partial v_c} &= -u_o + U\\hat y \\\\ &= U(\\hat y - y)") == \
        "\\frac{\\partial J}{\\partial v_c}"


def test_a_wrong_answer_at_the_end_of_a_chain_is_read_with_confidence(tmp_path):
    text = ("## 3(e)(i)\n\n$$\\begin{aligned} z &= xW + b_1 \\\\ \\frac{\\partial h_i}{\\partial x_j} "
            "&= \\mathbb{1}[z_i > 0] W_{ij} \\end{aligned}$$\n")
    got = graded(tmp_path, text)["3e_i"]
    assert got.score == 0 and not got.needs_review


# 88: a bare letter, then the numeral in brackets ---------------------------------------------------

def test_a_bare_letter_then_a_bracketed_numeral(tmp_path):
    text = ("## Question 3\n\n#### e  (i)\n\n$W_{ji}\\,\\mathbb{1}[(xW+b_1)_i>0]$\n\n"
            "#### e (ii)\n\nIt is $\\hat y_i - y_i$.\n")
    got = graded(tmp_path, text)
    assert full(got["3e_i"]) and full(got["3e_ii"])


# 79: a 3(f) sentence answered twice ----------------------------------------------------------------

F = ("## 3(f)\n\n(i) Verb phrase attachment. acquisition → citing is wrong, blocked → citing is right.\n\n"
     "(ii) Modifier attachment. elements → most is wrong, crucial → most is right.\n\n"
     "(iii) PP attachment. Incorrect: declined → reasons. Correct: comment → reasons.\n\n"
     "{fix}\n\n(iv) Coordination attachment. affects → one is wrong, plants → one is right.\n")


def test_a_3f_sentence_corrected_below_its_draft(tmp_path):
    fixed = "**Update (after Piazza):** Incorrect: declined → decision. Correct: reasons → decision."
    assert graded(tmp_path, F.format(fix=fixed))["3f"].score == 12
    # a correction that restates no field leaves the draft's
    assert graded(tmp_path, F.format(fix="Edit: I double-checked this one, the arcs above stand."))["3f"].score == 10


# 79: a formula answered twice, the second below a correction line -----------------------------------

def test_a_formula_corrected_below_its_draft(tmp_path):
    text = ("## 3(e)(ii)\n\nOriginal: $\\frac{{\\partial CE}}{{\\partial l_i}} = {draft}$\n\n"
            "**Fixed (sign):** $\\frac{{\\partial CE}}{{\\partial l_i}} = {fixed}$\n")
    got = graded(tmp_path, text.format(draft="y_i - \\hat y_i", fixed="\\hat y_i - y_i"))["3e_ii"]
    assert full(got) and not got.needs_review
    assert graded(tmp_path, text.format(draft="\\hat y_i - y_i", fixed="y_i - \\hat y_i"))["3e_ii"].score == 0


# 79/84: 3(b) below the prompt's own n, or below a correction ----------------------------------------

@pytest.mark.parametrize("text", [
    "## 3(b)\n\nHow many steps does a sentence take, as a function of $n$? Explain.\n\nIt is $2n$: a shift and an arc per word.\n",
    "## 3(b)\n\nMy first guess was $n$, one per word.\n\nUpdate — $2n$, since every word is also attached.\n"])
def test_3b_below_the_prompts_n_or_a_correction(tmp_path, text):
    got = graded(tmp_path, text)["3b"]
    assert full(got) and not got.needs_review
    assert graded(tmp_path, text.replace("$2n$", "$2n - 1$"))["3b"].score == 0
