"""Shapes first met on the blind writeups (tests/writeups/wild/17-.., BLIND.yaml), one class each:
callouts holding the answers, an HTML table for 3(a), sub-questions numbered inside a part, a
formula that defines another name read as the answer, a shortened sub-part prompt, spacing with a
length. Each right answer is read right; a wrong one in the same shape stays below full.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from written_support import PARTS, RUNNER, full, graded

from a2.written.grade import grade_written
from grader.reading.blocks import callouts_opened
from grader.reading.latex_normal import normalise
from grader.reading.markup import html_tables

CALLOUT = "## 1.b.i\n\nSome words first.\n\n> [!{kind}] 1.b.i\n> $$\n> \\frac{{\\partial J}}{{\\partial v_c}} = {rhs}\n> $$\n"


@pytest.mark.parametrize("kind", ["answer", "note", "success", "Answer"])
def test_an_answer_inside_a_callout_is_read(tmp_path, kind):
    right = graded(tmp_path, CALLOUT.format(kind=kind, rhs=r"U(\hat y - y)"))["1b_i"]
    assert full(right), right.outcome.feedback
    wrong = graded(tmp_path, CALLOUT.format(kind=kind, rhs=r"U(y - \hat y)"))["1b_i"]
    assert wrong.score == 0


def test_prompt_callouts_and_plain_quotes_stay_quotes():
    text = "> [!question] 1(b)(i)\n> compute $x = 1$\n\n> plain quote\n\n> [!answer]\n> $y$\n"
    assert callouts_opened(text) == "> [!question] 1(b)(i)\n> compute $x = 1$\n\n> plain quote\n\n\n$y$\n"


TABLE_ROWS = [("[ROOT]", "[I, presented, my, findings, at, the, NLP, conference]", "", "Initial Configuration")]


def test_an_html_table_is_read_as_the_pipe_table_it_renders_as():
    html = ("## (a)\n\n<table>\n<tr><th>Stack</th><th>Dep</th></tr>\n<tr><td>[ROOT, I]</td><td>presented&rarr;I</td>"
            "</tr>\n<tr><td>[ROOT]</td><td></td></tr>\n</table>\n\nafter\n")
    out = html_tables(html).split("\n")
    assert out[:7] == ["## (a)", "", "| Stack | Dep |", "| --- | --- |", "| [ROOT, I] | presented→I |",
                       "| [ROOT] |  |", ""]
    assert len(out) == len(html.split("\n")) and out[-2] == "after"


NOTION = ("## Problem 1 — Understanding word2vec\n\n### Q1\n\nwords\n\n### Q5\n\n"
          "$$\\frac{{\\partial J}}{{\\partial U}} = {rhs}$$\n\n## Problem 2 — ML\n\n### Q2\n\n"
          "(i) $\\gamma = {gamma}$\n")


def test_sub_questions_numbered_inside_a_part_are_its_letters(tmp_path):
    got = graded(tmp_path, NOTION.format(rhs=r"v_c(\hat y - y)^\top", gamma=r"\frac{1}{1 - p_{drop}}"))
    assert full(got["1e"]) and full(got["2b_i"]), (got["1e"].outcome.feedback, got["2b_i"].outcome.feedback)
    got = graded(tmp_path, NOTION.format(rhs=r"(\hat y - y) v_c^\top", gamma="1 - p_{drop}"))
    assert got["1e"].score == 0 and got["2b_i"].score == 0


def test_numbered_headings_under_a_part_with_lettered_labels_keep_the_letters(tmp_path):
    text = ("## Part 1\n\n### Q1\n\nintro\n\n### (e)\n\n$$\\frac{\\partial J}{\\partial U} = v_c(\\hat y - y)^T$$\n")
    assert full(graded(tmp_path, text)["1e"])


@pytest.mark.parametrize(("item", "text"), [
    ("1b_i", "## 1(b)(i)\n\nWe have $J = -u_o^T v_c + \\log \\sum_w \\exp(u_w^T v_c)$.\n"),
    ("3e_i", "## 3(e)(i)\n\nLet $z = xW + b_1$, so $h_i = \\max(0, z_i)$.\n"),
])
def test_a_formula_defining_another_name_is_never_a_silent_answer(tmp_path, item, text):
    r = graded(tmp_path, text)[item]
    assert r.score == 0 and r.needs_review and "left side" in r.written.review, r.outcome.feedback


EXAM = ("\\begin{{questions}}\\titledquestion{{Understanding word2vec}}\n\\begin{{parts}}\n\\part[2] a\n"
        "\\begin{{solution}}x\\end{{solution}}\n"
        "\\part[6] Partial derivative of $J(\\vv_c, o, \\mU)$ with respect to $\\vv_c$.\n\\begin{{subparts}}\n"
        "\\subpart[2] Write the answer in terms of $\\vy$, $\\yh$ and $\\mU$.\n"
        "\\begin{{solution}}$\\frac{{\\partial J}}{{\\partial v_c}} = {rhs}$\\end{{solution}}\n"
        "\\end{{subparts}}\\end{{parts}}\\end{{questions}}\n")


def test_a_shortened_sub_part_prompt_is_read_with_its_parents(tmp_path):
    assert full(graded(tmp_path, EXAM.format(rhs=r"U(\hat{y} - y)"), "q1.tex")["1b_i"])
    assert graded(tmp_path, EXAM.format(rhs=r"U(y - \hat{y})"), "q1.tex")["1b_i"].score == 0


@pytest.mark.parametrize(("latex", "read"), [
    (r"v^{\mkern-1.5mu\mathsf{T}}", "v^{T}"), (r"a\hspace{2pt}b", "a b"), (r"a\kern 3pt b", "a b"),
    (r"a\mskip 4mu b", "a b")])
def test_spacing_with_a_length_is_spacing(latex, read):
    assert normalise(latex) == read


# --- other markups: a notebook, org-mode, reStructuredText ---------------------------------------

NB = {"cells": [{"cell_type": "markdown", "source": ["## 2(b)(i)\n", "\n", "$$\\gamma = \\frac{1}{1 - p}$$\n"]},
                {"cell_type": "code", "source": ["gamma = 1 - p  # not an answer\n"], "outputs": []}]}


def test_a_notebooks_markdown_cells_are_read(tmp_path):
    import json
    r = graded(tmp_path, json.dumps(NB), "a2_written.ipynb")["2b_i"]
    assert full(r), r.outcome.feedback
    bad = json.dumps({"cells": [{**NB["cells"][0], "source": ["## 2(b)(i)\n\n$$\\gamma = 1 - p$$\n"]}]})
    assert graded(tmp_path, bad, "a2_written.ipynb")["2b_i"].score == 0


def test_a_course_notebook_is_code_not_a_writeup():
    from grader import assignment
    assert assignment.is_written("a2_written.ipynb") and not assignment.is_written("word2vec.ipynb")


ORG = ("#+TITLE: a2\n* Problem 2: ML\n** (b)\n*** (i)\n\\(\\gamma = {g}\\)\n"
       "* Problem 1\n** (d)\n- for \\(w = o\\) :: \\(\\frac{{\\partial J}}{{\\partial u_w}} = (\\hat{{y}}_o - 1) v_c\\)\n"
       "- for \\(w \\neq o\\) :: \\(\\frac{{\\partial J}}{{\\partial u_w}} = \\hat{{y}}_w v_c\\)\n")


def test_org_mode_is_read(tmp_path):
    got = graded(tmp_path, ORG.format(g=r"\frac{1}{1 - p_{drop}}"), "a2.org")
    assert full(got["2b_i"]) and full(got["1d"]), (got["2b_i"].outcome.feedback, got["1d"].outcome.feedback)
    assert graded(tmp_path, ORG.format(g="1 - p_{drop}"), "a2.org")["2b_i"].score == 0


RST = ("Answers\n=======\n\n2. Machine learning\n-------------------\n\n(b) (i)\n~~~~~~~\n.. math::\n\n"
       "   \\gamma = {g}\n\n3. Parsing\n----------\n\n(b)\n~~~\n:math:`2n` steps.\n")


def test_restructuredtext_is_read(tmp_path):
    got = graded(tmp_path, RST.format(g=r"\frac{1}{1 - p_{drop}}"), "writeup.rst")
    assert full(got["2b_i"]) and full(got["3b"]), (got["2b_i"].outcome.feedback, got["3b"].outcome.feedback)
    assert graded(tmp_path, RST.format(g="1 - p_{drop}"), "writeup.rst")["2b_i"].score == 0


def test_an_rst_simple_table_is_a_pipe_table_in_the_same_lines():
    from grader.reading.markup import rst
    text = "x\n\n=====  ===\nStack  Dep\n=====  ===\n[R]    ..\n[R,I]  a->b\n=====  ===\n\ny"
    out = rst(text).split("\n")
    assert out[3:7] == ["| Stack | Dep |", "| --- | --- |", "| [R] |  |", "| [R,I] | a->b |"]
    assert len(out) == len(text.split("\n"))


# --- the answer typed inside the template's quoted prompt; cases in words with both conditions ---

PROMPT = ("### 1(d) (5 points)\n\n> Compute the partial derivative with respect to each outside vector.\n>\n"
          "> **Answer:** for $w = o$, ${eq}$; for $w \\neq o$, $\\hat{{y}}_w \\mathbf{{v}}_c$.\n\n"
          "<!-- Write your answer below this line. -->\n")


def test_an_answer_typed_inside_the_quoted_prompt_is_read(tmp_path):
    assert full(graded(tmp_path, PROMPT.format(eq=r"(\hat{y}_o - 1)\mathbf{v}_c"))["1d"])
    assert graded(tmp_path, PROMPT.format(eq=r"(1 - \hat{y}_o)\mathbf{v}_c"))["1d"].score < 4


def test_a_quoted_prompt_alone_is_still_no_answer():
    text = "> Compute $x = 1$.\n> Answer in terms of $y$.\n"
    assert callouts_opened(text) == text


@pytest.mark.parametrize(("answer", "right"), [
    (r"**Answer:** $\hat{y}_i - 1$ if $i = c$, and $\hat{y}_i$ if $i \neq c$.", True),
    (r"$\frac{\partial CE}{\partial l_i} = \hat{y}_i - 1$ if $i = c$, and $\hat{y}_i$ if $i \neq c$.", True),
    (r"**Answer:** $\hat{y}_i$ if $i = c$, and $\hat{y}_i - 1$ if $i \neq c$.", False),
    (r"**Answer:** $\hat{y}_i - 1$ if $i = c$, and $\hat{y}_i - 1$ if $i \neq c$.", False)])
def test_cases_in_words_with_a_condition_each(tmp_path, answer, right):
    r = graded(tmp_path, f"### 3(e)(ii)\n\n{answer}\n")["3e_ii"]
    assert full(r) is right, (r.outcome.feedback, r.written.why)
    assert "if i ≠ c" in r.written.read


def test_a_notebook_exported_to_html_is_read(tmp_path):
    page = ("<html><head><script>var x = '$\\\\gamma = 1 - p$';</script></head><body>"
            "<h2 id='x'>2(b)(i)<a class='anchor-link'>&#182;</a></h2><p>$\\gamma = {g}$</p>"
            "<div><pre>gamma = 1 - p</pre></div></body></html>")
    assert full(graded(tmp_path, page.format(g=r"\frac{1}{1 - p_{drop}}"), "a2_written.html")["2b_i"])
    assert graded(tmp_path, page.format(g="1 - p_{drop}"), "a2_written.html")["2b_i"].score == 0


def test_an_rst_admonition_and_a_notebooks_raw_cell_are_read(tmp_path):
    import json
    rst_text = "2(b)(i)\n=======\n\n.. admonition:: Answer\n\n   .. math::\n\n      \\gamma = \\frac{1}{1 - p_{drop}}\n"
    assert full(graded(tmp_path, rst_text, "a2.rst")["2b_i"])
    nb = {"cells": [{"cell_type": "markdown", "source": "## 2(b)(i)"},
                    {"cell_type": "raw", "source": "\\[ \\gamma = \\frac{1}{1 - p_{drop}} \\]"}]}
    assert full(graded(tmp_path, json.dumps(nb), "a2.ipynb")["2b_i"])


def test_a_labelled_arrow_is_an_arc():
    from a2.written.tables import dependency
    assert str(dependency(r"presented $\xrightarrow{\text{nsubj}}$ I")) == "presented → I"
    assert str(dependency(r"I $\xleftarrow{nsubj}$ presented")) == "presented → I"


def test_struck_through_text_is_not_read():
    from grader.reading.blocks import struck_out
    assert struck_out("Correct: ~~comment → decision~~ reasons → decision") == \
        "Correct:                        reasons → decision"
    assert struck_out("$a ~~ b$ and <del>x</del>") == "$a ~~ b$ and " + " " * len("<del>x</del>")


def test_an_item_missing_under_numbered_headings_the_reader_cannot_place_is_flagged(tmp_path):
    text = ("# Homework 2\n\n## 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = U(\\hat y - y)$$\n\n"
            "## 第三题 依存句法分析\n\n### 小题二\n\n$2n$\n")
    got = graded(tmp_path, text)
    assert full(got["1b_i"])
    # 第三题 is question 3 (test_question_words_in_other_scripts_number_the_part); 小题二 is not placed
    assert got["3b"].score == 0 and got["3b"].needs_review and "小题二" in got["3b"].written.review
    plain = graded(tmp_path, "# Homework 2\n\n## 1(b)(i)\n\n$$U(\\hat y - y)$$\n")
    assert not plain["3b"].needs_review          # no heading left unplaced: absent, not flagged


def test_a_3f_field_not_found_is_not_read_whole(tmp_path):
    text = ("### 3(f)\n\n**3f.** (i) verb phrase attachment error, incorrect acquisition → citing, correct blocked "
            "→ citing; (ii) the parser got something wrong here; (iii) see above; (iv) coordination.\n")
    r = graded(tmp_path, text)["3f"]
    assert r.score < r.max_score and r.needs_review and "not read whole" in r.written.review


@pytest.mark.parametrize("text", [
    "Let $q = 1 - p_{\\text{drop}}$ be the probability that a unit is kept. Then $\\gamma = 1/q$.",
    "Let $p$ be the probability of keeping a unit ($p = 1 - p_{drop}$), so $\\gamma = \\frac{1}{p}$."])
def test_gamma_in_the_writeups_own_names_is_flagged_not_failed(tmp_path, text):
    r = graded(tmp_path, f"### 2(b)(i)\n\n{text}\n")["2b_i"]
    assert r.score == r.max_score or r.needs_review, r.outcome.feedback


def test_words_math_italic_letters_are_letters(tmp_path):
    text = "Question 2(b)(i)\n𝛾 = 1/(1 − 𝑝_𝑑𝑟𝑜𝑝)\n\nQuestion 1(e)\n∂𝐽/∂𝑈 = 𝑣_𝑐(𝑦̂ − 𝑦)^𝑇\n"
    got = graded(tmp_path, text, "A2 written answers.txt")
    assert full(got["2b_i"]) and full(got["1e"]), (got["2b_i"].outcome.feedback, got["1e"].outcome.feedback)
    wrong = graded(tmp_path, "Question 2(b)(i)\n𝛾 = 1 − 𝑝_𝑑𝑟𝑜𝑝\n", "A2 written answers.txt")
    assert wrong["2b_i"].score == 0


def test_math_escaped_for_a_site_generator_is_read(tmp_path):
    text = "## 1(e)\n\n$$\\frac{\\partial J}{\\partial U} = v\\_c (\\hat{y} - y)^\\top$$\n"
    assert full(graded(tmp_path, text)["1e"])
    assert graded(tmp_path, text.replace("v\\_c (\\hat{y} - y)", "(\\hat{y} - y) v\\_c"))["1e"].score == 0


SUMMARY = ("# A2\n\n| Question | Final answer |\n|---|---|\n| 1(b)(i) | $U(\\hat y - y)$ |\n"
           "| 1(d) | $w = o$: ${eq}$; $w \\neq o$: $\\hat y_w v_c$ |\n| 3(b) | ${steps}$ |\n"
           "| 3(f) | see below |\n\n## Derivations\n\n**1(d).** The log-sum-exp term gives $\\hat y_w v_c$ "
           "for every $w$.\n\n**3(b).** One SHIFT and one arc per word.\n")


def test_finals_in_a_summary_table_are_the_answers(tmp_path):
    got = graded(tmp_path, SUMMARY.format(eq="(\\hat y_o - 1) v_c", steps="2n"))
    assert full(got["1d"]) and full(got["3b"]) and full(got["1b_i"]), (got["1d"].outcome.feedback,
                                                                        got["3b"].outcome.feedback)
    got = graded(tmp_path, SUMMARY.format(eq="(1 - \\hat y_o) v_c", steps="3n"))
    assert got["1d"].score < got["1d"].max_score and got["3b"].score == 0


@pytest.mark.parametrize(("answer", "right"), [("W_{ij}", True), ("W_{ji}", False)])
def test_a_declared_wx_layer_is_read_in_its_own_convention(tmp_path, answer, right):
    text = ("## 3(e)(i)\n\nWith column vectors, $h = \\mathrm{ReLU}(Wx + b_1)$ and $W \\in \\mathbb{R}^{D_h \\times D_x}$."
            f"\n\n$$\\frac{{\\partial h_i}}{{\\partial x_j}} = \\mathbb{{1}}\\{{(Wx + b_1)_i > 0\\}}\\, {answer}$$\n")
    r = graded(tmp_path, text)["3e_i"]
    assert full(r) == right and (right or r.score == 0), r.outcome.feedback
    # Without the declaration the handout's xW layout holds: W_ij is wrong there.
    plain = graded(tmp_path, text.replace("With column vectors, $h = \\mathrm{ReLU}(Wx + b_1)$ and", "Here"))["3e_i"]
    assert not full(plain)


@pytest.mark.parametrize(("sentence", "score"), [
    ("the parse should have blocked → citing instead of acquisition → citing", 3),
    ("the parser chose acquisition → citing instead of blocked → citing", 3),
    ("blocked → citing should replace acquisition → citing", 3),
    ("acquisition → citing should replace blocked → citing", 1),
    ("the parser chose blocked → citing instead of acquisition → citing", 1),
    ("acquisition → citing should be blocked → citing", 3)])
def test_3f_roles_given_by_phrasing(tmp_path, sentence, score):
    r = graded(tmp_path, f"## 3(f)\n\ni. Verb Phrase Attachment Error: {sentence}.\n")["3f"]
    assert r.score == score, r.outcome.feedback


@pytest.mark.parametrize(("fields", "score"), [
    ("正确的依存： blocked → citing; 错误的依存： acquisition → citing", 3),
    ("blocked → citing 是正确的; acquisition → citing 是错误的", 3),
    ("올바른 의존 관계: blocked → citing; 잘못된 의존 관계: acquisition → citing", 3),
    ("blocked → citing 가 올바름; acquisition → citing 는 잘못됨", 3),
    ("blocked → citing es correcta; acquisition → citing es incorrecta", 3),
    ("Richtig: blocked → citing ; Falsch: acquisition → citing", 3),
    ("acquisition → citing 是正确的; blocked → citing 是错误的", 1)])
def test_3f_roles_given_by_words_of_other_languages(tmp_path, fields, score):
    # the correct arc first: only the words (declared in a2/written/parser_errors.py) say which is which
    r = graded(tmp_path, f"## 3(f)\n\ni. Verb Phrase Attachment Error. {fields}\n")["3f"]
    assert r.score == score, r.outcome.feedback


@pytest.mark.parametrize("header", ["| 句子 | 错误类型 | 正确的依存 | 错误的依存 |", "| 문장 | 오류 유형 | 올바른 의존 관계 | 잘못된 의존 관계 |",
                                    "| Satz | Fehlertyp | Richtige Abhängigkeit | Falsche Abhängigkeit |"])
def test_3f_table_columns_named_in_other_languages(tmp_path, header):
    # the correct column first; "错误类型" (error type) names no role though its 错误 is also "wrong"
    rows = [("i", "VP", "blocked → citing", "acquisition → citing"), ("ii", "Modifier", "crucial → most", "elements → most"),
            ("iii", "PP", "reasons → decision", "declined → decision"), ("iv", "Coordination", "plants → one", "affects → one")]
    table = "\n".join([header, "|---|---|---|---|", *(f"| {r} | {k} attachment error | {a} | {b} |" for r, k, a, b in rows)])
    r = graded(tmp_path, f"## 3(f)\n\n{table}\n")["3f"]
    assert r.score == 12, r.outcome.feedback


ROWS = ("# A2\n\n**Shapes.** $U$ here is `outsideVectors`: a $|V| \\times d$ matrix whose **rows** are the $u_w$, "
        "and all vectors are rows.\n\n## 1(b)(i)\n$$\\frac{{\\partial J}}{{\\partial v_c}} = {rhs}$$\n")


@pytest.mark.parametrize("rhs", [r"(\hat y - y)\,U", r"U^\top (\hat y - y)"])
def test_a_row_layout_stated_loosely_is_flagged_never_credited(tmp_path, rhs):
    r = graded(tmp_path, ROWS.format(rhs=rhs))["1b_i"]
    assert r.score == 0 and r.needs_review and "rows" in r.written.review, r.outcome.feedback
    wrong = graded(tmp_path, ROWS.format(rhs=r"(y - \hat y)\,U"))["1b_i"]
    assert wrong.score == 0 and not wrong.needs_review


CSV = (Path(__file__).parent / "writeups" / "wild" / "23_row_vectors_csv_table" / "3a_table.csv").read_text()


@pytest.mark.parametrize(("csv", "right"), [(CSV, True), (CSV.replace("presented->I", "I->presented"), False)])
def test_a_3a_table_handed_in_as_a_csv_is_read(tmp_path, csv, right):
    (tmp_path / "answers.md").write_text("## 3(a)\n\nSee `steps.csv`.\n\n## 3(b)\n\n$2n$\n", encoding="utf-8")
    (tmp_path / "steps.csv").write_text(csv, encoding="utf-8")
    results, _, notes = grade_written([tmp_path / "answers.md", tmp_path / "steps.csv"], PARTS, 5, runner=RUNNER)
    r = {x.id: x for x in results}["3a"]
    assert full(r) == right and r.score > 0, r.outcome.feedback
    assert not any("cannot read" in n for n in notes), notes


@pytest.mark.parametrize(("brace", "eq", "right"), [
    ("\\left\\{", "(\\hat y_o - 1)", True), ("\\Bigg\\{", "(\\hat y_o - 1)", True),
    ("\\left\\{", "(1 - \\hat y_o)", False)])
def test_cases_as_a_brace_and_an_array(tmp_path, brace, eq, right):
    text = (f"## 1(d)\n\n$$\\frac{{\\partial J}}{{\\partial u_w}} = {brace}\\begin{{array}}{{ll}} {eq}\\,v_c, & w = o"
            "\\\\[2pt] \\hat y_w\\,v_c, & w \\ne o \\end{array}\\right.$$\n")
    r = graded(tmp_path, text)["1d"]
    assert full(r) == right and (right or r.score < r.max_score), r.outcome.feedback


@pytest.mark.parametrize(("row", "right"), [
    ("\\hat y_1 v_c & \\cdots & (\\hat y_o - 1) v_c & \\cdots & \\hat y_{|V|} v_c", True),
    ("\\hat y_1 v_c & \\cdots & \\hat y_o v_c & \\cdots & \\hat y_{|V|} v_c", False),
    ("(\\hat y_1 - 1) v_c & \\cdots & (\\hat y_o - 1) v_c & \\cdots", False),
    ("\\hat y_1 v_c^\\top & \\cdots & (\\hat y_o - 1) v_c^\\top & \\cdots", False)])
def test_1e_as_an_explicit_row_of_columns(tmp_path, row, right):
    text = f"## 1(e)\n\n$$\\frac{{\\partial J}}{{\\partial U}} = \\begin{{bmatrix}} {row} \\end{{bmatrix}}$$\n"
    r = graded(tmp_path, text)["1e"]
    assert full(r) == right and (right or r.score == 0), r.outcome.feedback


@pytest.mark.parametrize(("words", "right"), [
    ("It takes twice the number of words: every word is shifted once and attached once.", True),
    ("Exactly twice as many transitions as there are words.", True),
    ("It takes three times the number of words.", False)])
def test_3b_said_in_words(tmp_path, words, right):
    r = graded(tmp_path, f"**3b.** {words}\n")["3b"]
    assert full(r) == right and (right or (r.score == 0 and not r.needs_review)), r.outcome.feedback


@pytest.mark.parametrize("word", ["第三题 依存句法分析", "문제 3. 의존 구문 분석", "問題3"])
@pytest.mark.parametrize(("steps", "right"), [("2n", True), ("3n", False)])
def test_question_words_in_other_scripts_number_the_part(tmp_path, word, steps, right):
    text = f"## 第一题 word2vec\n\n### (b)\n\nwords\n\n## {word}\n\n### (b)\n\n${steps}$\n"
    r = graded(tmp_path, text)["3b"]
    assert full(r) == right and (right or (r.score == 0 and not r.needs_review)), r.outcome.feedback


@pytest.mark.parametrize("word", ["Pregunta", "Problema", "Aufgabe", "Exercice", "Задача"])
@pytest.mark.parametrize(("steps", "right"), [("2n", True), ("3n", False)])
def test_question_words_of_other_languages_number_the_sub_question(tmp_path, word, steps, right):
    # "Pregunta 3 (b)" is 3(b), as "Question 3 (b)" is ("Problema" is not "Problem" + a letter a)
    text = (f"{word} 1: word2vec\n\n{word} 1 (b)(i)\n\nwords\n\n{word} 3: Dependency parsing\n\n"
            f"{word} 3 (a)\n\nSHIFT, SHIFT, LEFT-ARC\n\n{word} 3 (b)\n\nIt takes {steps} steps.\n")
    r = graded(tmp_path, text, "answers.txt")["3b"]
    assert full(r) == right and (right or (r.score == 0 and not r.needs_review)), r.outcome.feedback


@pytest.mark.parametrize(("gamma", "right"), [("1/(1-p_drop)", True), ("1/p_drop", False)])
def test_gamma_with_a_trailing_remark_in_parentheses(tmp_path, gamma, right):
    r = graded(tmp_path, f"(b)(i)  gamma = {gamma}   (E[d_i] = 1 - p_drop)\n", "p2.txt")["2b_i"]
    assert full(r) == right and (right or r.score == 0), r.outcome.feedback


@pytest.mark.parametrize(("gamma", "right"), [("1/q", True), ("\\frac{1}{q}", True), ("q", False), ("1/(1 - q)", False)])
def test_gamma_in_a_name_the_writeup_defines(tmp_path, gamma, right):
    text = (f"### 2(b)(i)\n\nLet $q = 1 - p_{{\\text{{drop}}}}$ be the probability that a unit is kept. "
            f"Then $\\mathbb{{E}}[h_{{\\text{{drop}}}}] = \\gamma q\\, h$, so $\\gamma = {gamma}$.\n")
    r = graded(tmp_path, text)["2b_i"]
    assert full(r) == right and (right or r.score == 0), r.outcome.feedback
