"""The made-up class's answers in the course's LaTeX template (tools/class_writeups.py).

q1.tex, q2.tex and q3.tex, each a ``\\titledquestion`` of the ``exam`` class with ``\\part[points]``
and ``\\subpart[points]`` (the bracket is points, labels come from position), a short prompt of
our own, and the answer in an ``\\answer{}`` block (or ``\\begin{answer}``, in ``mdframed``);
formulas use the template's bold macros (``\\bU``, ``\\by``, ``\\bv_c``), which the files use
without defining, as real question files do.
"""

from __future__ import annotations

import random
import re

from class_writeups import EMPTY, FORMULAS, WORDS, Drawn
from class_writeups import _table as markdown_table

MACROS = ((r"\hat{\mathbf{y}}", r"\hat{\by}"), (r"\mathbf{U}", r"\bU"), (r"\mathbf{y}", r"\by"),
          (r"\mathbf{v}", r"\bv"), (r"\mathbf{u}", r"\bu"))
ROMANS = ("i", "ii", "iii", "iv")


def _bold(latex: str, rng: random.Random) -> str:
    """The template's macros for bold letters, or plain letters made bold by them."""
    for plain, macro in MACROS:
        latex = latex.replace(plain, macro)
    if rng.random() < 0.5:
        latex = re.sub(r"(?<![\\a-zA-Z{])U(?![a-zA-Z])", r"\\bU", latex)
    return latex


def _block(body: str, rng: random.Random) -> str:
    if rng.random() < 0.7:
        return f"\\answer{{\n{body}\n}}"
    return f"\\begin{{mdframed}}[backgroundcolor=gray!10]\n\\begin{{answer}}\n{body}\n\\end{{answer}}\n\\end{{mdframed}}"


def _formula(qid: str, what: object, rng: random.Random) -> str:
    spelling, prose = what  # type: ignore[misc]
    if qid == "1d":
        lhs = r"\frac{\partial \bJ}{\partial \bu_w}"
        if spelling[0] == "split":
            a, b = _bold(spelling[1], rng), _bold(spelling[2], rng)
            return (f"{prose}\n\\[\n{lhs} =\n\\begin{{cases}}\n{a} & \\text{{if }} w = o \\\\\n"
                    f"{b} & \\text{{if }} w \\neq o\n\\end{{cases}}\n\\]")
        return f"{prose}\n\\[ {lhs} = {_bold(spelling[1], rng)} \\]"
    latex = _bold(spelling, rng)
    return f"{prose}\n\\[ {latex} \\]" if rng.random() < 0.6 else f"{prose} So ${latex}$."


def _table(what: object) -> str:
    first_wrong, _ = what  # type: ignore[misc]
    rows = markdown_table(first_wrong, "→").splitlines()[2:]
    lines = ["\\begin{tabular}{|l|l|l|l|}", "\\hline", "Stack & Buffer & New dependency & Transition \\\\ \\hline"]
    for row in rows:
        cells = [c.strip().replace("→", "$\\rightarrow$") for c in row.strip("|").split("|")]
        lines.append(" & ".join(cells) + " \\\\")
    return "\n".join([*lines, "\\hline", "\\end{tabular}"])


def _errors(what: object) -> str:
    arrow = "$\\rightarrow$"
    items = [f"\\item\n\\begin{{itemize}}\n\\item \\textbf{{Error type}}: {k}\n"
             f"\\item \\textbf{{Incorrect dependency}}: {w.replace('→', arrow)}\n"
             f"\\item \\textbf{{Correct dependency}}: {r.replace('→', arrow)}\n\\end{{itemize}}"
             for k, w, r in what]  # type: ignore[attr-defined]
    return "\\begin{enumerate}[label=\\roman*.]\n" + "\n".join(items) + "\n\\end{enumerate}"


def _answer(qid: str, drawn: Drawn, rng: random.Random) -> str:
    kind, what = drawn
    if kind == EMPTY:
        return _block("", rng)
    if kind == WORDS:
        return _block(str(what), rng)
    if qid in FORMULAS:
        return _block(_formula(qid, what, rng), rng)
    if qid == "3a":
        return _block(_table(what), rng)
    if qid == "3f":
        return _block(_errors(what), rng)
    return _block(str(what), rng)


def tex_files(drawn: dict[str, Drawn], rng: random.Random) -> dict[str, str]:
    """q1.tex, q2.tex, q3.tex holding ``drawn``'s answers."""
    def a(qid: str) -> str:
        return _answer(qid, drawn[qid], rng)

    q1 = f"""\\titledquestion{{Understanding word2vec}}[15]
\\begin{{parts}}
\\part[2] Show that the naive-softmax loss equals the cross-entropy between $\\by$ and $\\hat{{\\by}}$.
{a("1a")}
\\part[6] The gradient with respect to the center word vector.
\\begin{{subparts}}
\\subpart[2] Compute $\\frac{{\\partial \\bJ}}{{\\partial \\bv_c}}$ with $\\by$, $\\hat{{\\by}}$ and $\\bU$.
{a("1b_i")}
\\subpart[2] When is that gradient zero?
{a("1b_ii")}
\\subpart[2] What does each of its two terms do to $\\bv_c$?
{a("1b_iii")}
\\end{{subparts}}
\\part[1] When does L2 normalisation of word vectors lose information?
{a("1c")}
\\part[5] Compute $\\frac{{\\partial \\bJ}}{{\\partial \\bu_w}}$ for $w = o$ and $w \\neq o$.
{a("1d")}
\\part[1] Write $\\frac{{\\partial \\bJ}}{{\\partial \\bU}}$.
{a("1e")}
\\end{{parts}}
"""
    q2 = f"""\\titledquestion{{Machine Learning \\& Neural Networks}}[8]
\\begin{{parts}}
\\part[4] Adam.
\\begin{{subparts}}
\\subpart[2] Why does momentum lower the variance of the updates?
{a("2a_i")}
\\subpart[2] Which parameters get larger updates when dividing by $\\sqrt{{\\bv}}$?
{a("2a_ii")}
\\end{{subparts}}
\\part[4] Dropout: $\\bh_{{\\text{{drop}}}} = \\gamma \\bd \\odot \\bh$.
\\begin{{subparts}}
\\subpart[2] What must $\\gamma$ be?
{a("2b_i")}
\\subpart[2] Why dropout in training and not in evaluation?
{a("2b_ii")}
\\end{{subparts}}
\\end{{parts}}
"""
    q3 = f"""\\titledquestion{{Neural Transition-Based Dependency Parsing}}[54]
\\begin{{parts}}
\\part[4] Parse ``I presented my findings at the NLP conference'' step by step.
{a("3a")}
\\part[2] In how many steps is a sentence of $n$ words parsed? Why?
{a("3b")}
\\part[6] Implement \\texttt{{PartialParse}}.
\\part[8] Implement \\texttt{{minibatch\\_parse}}.
\\part[20] The hidden layer is $\\bh = \\text{{ReLU}}(\\bx\\bW + \\bb_1)$.
\\begin{{subparts}}
\\subpart[3] Compute $\\frac{{\\partial \\bh_i}}{{\\partial \\bx_j}}$.
{a("3e_i")}
\\subpart[3] Compute $\\frac{{\\partial CE(\\by, \\hat{{\\by}})}}{{\\partial l_i}}$.
{a("3e_ii")}
\\subpart[14] Implement the parser model.
\\end{{subparts}}
\\part[12] Name the error of each parse.
\\input{{dep_parses.tex}}
{a("3f")}
\\part[2] Why are POS tags useful features?
{a("3g")}
\\end{{parts}}
"""
    return {"q1.tex": q1, "q2.tex": q2, "q3.tex": q3}
