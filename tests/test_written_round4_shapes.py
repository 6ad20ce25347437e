"""Shapes of the blind writeups 101-112 (tests/writeups/wild/, BLIND.yaml, round 4), one class each,
in variants the writeups do not have (another spelling of the same construct, another place for it).
Each right answer is read right (or, where it cannot be read whole, flagged); a wrong one stays
below full.
"""

from __future__ import annotations

from written_support import full, scored

WORDS = ["I", "presented", "my", "findings", "at", "the", "NLP", "conference"]
SEQ = ["S", "S", ("LA", "presented", "I"), "S", "S", ("LA", "findings", "my"), ("RA", "presented", "findings"),
       "S", "S", "S", "S", ("LA", "conference", "NLP"), ("LA", "conference", "the"), ("LA", "conference", "at"),
       ("RA", "presented", "conference"), ("RA", "ROOT", "presented")]
NAMES = {"S": "SHIFT", "LA": "LEFT-ARC", "RA": "RIGHT-ARC"}


def configurations():
    """(stack, buffer, (head, dependent) or None, transition) of the 16 gold steps."""
    stack, buf, out = ["ROOT"], list(WORDS), []
    for t in SEQ:
        if t == "S":
            stack.append(buf.pop(0))
            out.append((list(stack), list(buf), None, "SHIFT"))
        else:
            del stack[-2 if t[0] == "LA" else -1]
            out.append((list(stack), list(buf), (t[1], t[2]), NAMES[t[0]]))
    return out


# -- wiki markup (MediaWiki) saved as text -------------------------------------------------------

def _wiki_table() -> str:
    """Header cells one per line, body cells one per line: the wiki's other table layout."""
    out = ['{| class="wikitable sortable"', "|+ Parse of the sentence", "! Stack", "! Buffer", "! Transition", "! Arc"]
    for stack, buf, arc, name in configurations():
        out += ["|-", f"| {' '.join(stack)}", f"| {' '.join(buf)}", f"| {name}",
                f"| {arc[0]} &#8594; {arc[1]}" if arc else "|"]
    return "\n".join(out + ["|}"])


def test_wiki_markup_headings_math_and_tables_are_read(tmp_path):
    text = ("== Problem 2 ==\n==(b)(i)==\n'''Answer:''' <math display=\"block\">\n\\gamma = \\frac{1}{1 - p_{\\text{drop}}}\n"
            "</math>\n\n== Problem 3 ==\n=== 3(a) ===\n" + _wiki_table() + "\n\n=== 3(b) ===\n* ''2n'' steps: <math>2n</math>\n"
            "=== 3(e)(ii) ===\n:<math>\\hat{y}_i - y_i</math>\n")
    got = scored(tmp_path, {"HW2.wiki": text})
    assert full(got["2b_i"]) and full(got["3a"]) and full(got["3b"]) and full(got["3e_ii"])
    wrong = scored(tmp_path / "w", {"notes.txt": text.replace("\\hat{y}_i - y_i", "y_i - \\hat{y}_i")})
    assert wrong["3e_ii"].score == 0 and full(wrong["3a"])


def test_wiki_numbered_lists_with_breaks_hold_the_3f_fields(tmp_path):
    keys = [("Verb Phrase", "acquisition", "citing", "blocked"), ("Modifier", "elements", "most", "crucial"),
            ("Prepositional Phrase", "declined", "decision", "reasons"), ("Coordination", "affects", "one", "plants")]
    items = "\n".join(f"# {kind} Attachment Error<br>''incorrect'': {a} &rarr; {b}<br/>''correct'': {c} &rarr; {b}"
                      for kind, a, b, c in keys)
    text = "= CS224N =\n== Question 3 ==\n=== (f) ===\n" + items + "\n\n[[Category:Homework]]\n"
    assert full(scored(tmp_path, {"a2_answers.txt": text})["3f"])


# -- a table that stops before the parse is complete ------------------------------------------------

ARROW = " $\\to$ "


def _md_rows(confs) -> str:
    return "\n".join(f"| [{', '.join(s)}] | [{', '.join(b)}] | {f'{a[0]} → {a[1]}' if a else ''} | {t} |"
                     for s, b, a, t in confs)


def test_a_table_ending_before_the_parse_is_complete_goes_to_a_ta(tmp_path):
    head = "| Stack | Buffer | New dependency | Transition |\n|---|---|---|---|\n"
    for stop in (9, 12):            # cut after a SHIFT, and after a LEFT-ARC
        text = "## 3(a)\n\n" + head + _md_rows(configurations()[:stop]) + "\n\n## 3(b)\n\n$2n$\n"
        r = scored(tmp_path / str(stop), {"hw.md": text})["3a"]
        assert r.score < r.max_score and r.needs_review and "not complete" in r.written.why[1]
    latex = ("\\section*{3(a)}\n\\begin{tabular}{llll}\nStack & Buffer & Arc & Step \\\\\n"
             + "\n".join(f"[{', '.join(s)}] & [{', '.join(b)}] & {ARROW.join(a) if a else ''} & {t} " + "\\\\"
                         for s, b, a, t in configurations()[:13]) + "\n\\end{tabular}\n")
    assert scored(tmp_path / "tex", {"a2.tex": latex})["3a"].needs_review


# -- LaTeX: list counters set by hand, xparse's document commands ------------------------------------

def test_an_enumerate_counter_set_or_advanced_by_hand_numbers_the_next_items(tmp_path):
    text = ("\\documentclass{article}\\begin{document}\n\\section*{Question 3}\n\\begin{enumerate}\n"
            "\\item The table is on paper.\n\\addtocounter{enumi}{3}\n\\item\n\\begin{enumerate}\n"
            "\\setcounter{enumii}{1}\n\\item $\\frac{\\partial CE}{\\partial l_i}$ is $\\hat{y}_i - y_i$.\n"
            "\\end{enumerate}\n\\end{enumerate}\n\\section*{Question 2}\n\\begin{enumerate}\n\\setcounter{enumi}{1}\n"
            "\\item \\begin{enumerate}\\item $\\gamma = 1/(1 - p_{drop})$ \\end{enumerate}\n\\end{enumerate}\n\\end{document}\n")
    got = scored(tmp_path, {"hw2.tex": text})
    assert full(got["3e_ii"]) and not got["3e_ii"].needs_review and full(got["2b_i"])


def test_xparse_document_commands_are_expanded(tmp_path):
    main = ("\\documentclass{article}\n\\usepackage{xparse}\n"
            "\\RenewDocumentCommand{\\arc}{ m m }{\\textit{#1} $\\rightarrow$ \\textit{#2}}\n"
            "\\NewDocumentCommand\\grad{o m}{\\nabla_{#2}}\n\\DeclareDocumentCommand{\\steps}{O{n}}{2#1}\n"
            "\\begin{document}\n\\section*{3(b)} $\\steps$\n\\section*{1(b)(i)} $\\grad{v_c} J = U(\\hat{y} - y)$\n"
            "\\section*{Question 3}\n\\subsection*{(f)}\n\\begin{enumerate}\n"
            "\\item Verb Phrase Attachment Error. Incorrect: \\arc{acquisition}{citing}. Correct: \\arc{blocked}{citing}.\n"
            "\\item Modifier Attachment Error. Incorrect: \\arc{elements}{most}. Correct: \\arc{crucial}{most}.\n"
            "\\item Prepositional Phrase Attachment Error. Incorrect: \\arc{declined}{decision}. Correct: \\arc{reasons}{decision}.\n"
            "\\item Coordination Attachment Error. Incorrect: \\arc{affects}{one}. Correct: \\arc{plants}{one}.\n"
            "\\end{enumerate}\n\\end{document}\n")
    got = scored(tmp_path, {"main.tex": main})
    assert full(got["3f"]) and full(got["3b"]) and full(got["1b_i"])


# -- stacks written top first ------------------------------------------------------------------------

def test_stacks_written_top_first_are_read_bottom_first(tmp_path):
    confs = configurations()
    plain = "\n".join(f"{' '.join(reversed(s))} | {' '.join(b) or '-'} | {t} | {' -> '.join(a) if a else ''}"
                      for s, b, a, t in confs)
    text = "3(a)\n\nstack | buffer | transition | arc\n--- | --- | --- | ---\n" + plain + "\n\n3(b) 2n\n"
    r = scored(tmp_path, {"a.txt": text})["3a"]
    assert full(r) and not r.needs_review and any("top first" in line for line in r.outcome.feedback)
    wrong = list(confs)
    wrong[6] = (["ROOT", "presented", "findings"], wrong[6][1], wrong[6][2], wrong[6][3])   # findings not popped
    text = "## 3(a)\n\n| Stack | Buffer | Arc | Move |\n|---|---|---|---|\n" + "\n".join(
        f"| [{', '.join(reversed(s))}] | [{', '.join(b)}] | {' → '.join(a) if a else ''} | {t} |" for s, b, a, t in wrong)
    assert scored(tmp_path / "w", {"a.md": text})["3a"].score < 4


# -- LyX's own file ----------------------------------------------------------------------------------

def _lyx(body: str) -> str:
    return ("#LyX 2.3 created this file. For more info see https://www.lyx.org/\n\\lyxformat 544\n\\begin_document\n"
            "\\begin_header\n\\textclass article\n\\end_header\n\n\\begin_body\n\n" + body + "\\end_body\n\\end_document\n")


def _layout(kind: str, *lines: str) -> str:
    return f"\\begin_layout {kind}\n" + "\n".join(lines) + "\n\\end_layout\n\n"


def _cell(text: str) -> str:
    return ('<cell alignment="center" valignment="top" usebox="none">\n\\begin_inset Text\n\n'
            + _layout("Plain Layout", text) + "\\end_inset\n</cell>\n")


def test_a_lyx_file_is_read_as_the_document_it_prints(tmp_path):
    rows = "".join("<row>\n" + "".join(_cell(c) for c in (" ".join(s), " ".join(b), t, " -> ".join(a) if a else ""))
                   + "</row>\n" for s, b, a, t in configurations())
    table = ('\\begin_inset Tabular\n<lyxtabular version="3" rows="17" columns="4">\n<features tabularvalignment="middle">\n'
             + '<column alignment="center" valignment="top">\n' * 4 + "<row>\n"
             + "".join(_cell(h) for h in ("stack", "buffer", "transition", "arc")) + "</row>\n" + rows
             + "</lyxtabular>\n\n\\end_inset\n")
    body = (_layout("Section", "Question 2") + _layout("Subsubsection", "(b)(i)")
            + _layout("Standard", "\\begin_inset Note Note\nstatus open\n\n"
                      + _layout("Plain Layout", "draft: \\begin_inset Formula $\\gamma=1-p$\n\\end_inset\n") + "\\end_inset\n",
                      "The scale is", "\\begin_inset Formula \n\\begin{align*}\n\\gamma & =\\frac{1}{1-p_{\\text{drop}}}\n"
                      "\\end{align*}\n\n\\end_inset\n")
            + _layout("Section", "Question 3") + _layout("Subsection", "(a)") + _layout("Standard", table)
            + _layout("Subsection", "(e)") + _layout("Standard", "(i) ", "\\begin_inset Formula $\\frac{\\partial h_{i}}{\\partial x_{j}}"
                                                      "=\\mathbb{1}\\{(xW+b_{1})_{i}>0\\}W_{ji}$\n\\end_inset\n")
            + _layout("Standard", "(ii) ", "\\series bold\nAnswer:\n\\series default\n \\begin_inset Formula $\\hat{y}_{i}$\n\\end_inset\n"))
    got = scored(tmp_path, {"hw2.lyx": _lyx(body)})
    assert full(got["2b_i"]) and full(got["3a"]) and full(got["3e_i"])
    assert got["3e_ii"].score == 0            # ŷ_i alone: the −y_i is missing


# -- MyST (Jupyter Book) directives and roles -----------------------------------------------------------

def test_myst_directives_and_roles_in_a_jupyter_book_notebook(tmp_path):
    import json
    rows = ["```{list-table}", ":widths: 10 30 30 30", "", "* - Sentence", "  - Type", "  - Incorrect", "  - Correct"]
    for n, kind, a, b, c in (("i", "Verb Phrase", "acquisition", "citing", "blocked"),
                             ("ii", "Modifier", "elements", "most", "crucial"),
                             ("iii", "Prepositional Phrase", "declined", "decision", "reasons"),
                             ("iv", "Coordination", "affects", "one", "plants")):
        rows += [f"* - {n}", f"  - {kind}", "    Attachment Error", f"  - {a} → {b}", f"  - {c} → {b}"]
    cells = [
        "(q2)=\n## 2(b)(i)\n\n::::{dropdown} Answer\n:open:\n\n:::{math}\n:label: gamma\n"
        "\\gamma = \\frac{1}{1 - p_{\\text{drop}}}\n:::\n::::\n",
        "## 3(e)(ii)\n\nIn {eq}`gamma`'s notation, {math}`\\frac{\\partial CE}{\\partial l_i} = \\hat y_i - y_i`.\n",
        "## 3(f)\n\n" + "\n".join(rows + ["```"]) + "\n",
    ]
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": c} for c in cells],
          "metadata": {"jupytext": {"text_representation": {"format_name": "myst"}}}, "nbformat": 4, "nbformat_minor": 5}
    got = scored(tmp_path, {"book/a2.ipynb": json.dumps(nb)})
    assert full(got["2b_i"]) and full(got["3e_ii"]) and full(got["3f"])
    md = "\n\n".join(cells).replace("\\hat y_i - y_i", "y_i - \\hat y_i")
    assert scored(tmp_path / "w", {"a2.md": md})["3e_ii"].score == 0


# -- answers given as numpy code ------------------------------------------------------------------------

def test_an_answer_given_only_as_numpy_code_is_read_as_the_math_it_computes(tmp_path):
    text = ("### 1(b)(i)\n\n```py\ngrad = U.dot(yhat - y)\n```\n\n### 1(e)\n\n```python\n"
            "# the whole matrix at once\ngrad_U = np.outer(center, yhat - y)\ngrad_U = np.outer(v_c, yhat - y)\n```\n\n"
            "### 2(b)(i)\n\n~~~python\ngamma = 1. / (1 - p_drop)\n~~~\n\n### 3(b)\n\nIn code: `steps = 2*n`\n\n"
            "### 3(e)(i)\n\n```\nz = x @ W + b1\ndh_dx[i, j] = (z[i] > 0) * W[j, i]\n```\n")
    got = scored(tmp_path, {"a2.md": text})
    assert all(full(got[q]) for q in ("1b_i", "1e", "2b_i", "3b", "3e_i"))
    wrong = text.replace("np.outer(v_c, yhat - y)", "np.outer(yhat - y, v_c)").replace("W[j, i]", "W[i, j]")
    got = scored(tmp_path / "w", {"a2.md": wrong})
    assert got["1e"].score == 0 and got["3e_i"].score == 0
    # code beside a formula is never the answer: the formula is
    both = "### 1(b)(i)\n\n$U(\\hat y - y)$\n\n```python\ngrad = U.T @ (yhat - y)\n```\n"
    assert full(scored(tmp_path / "b", {"a2.md": both})["1b_i"])


def test_a_table_or_the_3f_answers_as_a_python_literal_are_read(tmp_path):
    rows = [(s, b, f"{a[0]} -> {a[1]}" if a else "", {"SHIFT": "S", "LEFT-ARC": "LA", "RIGHT-ARC": "RA"}[t])
            for s, b, a, t in configurations()]
    table = "```python\nTABLE = [\n" + "\n".join(f"    {list(r)!r}," for r in rows) + "\n]\n```\n"
    errors = ("```python\n# sentence: (error type, correct dependency, incorrect dependency)\nF = {\n"
              "    1: ('verb phrase attachment', ('blocked', 'citing'), ('acquisition', 'citing')),\n"
              "    2: ('modifier attachment', ('crucial', 'most'), ('elements', 'most')),\n"
              "    3: ('prepositional phrase attachment', ('reasons', 'decision'), ('declined', 'decision')),\n"
              "    4: ('coordination attachment', ('plants', 'one'), ('affects', 'one')),\n}\n```\n")
    got = scored(tmp_path, {"hw.md": "## 3(a)\n\n" + table + "\n## 3(f)\n\n" + errors})
    assert full(got["3a"]) and full(got["3f"])
    wrong = table.replace("['ROOT', 'presented', 'at', 'the'], ['NLP'", "['ROOT', 'presented', 'the'], ['NLP'")
    got = scored(tmp_path / "w", {"hw.md": "## 3(a)\n\n" + wrong + "\n## 3(f)\n\n" + errors.replace("'plants', 'one'", "'affects', 'plants'")})
    assert got["3a"].score < 4 and got["3f"].score < 12


# -- one answer split over two places ---------------------------------------------------------------------

def test_3f_fields_in_parallel_lists_are_joined_per_sentence(tmp_path):
    text = ("## 3(f)\n\nThe error types, sentence by sentence:\n\n- verb phrase attachment\n- modifier attachment\n"
            "- prepositional phrase attachment\n- coordination attachment\n\nIncorrect dependencies:\n\n"
            "- acquisition -> citing\n- elements -> most\n- declined -> decision\n- affects -> one\n\n"
            "Correct dependencies:\n\n- blocked -> citing\n- crucial -> most\n- reasons -> decision\n- plants -> one\n")
    assert full(scored(tmp_path, {"a2.md": text})["3f"])
    wrong = text.replace("- reasons -> decision", "- comment -> decision")
    assert scored(tmp_path / "w", {"a2.md": wrong})["3f"].score == 11


# -- formulas spoken in words -------------------------------------------------------------------------------

def test_a_formula_spoken_in_words_is_read_and_a_wrong_one_flagged(tmp_path):
    text = ("2(b)(i)\nThe kept units are scaled up: gamma is one over (one minus p_drop).\n\n"
            "3(e)(ii)\nIt is the softmax output at i minus the one-hot entry, that is y hat_i minus y_i.\n\n"
            "1(b)(i)\nThe gradient is U times (y hat - y).\n")
    got = scored(tmp_path, {"answers.txt": text})
    assert full(got["2b_i"]) and full(got["3e_ii"]) and full(got["1b_i"])
    wrong = scored(tmp_path / "w", {"answers.txt": text.replace("y hat_i minus y_i", "y_i minus y hat_i")})
    assert wrong["3e_ii"].score == 0 and wrong["3e_ii"].needs_review


def test_an_addendum_heading_continues_the_answer_it_names(tmp_path):
    text = ("## Question 1\n\n### 1(d)\n\nFor $w \\neq o$: $\\frac{\\partial J}{\\partial u_w} = \\hat{y}_w v_c$; the other case"
            " is below.\n\n### 1(e)\n\n$v_c(\\hat y - y)^\\top$\n\n## Question 3\n\n### 3(b)\n\n$2n$\n\n---\n\n"
            "#### Supplement to 1(d) (the case $w = o$)\n\n$$\\frac{\\partial J}{\\partial u_o} = (\\hat{y}_o - 1) v_c$$\n")
    got = scored(tmp_path, {"a2.md": text})
    assert full(got["1d"]) and full(got["1e"]) and full(got["3b"])
    wrong = scored(tmp_path / "w", {"a2.md": text.replace("(\\hat{y}_o - 1) v_c", "(1 - \\hat{y}_o) v_c")})
    assert wrong["1d"].score == 2


# -- entries indexed as code or MATLAB writes them --------------------------------------------------------

def test_entries_indexed_in_brackets_or_matlab_parentheses_are_read(tmp_path):
    text = ("3(e)(i)\n\n  dh[i]/dx[j] = ReLU'(z[i]) * W[j, i]\n\n"
            "3(e)(ii)\n\nwith A(k) the k-th entry: dCE/dl(i) = yhat(i) - y(i)\n")
    got = scored(tmp_path, {"hw2.txt": text})
    assert full(got["3e_i"]) and full(got["3e_ii"])
    got = scored(tmp_path / "w", {"hw2.txt": text.replace("W[j, i]", "W[i, j]").replace("yhat(i) - y(i)", "y(i) - yhat(i)")})
    assert got["3e_i"].score == 0 and got["3e_ii"].score == 0
