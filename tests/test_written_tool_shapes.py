"""Shapes of the blind writeups 89-100 (tests/writeups/wild/, BLIND.yaml): files made by tools and
notations students use, one class each, in variants the writeups do not have (another encoding,
another spelling of the same construct). Each right answer is read right (or, where it cannot be
read whole, flagged); a wrong one stays below full.
"""

from __future__ import annotations

import pytest
from written_support import PARTS, RUNNER, full, graded

from a2.written.grade import grade_written
from grader.run.submission import _written_files

GAMMA_MD = "## 2(b)(i)\n\n$$\\gamma = \\frac{1}{1 - p_{drop}}$$\n"


def graded_bytes(folder, data: bytes, name: str):
    path = folder / name
    path.write_bytes(data)
    results, _, _ = grade_written(_written_files(folder), PARTS, 5, runner=RUNNER)
    return {r.id: r for r in results}


# -- the encoding an editor saved the file in ---------------------------------------------------

@pytest.mark.parametrize("codec, bom", [("utf-16-be", "\ufeff"), ("utf-16-le", ""), ("utf-32-le", "\ufeff")])
def test_a_file_in_utf16_or_utf32_is_read(tmp_path, codec, bom):
    text = "2(b)(i)  γ = 1/(1 − p_drop)\r\n\r\n3(b)  2n\r\n"
    got = graded_bytes(tmp_path, (bom + text).encode(codec), "written.txt")
    assert full(got["2b_i"]) and full(got["3b"])


def test_a_file_in_windows_1252_keeps_its_dashes_and_signs(tmp_path):
    text = "1(e)  dJ/dU = v_c · (y_hat – y)^T\r\n\r\n2(b)(i)  gamma = 1 / (1 – p_drop)\r\n"
    got = graded_bytes(tmp_path, text.encode("cp1252"), "answers 2.txt")
    assert full(got["1e"]) and full(got["2b_i"])
    from grader.run.text_encoding import decode_text
    assert decode_text(text.encode("cp1252")) == (text, "Windows-1252")
    assert decode_text("ŷ – y".encode()) == ("ŷ – y", None)
    (tmp_path / "answers 2.txt").unlink()
    assert graded_bytes(tmp_path, "2(b)(i)  gamma = 1 – p_drop\r\n".encode("cp1252"), "a.txt")["2b_i"].score == 0


# -- Markdown dialects and LaTeX inside Markdown --------------------------------------------------

@pytest.mark.parametrize("name", ["notes.mkd", "hw2.mdown", "snip-export.mmd"])
def test_markdown_under_other_suffixes_is_read(tmp_path, name):
    (tmp_path / name).write_text("x", encoding="utf-8")
    assert _written_files(tmp_path) == [tmp_path / name]
    assert full(graded(tmp_path, GAMMA_MD, name)["2b_i"])


def test_latex_sectioning_lines_in_markdown_are_headings(tmp_path):
    text = ("\\section{Question 3}\n\n\\subsection{(b)}\n\nEach word is shifted and attached once: $2n$.\n\n"
            "\\subsection{(e)}\n\n\\subsubsection*{(ii)}\n\n$\\hat{y}_i - y_i$\n")
    got = graded(tmp_path, text, "answers.md")
    assert full(got["3b"]) and full(got["3e_ii"])


def test_inline_math_delimiters_in_table_cells_are_not_part_of_the_words(tmp_path):
    text = ("## 3(f)\n\n| Sentence | Error type | Incorrect dependency | Correct dependency |\n|---|---|---|---|\n"
            "| i | Verb Phrase Attachment Error | acquisition \\(\\to\\) citing | blocked \\(\\to\\) citing |\n"
            "| ii | Modifier Attachment Error | elements \\(\\to\\) most | crucial \\(\\to\\) most |\n"
            "| iii | Prepositional Phrase Attachment Error | declined \\(\\to\\) decision | reasons \\(\\to\\) decision |\n"
            "| iv | Coordination Attachment Error | affects \\(\\to\\) one | plants \\(\\to\\) one |\n")
    assert full(graded(tmp_path, text)["3f"])


def _rows(lines):
    words = ["I", "presented", "my", "findings", "at", "the", "NLP", "conference"]
    seq = ["S", "S", ("LA", "presented", "I"), "S", "S", ("LA", "findings", "my"), ("RA", "presented", "findings"),
           "S", "S", "S", "S", ("LA", "conference", "NLP"), ("LA", "conference", "the"), ("LA", "conference", "at"),
           ("RA", "presented", "conference"), ("RA", "ROOT", "presented")]
    stack, buf, out = ["ROOT"], list(words), []
    for t in seq:
        if t == "S":
            stack.append(buf.pop(0))
            name, arc = "SHIFT", ""
        else:
            del stack[-2 if t[0] == "LA" else -1]
            name, arc = ("LEFT-ARC" if t[0] == "LA" else "RIGHT-ARC"), f"{t[1]} -> {t[2]}"
        out.append(f"| {' '.join(stack)} | {' '.join(buf)} | {arc} | {name} |")
    return out[lines]


def test_a_table_continued_under_its_repeated_header_is_one_table(tmp_path):
    head = "| Stack | Buffer | New dependency | Transition |\n|---|---|---|---|\n"
    text = ("## 3(a)\n\n" + head + "\n".join(_rows(slice(0, 7))) + "\n\n*(continued on the next page)*\n\n"
            + head + "\n".join(_rows(slice(7, 16))) + "\n")
    assert full(graded(tmp_path, text)["3a"])
    first = "\n".join(_rows(slice(0, 16)))        # a second attempt starts over: never appended to the first
    assert full(graded(tmp_path, "## 3(a)\n\n" + head + first + "\n\nAgain, neater:\n\n" + head + first + "\n")["3a"])


# -- web pages with MathML ------------------------------------------------------------------------

def _page(body: str) -> str:
    return f"<html><body><h2>2(b)(i)</h2><p>{body}</p><h2>1(b)(i)</h2><p>see below</p></body></html>"


def test_mathml_scripts_fences_and_powers_are_read(tmp_path):
    gamma = ('<math><mi>&gamma;</mi><mo>=</mo><msup><mrow><mo>(</mo><mn>1</mn><mo>&minus;</mo>'
             '<msub><mi>p</mi><mtext>drop</mtext></msub><mo>)</mo></mrow><mrow><mo>-</mo><mn>1</mn></mrow></msup></math>')
    assert full(graded(tmp_path, _page(gamma), "a2.html")["2b_i"])
    annotated = ('<math display="block"><semantics><mrow><mi>&gamma;</mi><mo>=</mo><mn>1</mn></mrow>'
                 '<annotation encoding="application/x-tex">\\gamma = \\frac{1}{1-p_{drop}}</annotation></semantics></math>')
    assert full(graded(tmp_path, _page(annotated), "a2.htm")["2b_i"])
    wrong = '<math><mi>&gamma;</mi><mo>=</mo><mfrac><mn>1</mn><msub><mi>p</mi><mtext>drop</mtext></msub></mfrac></math>'
    assert graded(tmp_path, _page(wrong), "a2.html")["2b_i"].score == 0


# -- LaTeX packages and classes -------------------------------------------------------------------

PHYSICS = ("\\documentclass{article}\n\\usepackage{amsmath,physics}\n\\begin{document}\n\\section*{Question 1}\n"
           "\\subsection*{(e)}\n$$\\pdv{J}{\\vb{U}} = \\vb{v}_c\\qty[\\hat{\\vb{y}} - \\vb{y}]^{\\mathsf{T}}$$\n"
           "\\end{document}\n")


def test_the_physics_packages_macros_are_read_when_it_is_loaded(tmp_path):
    assert full(graded(tmp_path, PHYSICS, "hw.tex")["1e"])
    got = graded(tmp_path, PHYSICS.replace(",physics", ""), "hw.tex")["1e"]      # never guessed without it
    assert got.score == 0 and got.needs_review


BEAMER = ("\\documentclass{beamer}\n\\begin{document}\n\\begin{frame}[fragile]{Question 2(b)(i)}\n"
          "Kept with probability $1 - p_{drop}$, so $\\gamma = \\frac{1}{1 - p_{drop}}$.\n\\end{frame}\n"
          "\\begin{frame}\n\\frametitle{Question 3(b)}\n$2n$ steps\n\\end{frame}\n"
          "\\begin{frame}{3(e)}\n\\begin{enumerate}[(i)]\n\\item $\\mathbb{1}[(xW + b_1)_i > 0]\\, W_{ji}$\n"
          "\\item $\\hat{y}_i - y_i$\n\\end{enumerate}\n\\end{frame}\n\\end{document}\n")


def test_beamer_slide_titles_are_headings(tmp_path):
    got = graded(tmp_path, BEAMER, "slides.tex")
    assert full(got["2b_i"]) and full(got["3b"]) and full(got["3e_i"]) and full(got["3e_ii"])


def test_an_enumerates_own_roman_labels_number_its_items(tmp_path):
    text = ("\\documentclass{article}\n\\usepackage{enumitem}\n\\begin{document}\n\\section{Part 3}\n"
            "\\begin{enumerate}[label=(\\alph*)]\n\\item skipped\n\\item $2n$\n\\item skipped\n\\item skipped\n"
            "\\item \\begin{enumerate}[label=\\roman*.]\n\\item $W_{ji}$ if $(xW + b_1)_i > 0$, else $0$\n"
            "\\item $\\hat{y}_i - y_i$\n\\end{enumerate}\n\\end{enumerate}\n\\end{document}\n")
    got = graded(tmp_path, text, "a2.tex")
    assert full(got["3b"]) and full(got["3e_i"]) and full(got["3e_ii"])


# -- notation: one-hot vectors, ties, remarks, conditions -----------------------------------------

@pytest.mark.parametrize("answer", ["v_c(\\hat{y} - \\boldsymbol{e}_{o})^T", "v_c(\\hat{y} - \\mathrm{onehot}(o))^\\top"])
def test_a_one_hot_vector_is_the_indicator_proven_by_evaluation(tmp_path, answer):
    assert full(graded(tmp_path, f"## 1(e)\n\n$$\\frac{{\\partial J}}{{\\partial U}} = {answer}$$\n")["1e"])
    for wrong in ("(\\hat{y} - e_o) v_c^T", "v_c(e_o - \\hat{y})^T"):      # proven, so a wrong one stays wrong
        assert graded(tmp_path, f"## 1(e)\n\n$$\\frac{{\\partial J}}{{\\partial U}} = {wrong}$$\n")["1e"].score == 0
    got = graded(tmp_path, "## 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = U(\\hat{y} - e_c)$$\n")["1b_i"]
    assert got.score == 0 and got.needs_review         # c is no index of word2vec's vectors


def test_a_tex_tie_is_a_space(tmp_path):
    got = graded(tmp_path, "## 1(b)(i)\n\n$$\\frac{\\partial J}{\\partial v_c} = U~(\\hat{y} - y)\\text{~}$$\n")
    assert full(got["1b_i"])


def test_a_shape_noted_after_a_plain_formula_is_a_remark(tmp_path):
    assert full(graded(tmp_path, "1(e)\n\ndJ/dU = v_c (y_hat - y)^T   (d x |V|)\n", "a.txt")["1e"])


def test_a_condition_word_after_a_formula_names_its_case(tmp_path):
    text = ("## 1(d)\n\n$\\frac{\\partial J}{\\partial u_w} = (\\hat{y}_o - 1) v_c$ for $w = o$ and "
            "$\\hat{y}_w v_c$ otherwise\n")
    assert full(graded(tmp_path, text)["1d"])


def test_a_lost_not_equal_sign_is_read_in_1d(tmp_path):
    text = "1(d)\ndJ/du_w = (y_hat_o - 1) v_c  when w = o\ndJ/du_w = y_hat_w v_c  when w?o\n"
    assert full(graded(tmp_path, text, "a.txt")["1d"])


def test_a_scanned_index_0_is_read_as_o_with_a_doubt(tmp_path):
    right = "## 1(d)\n\n$\\hat{y}_0 v_c - v_c$ when $w = 0$ and $\\hat{y}_w v_c$ when $w \\ne 0$\n"
    got = graded(tmp_path, right)["1d"]
    assert full(got) and "read as the letter o" in " ".join(got.written.reading)
    wrong = graded(tmp_path, right.replace("- v_c", "+ v_c"))["1d"]
    assert wrong.score == 2 and wrong.needs_review and "read as the letter o" in wrong.written.review


# -- Markdown written by editors ------------------------------------------------------------------

def test_google_docs_escapes_are_undone(tmp_path):
    text = "# **Part 1**\n\n## **(e)**\n\n∂J/∂U \\= v\\_c (ŷ \\- y)ᵀ\n\n## **(b)**\n\n### **(i)**\n\n∂J/∂v\\_c \\= U(ŷ − y)\n"
    got = graded(tmp_path, text, "Doc.md")
    assert full(got["1e"]) and full(got["1b_i"])


def test_a_bold_plain_formula_is_read(tmp_path):
    got = graded(tmp_path, "## 2(b)(i)\n\nThe scale is __γ = 1/(1 − p_drop)__ here.\n")["2b_i"]
    assert full(got)


def test_an_outliner_page_is_read_as_headings(tmp_path):
    text = ("- **Assignment 2**\n  - Q2\n    - (b)\n      - (i)\n        - γ = 1/(1 − p_drop)\n      - (ii)\n"
            "        - no dropout at test time\n  - Q3\n    - (b)\n      - collapsed:: true\n      - 2n\n")
    got = graded(tmp_path, text, "Assignment 2.md")
    assert full(got["2b_i"]) and full(got["3b"])


# -- arcs in a 3(a) table -------------------------------------------------------------------------

def _arc_table(arrow: str) -> str:
    rows = [r.replace(" -> ", f" {arrow} ") for r in _rows(slice(0, 16))]
    return "## 3(a)\n\n| Stack | Buffer | New dependency | Transition |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("arrow", ["⟹", "⇉", "\\Longrightarrow", "\\hookrightarrow", "==>"])
def test_an_arrow_is_read_by_the_direction_its_name_says(tmp_path, arrow):
    assert full(graded(tmp_path, _arc_table(arrow))["3a"])


@pytest.mark.parametrize("arrow", ["⇄", "\\leftrightarrow", "&"])
def test_an_arc_no_arrow_spelling_reads_is_flagged(tmp_path, arrow):
    got = graded(tmp_path, _arc_table(arrow.replace("&", "\\&")))["3a"]
    assert got.score < 4 and got.needs_review


# -- chat-assistant finals ------------------------------------------------------------------------

def test_a_box_after_a_final_answer_marker_is_its_formula(tmp_path):
    got = graded(tmp_path, "## 2(b)(i)\n\n**Final answer:** $\\boxed{\\gamma = \\tfrac{1}{1 - p_{\\text{drop}}}}$\n")
    assert full(got["2b_i"])
    wrong = graded(tmp_path, "## 2(b)(i)\n\n**Final answer:** $\\boxed{\\gamma = 1 - p_{\\text{drop}}}$\n")["2b_i"]
    assert wrong.score == 0


def test_a_braced_group_is_a_group_never_a_set(tmp_path):
    assert full(graded(tmp_path, "## 3(b)\n\n**Answer:** $\\boldsymbol{2n}$ transitions\n")["3b"])
    assert graded(tmp_path, "## 3(b)\n\n**Answer:** $\\boldsymbol{2n+1}$ transitions\n")["3b"].score == 0


def test_words_in_italics_are_the_words(tmp_path):
    rows = [("Verb Phrase", "acquisition", "citing", "blocked", "citing"), ("Modifier", "elements", "most", "crucial", "most"),
            ("Prepositional Phrase", "declined", "decision", "reasons", "decision"),
            ("Coordination", "affects", "one", "plants", "one")]
    text = "## 3(f)\n\n" + "\n".join(
        f"{n}. Error type: {t} Attachment Error. Incorrect dependency: _{a}_ -> _{b}_. Correct dependency: _{c}_ -> _{d}_.\n"
        for n, (t, a, b, c, d) in zip(("i", "ii", "iii", "iv"), rows))
    assert full(graded(tmp_path, text)["3f"])


# -- editors' HTML scripts and code-style ASCII ---------------------------------------------------

def test_html_sub_and_sup_tags_are_scripts(tmp_path):
    got = graded(tmp_path, "## 1(e)\n\n∂J/∂U = v<sub>c</sub> (ŷ − y)<sup>⊤</sup>\n\n## 2(b)(i)\n\nγ = 1 / (1 − p<sub>drop</sub>)\n")
    assert full(got["1e"]) and full(got["2b_i"])
    assert graded(tmp_path, "## 1(e)\n\n∂J/∂U = (ŷ − y)<sup>T</sup> v<sub>c</sub>\n")["1e"].score == 0


def test_code_style_ascii_a_matrix_product_and_a_comment(tmp_path):
    text = "1(b)(i)\ndJ/dv_c = U @ (y_hat - y)   # a d-vector\n\n3(e)(ii)\ndCE/dl_i = y_hat_i - y_i (e.g. softmax(l) - y)\n"
    got = graded(tmp_path, text, "answers.txt")
    assert full(got["1b_i"]) and full(got["3e_ii"])
    assert graded(tmp_path, "1(b)(i)\ndJ/dv_c = U @ (y - y_hat)  # a d-vector\n", "answers.txt")["1b_i"].score == 0
