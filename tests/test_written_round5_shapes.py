"""Shapes of the blind writeups 113-119 (tests/writeups/wild/, BLIND.yaml, round 5: the course's
LaTeX template as students fill it), one class each, in variants the writeups do not have (another
spelling of the same construct, another place for it). Each right answer is read right (or, where
it cannot be read whole, flagged); a wrong one stays below full.
"""

from __future__ import annotations

from written_support import full, scored

_Q1B = (r"\titledquestion{Understanding word2vec}[15]" "\n\\begin{parts}\n"
        r"\part[2] Show the loss is a cross-entropy. {OPEN}One-hot $\by$ keeps only $-\log \hat{y}_o$.{CLOSE}" "\n"
        "\\part[6]\n\\begin{enumerate}[label=(\\roman*)]\n"
        r"\item Compute the partial derivative of $\bJ$ with respect to $\bv_c$, in terms of $\by$, $\hat{\by}$, $\bU$; "
        r"do not use elements such as $\by_1$, $\by_2$, $\dots$." "\n{OPEN}{ANSWER}{CLOSE}\n"
        r"\item When is the gradient zero? {OPEN}When $\hat{\by} = \by$.{CLOSE}" "\n"
        r"\item Interpret the update $\bv_c := \bv_c - \alpha \frac{\partial \bJ}{\partial \bv_c}$. {OPEN}Toward $\bu_o$.{CLOSE}"
        "\n\\end{enumerate}\n\\end{parts}\n")


def _q1b(open_: str, close: str, answer: str) -> str:
    return _Q1B.replace("{OPEN}", open_).replace("{CLOSE}", close).replace("{ANSWER}", answer)


# -- blocks the student declares: \newif conditionals, answer boxes of their own -----------------

def test_a_conditional_of_the_students_own_holds_the_answer(tmp_path):
    main = ("\\documentclass{exam}\n\\newif\\ifsolutions\n\\solutionstrue\n\\begin{document}\n"
            "\\begin{questions}\n\\input{q1}\n\\end{questions}\n\\end{document}\n")
    right = _q1b("\\ifsolutions\n\\emph{Ans.} ", "\n\\else\n\\vspace{3cm}\n\\fi",
                 r"$$-\bu_o + \sum_w \hat{y}_w \bu_w = \bU(\hat{\by} - \by)$$")
    got = scored(tmp_path, {"main.tex": main, "q1.tex": right})
    assert full(got["1b_i"]), got["1b_i"].outcome.feedback
    wrong = _q1b("\\ifsolutions\n\\emph{Ans.} ", "\n\\fi", r"$$\bU(\by - \hat{\by})$$")
    got = scored(tmp_path, {"main.tex": main, "q1.tex": wrong})
    assert got["1b_i"].score == 0


def test_an_answer_box_of_the_students_own_holds_the_answer(tmp_path):
    preamble = ("\\documentclass{exam}\n\\usepackage{tcolorbox}\n\\usepackage{mdframed}\n"
                "\\newtcolorbox{reply}{colback=gray!5, title={Answer}}\n\\newmdenv[linecolor=blue]{myans}\n"
                "\\begin{document}\n\\begin{questions}\n")
    for env in ("reply", "myans"):
        body = _q1b(f"\\begin{{{env}}}\n", f"\n\\end{{{env}}}",
                    "\\begin{align*}\n\\nabla_{\\bv_c} J &= -\\bu_o + \\textstyle\\sum_w \\hat{y}_w \\bu_w \\\\\n"
                    "&= \\bU\\hat{\\by} - \\bU\\by\n\\end{align*}")
        got = scored(tmp_path, {"hw2.tex": preamble + body + "\\end{questions}\n\\end{document}\n"})
        assert full(got["1b_i"]), (env, got["1b_i"].outcome.feedback)


# -- the Winter order ((d) asks for dJ/dU, (e) for dJ/du_w) read from the template's prompts ------

_Q1 = (r"\titledquestion{Understanding word2vec}[15]" "\n\\begin{parts}\n"
       r"\part[2] Show the loss is a cross-entropy. \answer{One-hot $\by$ keeps only $-\log \hat{y}_o$.}" "\n"
       r"\part[6] Compute the partial derivative of $\bJ$ with respect to $\bv_c$. \answer{$\bU(\hat{\by} - \by)$}" "\n"
       r"\part[1] When would L2 normalization lose information? \answer{When norms carry meaning.}" "\n"
       r"\part[1] Compute the partial derivative of $\bJ_{\text{naive-softmax}}(\bv_c, o, \bU)$ with respect to the "
       r"whole matrix $\bU$." "\n\\answer{$\\bv_c(\\hat{\\by} - \\by)^\\top$}\n"
       r"\part[5] Now compute the partial derivatives of $\bJ_{\text{naive-softmax}}(\bv_c, o, \bU)$ with respect to each "
       r"outside vector $\bu_w$, for $w = o$ and $w \neq o$." "\n"
       "\\answer{$(\\hat{y}_o - 1)\\bv_c$ when $w = o$, and $\\hat{y}_w \\bv_c$ when $w \\neq o$.}\n\\end{parts}\n")


def test_the_winter_order_is_read_from_the_prompts_when_the_answers_name_no_derivative(tmp_path):
    got = scored(tmp_path, {"q1.tex": _Q1})
    assert full(got["1e"]) and full(got["1d"]), (got["1e"].outcome.feedback, got["1d"].outcome.feedback)


# -- 1(d): a box in each row of a cases formula; two equations side by side in one display --------

def test_a_box_in_each_row_of_cases_answers_that_rows_case(tmp_path):
    text = ("## 1(d)\n\nOnly the log-sum term depends on $u_w$ for $w \\neq o$; for $w = o$ both do.\n\n"
            "$$\\frac{\\partial J}{\\partial u_w} = \\begin{dcases} \\boxed{\\hat{y}_w v_c} & w \\neq o \\\\\n"
            "\\boxed{(\\hat{y}_o - 1) v_c} & w = o \\end{dcases}$$\n")
    got = scored(tmp_path, {"answers.md": text})
    assert full(got["1d"]), got["1d"].outcome.feedback
    wrong = text.replace("\\boxed{\\hat{y}_w v_c}", "\\boxed{(\\hat{y}_w - 1) v_c}")
    got = scored(tmp_path / "w", {"answers.md": wrong})
    assert got["1d"].score == 2, got["1d"].outcome.feedback


def test_two_equations_side_by_side_answer_the_cases_their_left_sides_name(tmp_path):
    text = ("## 1(d)\n\n$$\\frac{\\partial J}{\\partial u_w} = \\hat{y}_w v_c \\ (w \\neq o); \\quad "
            "\\frac{\\partial J}{\\partial u_o} = (\\hat{y}_o - 1) v_c$$\n")
    got = scored(tmp_path, {"answers.md": text})
    assert full(got["1d"]), got["1d"].outcome.feedback
    wrong = text.replace("(\\hat{y}_o - 1) v_c", "(1 - \\hat{y}_o) v_c")
    got = scored(tmp_path / "w", {"answers.md": wrong})
    assert got["1d"].score == 2, got["1d"].outcome.feedback


# -- 3(a) as a longtable: its head and foot markers are no cells -----------------------------------

_WORDS = "I presented my findings at the NLP conference".split()
_SEQ = "S S LA S S LA RA S S S S LA LA LA RA RA".split()


def _longtable_rows() -> list[str]:
    stack, buf, out = ["ROOT"], list(_WORDS), []
    for t in _SEQ:
        arc = ""
        if t == "S":
            stack.append(buf.pop(0))
        elif t == "LA":
            arc = f"{stack[-1]} $\\to$ {stack[-2]}"
            del stack[-2]
        else:
            arc = f"{stack[-2]} $\\to$ {stack[-1]}"
            stack.pop()
        out.append(f"{len(out) + 1} & [{', '.join(stack)}] & [{', '.join(buf)}] & {t} & {arc} \\\\")
    return out


def test_a_longtable_with_head_and_foot_markers_is_read_row_by_row(tmp_path):
    head = "No. & Stack & Buffer & Transition & New dependency \\\\ \\cmidrule(lr){1-5}\n"
    table = ("\\begin{longtable}{rllll}\n\\multicolumn{5}{r}{continued} \\\\\n\\endfoot\n" + head
             + "\\endfirsthead\n" + head + "\\endhead\n" + "\n".join(_longtable_rows()) + "\n\\end{longtable}\n")
    q3 = ("\\titledquestion{Neural Transition-Based Dependency Parsing}[54]\n\\begin{parts}\n"
          "\\part[4] Go through the sequence of transitions for ``I presented my findings at the NLP conference''.\n"
          "\\ifans{\n" + table + "}\n\\part[2] How many steps for $n$ words? \\ifans{$2n$}\n\\end{parts}\n")
    got = scored(tmp_path, {"q3.tex": q3})
    assert full(got["3a"]), got["3a"].outcome.feedback


# -- 2(b)(i): "Answer:" opening a derivation whose conclusion comes after it ------------------------

def test_a_gamma_after_a_marked_derivation_step_is_its_conclusion(tmp_path):
    q2 = ("\\titledquestion{Machine Learning \\& Neural Networks}[8]\n\\begin{parts}\n\\part[4] Adam\n"
          "\\begin{subparts}\n\\subpart[2] Momentum. \\ifans{Less variance.}\n\\subpart[2] Rates. \\ifans{Small ones.}\n"
          "\\end{subparts}\n\\part[4] Dropout: $\\bh_{\\text{drop}} = \\gamma \\bd \\odot \\bh$.\n\\begin{subparts}\n"
          "\\subpart[2] What must $\\gamma$ equal in terms of $p_{\\text{drop}}$?\n"
          "\\ifans{\\emph{Answer:} taking expectations, $\\mathbb{E}[\\bh_{\\text{drop}}] = \\gamma (1 - p_{\\text{drop}}) \\bh$ "
          "must be $\\bh$, therefore \\[ \\gamma = \\frac{1}{1 - p_{\\text{drop}}}. \\]}\n"
          "\\subpart[2] Why not at evaluation? \\ifans{Deterministic.}\n\\end{subparts}\n\\end{parts}\n")
    got = scored(tmp_path, {"q2.tex": q2})
    assert full(got["2b_i"]), got["2b_i"].outcome.feedback
    got = scored(tmp_path / "w", {"q2.tex": q2.replace("\\frac{1}{1 - p_{\\text{drop}}}", "\\frac{1}{p_{\\text{drop}}}")})
    assert got["2b_i"].score == 0
