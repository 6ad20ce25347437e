"""The LaTeX shapes of the generated writeups (tests/written_corpus.py): the course's exam template
(q1-q3 files or one file; per-sub-part blocks, one block for all sub-parts, ``\\item`` sub-parts;
``\\answer{}``, ``\\begin{answer}`` in ``mdframed``, ``\\ifans{}``) and an article-style file."""

from __future__ import annotations

from typing import Any

from written_corpus import ITEMS, PROSE, TABLE_ITEMS

PREAMBLE = r"""\documentclass{exam}
\usepackage{amsmath,amssymb,mdframed}
\newcommand{\answer}[1]{\begin{mdframed}#1\end{mdframed}}
\newcommand{\bU}{\mathbf{U}}
\begin{document}
"""

# question -> parts: (points, prompt, item or None, sub-parts [(points, prompt, item)])
QUESTIONS: dict[int, tuple[str, list[tuple[int, str, str | None, list[tuple[int, str, str]]]]]] = {
    1: ("Understanding word2vec", [
        (2, r"Show that the naive-softmax loss $\bJ = -\log P(O=o \mid C=c)$ equals the cross-entropy between $\by$ and $\hat{\by}$.", "1a", []),
        (6, r"The gradient with respect to the center word.", None, [
            (2, r"Compute $\frac{\partial \bJ}{\partial \bv_c}$ in terms of $\by$, $\hat{\by}$ and $\bU$.", "1b_i"),
            (2, r"When is the gradient you computed equal to zero?", "1b_ii"),
            (2, r"Interpret the two terms of the gradient.", "1b_iii")]),
        (1, r"When would L2 normalization of the word vectors take away useful information?", "1c", []),
        (5, r"Compute the partial derivatives of $\bJ$ with respect to each outside word vector $\bu_w$: the cases $w = o$ and $w \neq o$.", "1d", []),
        (1, r"Write down the partial derivative of $\bJ$ with respect to $\bU$.", "1e", [])]),
    2: ("Machine Learning \\& Neural Networks", [
        (4, r"Adam.", None, [(2, r"Explain how the momentum $\mathbf{m}$ lowers the variance.", "2a_i"),
                             (2, r"Which parameters get larger updates?", "2a_ii")]),
        (4, r"Dropout: $\bh_{drop} = \gamma \bd \odot \bh$ where $p_{drop}$ is the drop probability.", None, [
            (2, r"What must $\gamma$ equal in terms of $p_{drop}$? Here $\gamma = p_{drop}$ would not work.", "2b_i"),
            (2, r"Why apply dropout in training and not in evaluation?", "2b_ii")])]),
    3: ("Neural Transition-Based Dependency Parsing", [
        (4, r"Go through the sequence of transitions needed to parse the sentence ``I presented my findings at the NLP conference''.", "3a", []),
        (2, r"A sentence containing $n$ words will be parsed in how many steps (in terms of $n$)? Here steps $= n$ is a guess to improve.", "3b", []),
        (6, r"Implement the \texttt{PartialParse} class.", None, []),
        (8, r"Implement \texttt{minibatch\_parse}.", None, []),
        (20, r"The hidden layer is $\bh = \text{ReLU}(\bx\bW + \bb_1)$ and $\hat{\by} = \text{softmax}(\bl)$.", None, [
            (3, r"Compute $\frac{\partial \bh_i}{\partial \bx_j}$.", "3e_i"),
            (3, r"Compute $\frac{\partial CE(\by, \hat{\by})}{\partial l_i}$ for the true class $c$.", "3e_ii"),
            (14, r"Implement the parser model.", "3e_iii")]),
        (12, r"Each of the following sentences has one parsing error.", "3f", []),
        (2, r"Why are POS tags useful features?", "3g", [])]),
}

OTHER = {"1b_iii": "It pulls the center vector towards the true outside vector.", "2a_ii": "Those with small gradients.",
         "2b_ii": "Dropout regularises in training; evaluation must be deterministic.", "3a": "See the table in my notes.",
         "3e_iii": "", "3f": "", "3g": "They give the syntactic category of a word."}


def _content(render: Any, item: str) -> str:
    if item in ITEMS:
        return render.answer_text(item)
    if item in TABLE_ITEMS:
        return render.table_answer(item, "tex")
    return PROSE.get(item) or OTHER.get(item, "")


def _block(render: Any, text: str) -> str:
    kind = render.c.block
    if kind == "env":
        return f"\\begin{{mdframed}}[backgroundcolor=gray!10]\n\\begin{{answer}}\n{text}\n\\end{{answer}}\n\\end{{mdframed}}\n"
    macro = "ifans" if kind == "ifans" else "answer"
    return f"\\{macro}{{\n{text}\n}}\n"


def _question(render: Any, number: int) -> str:
    title, parts = QUESTIONS[number]
    out = [f"\\titledquestion{{{title}}}[{sum(p[0] for p in parts)}]", "\\begin{parts}"]
    layout = render.c.layout
    for points, prompt, item, subs in parts:
        out.append(f"\\part[{points}] {prompt}")
        if item:
            out.append(_block(render, _content(render, item)))
            continue
        if not subs:
            continue
        if layout == "items":
            out.append("\\begin{enumerate}[label=(\\roman*)]")
            for _pts, sub_prompt, sub_item in subs:
                out.append(f"\\item {sub_prompt}")
                out.append(_block(render, _content(render, sub_item)))
            out.append("\\end{enumerate}")
            continue
        out.append("\\begin{subparts}")
        for _pts, sub_prompt, sub_item in subs:
            out.append(f"\\subpart[{_pts}] {sub_prompt}")
            if layout == "blocks":
                out.append(_block(render, _content(render, sub_item)))
        if layout == "one_block":
            items = "\n".join(f"% {k + 1}.\n\\item {_content(render, s[2])}" for k, s in enumerate(subs))
            out.append(_block(render, f"\\begin{{enumerate}}[label=\\roman*.]\n{items}\n\\end{{enumerate}}"))
        out.append("\\end{subparts}")
    out.append("\\end{parts}")
    return "\n".join(out) + "\n"


def exam_files(render: Any, *, one: bool) -> list[tuple[str, str]]:
    questions = {n: _question(render, n) for n in (1, 2, 3)}
    if one:
        return [("a2.tex", PREAMBLE + "\\begin{questions}\n" + "\n".join(questions.values())
                 + "\\end{questions}\n\\end{document}\n")]
    return [(f"q{n}.tex", text) for n, text in questions.items()]


def article(render: Any) -> str:
    out = [r"\documentclass{article}", r"\usepackage{amsmath,amssymb}", r"\begin{document}"]
    sections = [(1, "a", None, "1a"), (1, "b", "i", "1b_i"), (1, "b", "ii", "1b_ii"), (1, "d", None, "1d"),
                (1, "e", None, "1e"), (2, "b", "i", "2b_i"), (3, "a", None, "3a"), (3, "b", None, "3b"),
                (3, "e", "i", "3e_i"), (3, "e", "ii", "3e_ii"), (3, "f", None, "3f")]
    titles = {1: "Understanding word2vec", 2: "Machine Learning", 3: "Dependency Parsing"}
    bodies = {q: _content(render, q) for *_, q in sections}
    for k, (part, letter, roman, q) in enumerate(sections):
        if k == 0 or sections[k - 1][0] != part:
            out.append(f"\\section*{{Question {part}: {titles[part]}}}")
        label = render.label(part, letter, roman).lstrip("#* ").rstrip("*")
        out.append(f"\\subsection*{{{label}}}")
        out.append(bodies[q])
    out.append(r"\end{document}")
    return "\n\n".join(out) + "\n"
