"""a2.written.sections / latex_doc: each question's section, whatever the heading style."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REFERENCE, TEMPLATE

from a2.written.documents import locate
from a2.written.latex_doc import outline
from a2.written.sections import locate_markdown, parse_label
from a2.written.tables import clean, table_rows
from grader.run.rubric import load_rubric

WRITEUPS = Path(__file__).parent / "writeups"
QUESTIONS = {p.id for p in load_rubric().written}


def sections_of(path: Path, name: str = "answers.md"):
    return locate([(name, path.read_text())], QUESTIONS).sections


@pytest.mark.parametrize("text, heading, expected", [
    ("## (b)(i) Partial derivative", True, (None, "b", "i")),
    ("### b-i", True, (None, "b", "i")),
    ("3(b)", False, (3, "b", None)),
    ("**(e)(ii)** $x$", False, (None, "e", "ii")),
    ("### ii", True, (None, None, "ii")),
    ("### 1(b)(iii) (2 points)", True, (1, "b", "iii")),
    ("## Part 2: machine learning", True, (2, None, None)),
    ("### 3. Dependency Parsing", True, (3, None, None)),
    ("Question 3 (f)", True, (3, "f", None)),
    ("$$3(b) \\frac{a}{b}$$", False, (3, "b", None)),
    ("i. \"The university blocked\"", False, (None, None, "i")),
    ("c)", True, (None, "c", None)),
    ("(a)(ii) Adaptive learning rates", True, (None, "a", "ii")),
])
def test_labels_in_any_style(text, heading, expected):
    label = parse_label(text, heading=heading)
    assert label is not None and (label.part, label.letter, label.roman) == expected


@pytest.mark.parametrize("text, heading", [
    ("2 steps are needed", False), ("2n", True), ("Derivation:", True), ("**Answer:**", False),
    ("a note on notation", True), ("I think so", False), ("Proof that naive softmax", True),
])
def test_text_that_is_not_a_label(text, heading):
    assert parse_label(text, heading=heading) is None


def test_reference_has_every_question_and_the_template_every_heading_empty():
    ref = locate([("answers.md", (REFERENCE / "answers.md").read_text())], QUESTIONS).sections
    assert set(ref) == QUESTIONS and all(not s.empty for s in ref.values())
    tpl = locate([("answers.md", (TEMPLATE / "answers.md").read_text())], QUESTIONS).sections
    assert set(tpl) == QUESTIONS and all(s.empty for s in tpl.values())


def test_quoted_questions_and_comments_are_not_answers():
    text = "### 3(b)\n\n> How many steps for $n$ words? Say $2n$.\n\n<!-- e.g. 2n -->\n\nmy answer\n"
    section = locate_markdown(text, QUESTIONS).sections["3b"]
    assert section.body.strip() == "my answer"


def test_real_writeup_001_sections_and_label_mismatch():
    found = sections_of(WRITEUPS / "001_b7a4162c9f4dc5cc.txt")
    assert set(found) == QUESTIONS - {"3a", "3b", "3f", "3g"}
    assert "read as 1(a) from its content" in found["1a"].notes[0]
    # Its "(d)" is about U and its "(e)" about u_w: the content decides, and the notes say so.
    assert found["1e"].label == "(d)" and "about the question 1(e), not 1(d)" in found["1e"].notes[0]
    assert found["1d"].label == "(e)" and "about the question 1(d), not 1(e)" in found["1d"].notes[0]
    assert "Adam" not in found["2b_i"].body and "gamma" in found["2b_i"].body


def test_real_writeup_002_is_only_a_3b_section():
    found = sections_of(WRITEUPS / "002_7f5629604cb217cb.txt")
    assert set(found) == {"3b"}


def test_free_form_headings():
    found = sections_of(WRITEUPS / "freeform.md")
    assert set(found) == QUESTIONS
    assert found["1b_i"].label == "i" and "boxed" in found["1b_i"].body
    assert found["2b_i"].label == "b-i" and found["3e_ii"].label == "(e)(ii)"


def test_latex_writeup_uses_the_same_reader():
    markdown, (markers, _) = outline((WRITEUPS / "part3.tex").read_text())
    headings = [(m.heading, m.level) for m in markers if m.is_heading]
    assert ("(b)", 3) in headings and ("(ii)", 4) in headings and "| **Stack**" not in markdown   # no Markdown table text
    found = sections_of(WRITEUPS / "part3.tex", "part3.tex")
    assert set(found) == {"3a", "3b", "3e_i", "3e_ii", "3f", "3g"}
    header = table_rows(found["3a"].body)[0][0]                # the tabular's rows, read from its nodes
    assert [clean(c) for c in header.cells[:2]] == ["Stack", "Buffer"]
    assert "2n" in found["3b"].body


def test_giant_files_are_cut(tmp_path):
    text = "### 3(b)\n\nAnswer: $2n$\n" + "x" * 2_000_000
    found = locate([("answers.md", text)], QUESTIONS)
    assert "only the first" in found.notes[0] and "3b" in found.sections


def test_one_tex_file_per_part():
    part2 = r"""\section{Machine Learning \& Neural Networks}
\begin{enumerate}
\item \begin{enumerate} \item Momentum smooths the updates. \item Rare parameters get larger steps. \end{enumerate}
\item \begin{enumerate} \item \textbf{Answer:} $\gamma = \frac{1}{1-p_{\text{drop}}}$ \item Only in training. \end{enumerate}
\end{enumerate}"""
    files = [("a2_part2.tex", part2), ("a2_part3.tex", (WRITEUPS / "part3.tex").read_text())]
    found = locate(files, QUESTIONS).sections
    assert {"2a_i", "2a_ii", "2b_i", "2b_ii", "3a", "3f"} <= set(found)
    assert "gamma" in found["2b_i"].body and "Only in training" in found["2b_ii"].body


# ---------------------------------------------------------------------------------------------
# The course's LaTeX template

def test_exam_parts_are_numbered_by_position_and_brackets_are_points():
    tex = ("\\titledquestion{Neural Transition-Based Dependency Parsing}[54]\n\\begin{parts}\n"
           "\\part[4] Table. \\answer{}\n\\part[2] How many steps for $n$ words? \\answer{$2n$}\n\\end{parts}\n")
    found = locate([("q3.tex", tex)], QUESTIONS).sections
    assert found["3b"].body.strip() == "$2n$" and found["3b"].label == "3(b)" and found["3a"].empty
    assert found["3b"].where == "q3.tex, line 4"


def test_a_recursive_macro_costs_only_its_writeup():
    tex = ("\\newcommand{\\loop}{\\loop\\loop}\n\\titledquestion{Machine Learning}\n\\begin{parts}\\part[4] Adam \\part[4] x"
           "\\begin{subparts}\\subpart[2] Find $\\gamma$ for dropout. \\answer{$\\gamma = \\frac{1}{1-p} \\loop$}"
           "\\end{subparts}\\end{parts}")
    found = locate([("q2.tex", tex)], QUESTIONS).sections
    assert "\\loop" in found["2b_i"].body and "could not be expanded" in found["2b_i"].notes[0]


def test_inputs_resolve_among_uploaded_files_only_and_macros_are_shared():
    main = ("\\newcommand{\\byt}{\\hat{\\by}}\n\\begin{document}\\input{parts/first}\\input{dep_parses.tex}"
            "\\input{/etc/passwd}\\end{document}")
    first = ("\\question\\begin{parts}\\part[2] a \\answer{x}\\part[6]\\begin{subparts}\\subpart[2] Compute "
             "the gradient with respect to $\\bv_c$. \\answer{$\\bU(\\byt - \\by)$}\\end{subparts}\\end{parts}")
    found = locate([("a2.tex", main), ("parts/first.tex", first)], QUESTIONS).sections
    assert found["1b_i"].body.strip() == "$\\mathbf{U}(\\hat{\\mathbf{y}} - \\mathbf{y})$"
    assert found["1b_i"].where == "parts/first.tex, line 1"


def test_a_filled_file_wins_over_an_empty_template():
    filled = "\\titledquestion{Understanding word2vec}\\begin{parts}\\part[2] x \\answer{It is $-\\log \\hat{y}_o$.}\\end{parts}"
    found = locate([("answers.md", (TEMPLATE / "answers.md").read_text()), ("q1.tex", filled)], QUESTIONS).sections
    assert "log" in found["1a"].body and found["1a"].where.startswith("q1.tex")


def test_latex_heading_markers_cannot_be_forged_by_the_text():
    """outline() holds each heading's (and numbered item's) place with a private-use character; a writeup that
    types one is read as text."""
    text = "\\section*{3(b)}\n\ue0000\ue000\n\n\ue000x\ue000 It takes $2n$ steps.\n\ue0010\ue001\n\\section*{3(f)}\nNone.\n"
    lines, (markers, _) = outline(text)
    assert [(m.heading, m.line) for m in markers] == [("3(b)", 0), ("3(f)", lines.split("\n").index("3(f)"))]
    assert "It takes $2n$ steps." in locate([("a.tex", text)], QUESTIONS).sections["3b"].body
