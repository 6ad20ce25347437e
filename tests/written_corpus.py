"""Generated writeups for the written-answer reader: independent, seeded choices, with the truth.

Every writeup is drawn from one seed by independent choices (see :class:`Choices`): the format
(the course's exam template as q1-q3 files or as one file, one article-style .tex, Markdown,
plain text), the heading style, the math delimiters, the notation (LaTeX, Unicode, ASCII), which
equivalent spelling of each key (or which catalogued wrong answer), where the final answer sits
(an "Answer:" line, a box, the last formula, an ``align`` chain, under a "Final Answer" heading,
in a neighbouring section), a remark after it, and derivation steps before it. The classes of
failure of issue 21 are all drawn: plain-text math with indicators and conditions in words (1),
bold macros after operators, nested braces, a left-hand side inside ``\\boxed`` (2), remarks and
definitions after the answer (3), labels such as ``b i)``/``Q2``, ``i.e.`` lines, case prefixes
``w = o:`` (4), the template's one-block-for-all-sub-parts and ``\\item`` sub-parts (5), and the
file-fitting messages of absent answers (6).

The text is ours, in the shapes of WRITEUPS_IN_THE_WILD.md; nothing here reads the grader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import written_corpus_dep as dep

ITEMS = ("1b_i", "1d", "1e", "2b_i", "3b", "3e_i", "3e_ii")
TABLE_ITEMS = ("3a", "3f")
"""The transition table and the dependency errors (tests/written_corpus_dep.py)."""
ALL_ITEMS = ITEMS + TABLE_ITEMS
RIGHT = "right"
ABSENT = "absent"
FORMATS = ("exam_files", "exam_one", "article", "markdown", "plain")
NOTATIONS = ("latex", "unicode", "ascii")

# Spellings: LaTeX templates use «U» «y» «yh» «vc» «uo» «x» «W» «b1» (styled per writeup);
# text templates (Unicode/ASCII) also use «-» «T» «*» «1» «d» «yhs» «g».
KEYS: dict[str, dict[str, list[tuple[str, str]]]] = {
    "1b_i": {
        RIGHT: [(r"«U»(«yh» - «y»)", "«U»(«yh» «-» «y»)"), (r"«U»«yh» - «U»«y»", "«U»«yh» «-» «U»«y»"),
                (r"-«uo» + «U»«yh»", "«-»«uo» + «U»«yh»"), (r"«U» \left( «yh» - «y» \right)", "«U» «*» («yh» «-» «y»)")],
        "w2v-center-sign": [(r"«U»(«y» - «yh»)", "«U»(«y» «-» «yh»)")],
        "w2v-center-no-y": [(r"«U»«yh»", "«U»«yh»")],
    },
    "1d:eq": {
        RIGHT: [(r"(\hat{y}_o - 1)«vc»", "(«yhs»_o «-» 1)«vc»"), (r"(\hat{y}_o - 1) \cdot «vc»", "(«yhs»_o «-» 1) «*» «vc»"),
                (r"\hat{y}_o «vc» - «vc»", "«yhs»_o «vc» «-» «vc»")],
        "w2v-outside-eq-sign": [(r"(1 - \hat{y}_o)«vc»", "(1 «-» «yhs»_o)«vc»")],
        "w2v-outside-eq-no-indicator": [(r"\hat{y}_o «vc»", "«yhs»_o «vc»")],
    },
    "1d:neq": {
        RIGHT: [(r"\hat{y}_w «vc»", "«yhs»_w «vc»"), (r"\hat{y}_w \times «vc»", "«yhs»_w «*» «vc»")],
        "w2v-outside-neq-sign": [(r"-\hat{y}_w «vc»", "«-»«yhs»_w «vc»")],
        "w2v-outside-neq-minus-one": [(r"(\hat{y}_w - 1)«vc»", "(«yhs»_w «-» 1)«vc»")],
    },
    "1e": {
        RIGHT: [(r"«vc»(«yh» - «y»)^\top", "«vc»(«yh» «-» «y»)«T»"), (r"«vc»«yh»^T - «vc»«y»^T", "«vc»«yh»«T» «-» «vc»«y»«T»"),
                (r"«vc» \left(«yh» - «y»\right)^{\top}", "«vc» «*» («yh» «-» «y»)«T»")],
        "w2v-matrix-transposed": [(r"(«yh» - «y»)«vc»^\top", "(«yh» «-» «y»)«vc»«T»")],
        "w2v-matrix-sign": [(r"«vc»(«y» - «yh»)^\top", "«vc»(«y» «-» «yh»)«T»")],
        "w2v-matrix-no-y": [(r"«vc»«yh»^\top", "«vc»«yh»«T»")],
    },
    "2b_i": {
        RIGHT: [(r"\frac{1}{1 - p_{drop}}", "1/(1 «-» p_drop)"), (r"\frac{1}{1-p_{\text{drop}}}", "1 / (1 «-» p_drop)"),
                (r"(1 - p_{drop})^{-1}", "(1 «-» p_drop)^(-1)")],
        "dropout-keep-prob": [(r"1 - p_{drop}", "1 «-» p_drop")],
        "dropout-odds": [(r"\frac{p_{drop}}{1 - p_{drop}}", "p_drop/(1 «-» p_drop)")],
        "dropout-inverse-p": [(r"\frac{1}{p_{drop}}", "1/p_drop")],
    },
    "3b": {
        RIGHT: [(r"2n", "2n"), (r"2 \cdot n", "2«*»n"), (r"n + n", "n + n")],
        "steps-n": [(r"n", "n")],
        "steps-2n-plus-1": [(r"2n + 1", "2n + 1")],
        "steps-2n-minus-1": [(r"2n - 1", "2n «-» 1")],
        "steps-3n": [(r"3n", "3n")],
    },
    "3e_i": {
        RIGHT: [(r"\mathbb{1}\{(«x»«W» + «b1»)_i > 0\} «W»_{ji}", "«ind»(xW + b«1»)_i > 0«indc» «*» W_ji"),
                (r"\mathbf{1}[(«x»«W» + «b1»)_i > 0] \cdot «W»_{j,i}", "«ind»(xW + b«1»)_i > 0«indc» W_ji"),
                (r"\begin{cases} W_{ji} & \text{if } (xW + b_1)_i > 0 \\ 0 & \text{otherwise} \end{cases}",
                 "W_ji if (xW + b«1»)_i > 0, else 0")],
        "relu-no-indicator": [(r"«W»_{ji}", "W_ji")],
        "relu-index-swap": [(r"\mathbb{1}\{(«x»«W» + «b1»)_i > 0\} W_{ij}", "«ind»(xW + b«1»)_i > 0«indc» «*» W_ij")],
    },
    "3e_ii": {
        RIGHT: [(r"\hat{y}_i - y_i", "«yhs»_i «-» y_i"),
                (r"\begin{cases} \hat{y}_i - 1 & i = c \\ \hat{y}_i & i \neq c \end{cases}",
                 "«yhs»_i «-» 1 if i = c, «yhs»_i otherwise")],
        "softmax-ce-sign": [(r"y_i - \hat{y}_i", "y_i «-» «yhs»_i")],
        "softmax-ce-no-y": [(r"\hat{y}_i", "«yhs»_i")],
        "softmax-ce-always-minus-one": [(r"\hat{y}_i - 1", "«yhs»_i «-» 1")],
    },
}

LHS = {  # (LaTeX, text) left-hand sides naming each item's target
    "1b_i": (r"\frac{\partial J}{\partial «vc»}", "«d»J/«d»v_c"),
    "1d:eq": (r"\frac{\partial J}{\partial «uo»}", "«d»J/«d»u_o"),
    "1d:neq": (r"\frac{\partial J}{\partial «uw»}", "«d»J/«d»u_w"),
    "1d": (r"\frac{\partial J}{\partial «uw»}", "«d»J/«d»u_w"),
    "1e": (r"\frac{\partial J}{\partial «U»}", "«d»J/«d»U"),
    "2b_i": (r"\gamma", "«g»"),
    "3b": (r"\text{steps}", "steps"),
    "3e_i": (r"\frac{\partial h_i}{\partial x_j}", "«d»h_i/«d»x_j"),
    "3e_ii": (r"\frac{\partial \mathrm{CE}(\mathbf{y}, \hat{\mathbf{y}})}{\partial l_i}", "«d»CE/«d»l_i"),
}

STEPS = {  # derivation steps: (LaTeX, text); a target's own left-hand side marks a right intermediate form
    "1b_i": [(r"J = -«uo»^\top «vc» + \log \sum_{w} \exp(«uw»^\top «vc»)", "J = «-»u_o«T» v_c + log sum_w exp(u_w«T» v_c)"),
             (r"\frac{\partial J}{\partial «vc»} = -«uo» + \sum_{w} \hat{y}_w «uw»", "«d»J/«d»v_c = «-»u_o + sum_w «yhs»_w u_w")],
    "1d": [(r"\frac{\partial}{\partial «uw»} \exp(«uo»^\top «vc») = 0", "«d»/«d»u_w exp(u_o«T» v_c) = 0")],
    "1e": [(r"\frac{\partial J}{\partial «U»} = \left[ \frac{\partial J}{\partial «u»_1}, \dots \right]",
            "«d»J/«d»U = [«d»J/«d»u_1, ..., «d»J/«d»u_|V|]")],
    "2b_i": [(r"\mathbb{E}[h_{drop}]_i = \gamma (1 - p_{drop}) h_i", "E[h_drop]_i = «g»(1 «-» p_drop) h_i")],
    "3b": [(r"1 + 1 = 2", "1 SHIFT + 1 ARC per word")],
    "3e_i": [(r"z = «x»«W» + «b1»", "z = xW + b«1»"),
             (r"\frac{\partial h_i}{\partial z_i} = \mathbb{1}[z_i > 0]", "«d»h_i/«d»z_i = «ind»z_i > 0«indc»")],
    "3e_ii": [(r"\frac{\partial \mathrm{CE}}{\partial \hat{\mathbf{y}}_k} = -\frac{y_k}{\hat{y}_k}", "«d»CE/«d»«yhs»_k = «-»y_k/«yhs»_k")],
}

REMARKS_MATH = (r"\quad \text{where } «yh» = \mathrm{softmax}(«U»^\top «vc»)", r", \quad z = «x»«W» + «b1»",
                r" \quad (\text{so the update pulls } «vc» \text{ towards } «uo»)")
REMARKS_TEXT = (", i.e. the gradient of the loss", " (so this is the final answer)", ", where z = xW + b«1»",
                " (this holds for every training pair)")

STYLES = {   # how vectors are written in LaTeX
    "plain": {"U": "U", "y": "y", "yh": r"\hat{y}", "vc": "v_c", "uo": "u_o", "uw": "u_w", "u": "u", "x": "x", "W": "W", "b1": "b_1"},
    "bold": {"U": r"\mathbf{U}", "y": r"\mathbf{y}", "yh": r"\hat{\mathbf{y}}", "vc": r"\mathbf{v}_c", "uo": r"\mathbf{u}_o",
             "uw": r"\mathbf{u}_w", "u": r"\mathbf{u}", "x": r"\mathbf{x}", "W": r"\mathbf{W}", "b1": r"\mathbf{b}_1"},
    "macros": {"U": r"\bU", "y": r"\by", "yh": r"\hat{\by}", "vc": r"\bv_c", "uo": r"\bu_o", "uw": r"\bu_w", "u": r"\bu",
               "x": r"\bx", "W": r"\bW", "b1": r"\bb_1"},
}
TEXT_SYMBOLS = {
    "unicode": {"U": "U", "y": "y", "yh": "ŷ", "yhs": "ŷ", "vc": "v_c", "uo": "u_o", "uw": "u_w", "-": "−", "T": "ᵀ",
                "*": "·", "1": "₁", "d": "∂", "g": "γ", "ind": "𝟙[", "indc": "]"},
    "ascii": {"U": "U", "y": "y", "yh": "y_hat", "yhs": "y_hat", "vc": "v_c", "uo": "u_o", "uw": "u_w", "-": "-",
              "T": "^T", "*": "*", "1": "1", "d": "d", "g": "gamma", "ind": "1{", "indc": "}"},
}


def fill(template: str, table: dict[str, str]) -> str:
    out = template
    for key in sorted(table, key=len, reverse=True):
        out = out.replace("«" + key + "»", table[key])
    return out


@dataclass
class Choices:
    fmt: str
    heading: str
    delim: str
    notation: str
    style: str
    truth: dict[str, str] = field(default_factory=dict)          # item -> RIGHT / mistake id / ABSENT
    spelling: dict[str, int] = field(default_factory=dict)
    place: dict[str, str] = field(default_factory=dict)           # where the final answer sits
    remark: dict[str, int] = field(default_factory=dict)          # -1 none
    steps: dict[str, int] = field(default_factory=dict)
    layout: str = "blocks"                                        # exam: blocks / one_block / items
    compact: bool = False                                         # plain text: no blank lines
    block: str = "answer"                                         # exam: answer / env / ifans


@dataclass
class Writeup:
    seed: int
    choices: Choices
    files: list[tuple[str, str]]
    dep: dep.DepChoices

    @property
    def truth(self) -> dict[str, str]:
        return {**self.choices.truth, "3a": self.dep.truth_3a, "3f": self.dep.truth_3f}


def draw(seed: int) -> Choices:
    r = random.Random(seed)
    fmt = r.choice(FORMATS)
    tex = fmt.startswith("exam") or fmt == "article"
    notation = "latex" if tex else r.choice(NOTATIONS)
    c = Choices(fmt, r.choice(("hash", "parent", "bold", "dash", "paren", "q")), r.choice(("$", "$$", r"\[", r"\(")),
                notation, r.choice(("plain", "bold", "macros") if fmt.startswith("exam") else ("plain", "bold")),
                layout=r.choice(("blocks", "blocks", "one_block", "items")), block=r.choice(("answer", "env", "ifans")))
    if fmt == "plain":
        c.notation = r.choice(("unicode", "ascii"))
        c.compact = r.random() < 0.5
    places = ("answer", "boxed", "last", "chain", "final_heading", "neighbour") if not tex else ("answer", "boxed", "last", "chain")
    for item in ITEMS:
        subs = ("1d:eq", "1d:neq") if item == "1d" else (item,)
        for sub in subs:
            roll = r.random()
            wrong = [k for k in KEYS[sub] if k != RIGHT]
            c.truth[sub] = RIGHT if roll < 0.68 else (ABSENT if roll < 0.72 and sub == item else r.choice(wrong))
            c.spelling[sub] = r.randrange(len(KEYS[sub][c.truth[sub]])) if c.truth[sub] != ABSENT else 0
        if item == "1d":
            c.truth["1d"] = RIGHT if all(c.truth[s] == RIGHT for s in subs) else "wrong"
            c.spelling["1d"] = r.randrange(4)                         # cases / two lines / prefixes / unified
        c.place[item] = r.choice(places) if not (fmt == "plain" and r.random() < 0.5) else r.choice(("answer", "last"))
        c.remark[item] = r.choice((-1, -1, 0, 1, 2, 3))
        c.steps[item] = r.choice((0, 0, 1, 2))
    return c


def make(seed: int) -> Writeup:
    c = draw(seed)
    render = _Render(c, random.Random(seed * 7 + 1), dep.draw(seed))
    return Writeup(seed, c, render.files(), render.dep)


def variant(seed: int, item: str, truth: str) -> Writeup:
    """Seed ``seed``'s writeup with ``item`` (one key, not 1(d); or 3(a), 3(f)) answered ``truth`` (RIGHT or a mistake)
    in its first spelling, in the same place and shape: a right and a wrong answer to compare."""
    c, d = draw(seed), dep.draw(seed)
    if item in TABLE_ITEMS:
        setattr(d, f"truth_{item}", truth)
    else:
        c.truth[item], c.spelling[item] = truth, 0
    render = _Render(c, random.Random(seed * 7 + 1), d)
    return Writeup(seed, c, render.files(), render.dep)


# ---------------------------------------------------------------------------------------------

class _Render:
    def __init__(self, c: Choices, r: random.Random, dep_choices: dep.DepChoices) -> None:
        self.c, self.r, self.dep = c, r, dep_choices
        self.tex = c.fmt.startswith("exam") or c.fmt == "article"
        self.neighbour_tail: dict[str, str] = {}

    # formulas ------------------------------------------------------------------------------
    def math(self, pair: tuple[str, str]) -> str:
        latex, text = pair
        if self.c.notation == "latex":
            return fill(latex, STYLES[self.c.style])
        return fill(text, TEXT_SYMBOLS[self.c.notation])

    def wrap(self, body: str, display: bool) -> str:
        if self.c.notation != "latex":
            return body
        if not display:
            return f"\\({body}\\)" if self.c.delim == r"\(" else f"${body}$"
        if self.c.delim == r"\[" or self.tex:
            return f"\\[ {body} \\]"
        return f"$${body}$$" if self.c.delim != "$" else f"${body}$"

    def equation(self, item: str, sub: str, rhs: str, *, lhs: bool = True, boxed: bool = False,
                 remark: int = -1, prefix: str = "") -> str:
        left = self.math(LHS[sub]) if lhs else ""
        text_like = self.c.notation != "latex"
        body = f"{left} = {rhs}" if left else rhs
        if boxed and not text_like:
            body = f"\\boxed{{{body}}}" if self.r.random() < 0.5 or not left else f"{left} = \\boxed{{{rhs}}}"
        tail = ""
        if remark >= 0:
            if text_like or remark == 3:
                tail = fill(REMARKS_TEXT[remark % len(REMARKS_TEXT)], TEXT_SYMBOLS.get(self.c.notation, TEXT_SYMBOLS["unicode"]))
            else:
                body += self.math((REMARKS_MATH[remark % len(REMARKS_MATH)], ""))
        return prefix + self.wrap(body, True) + tail

    def answer_text(self, item: str) -> str:
        """The item's final answer (and the lines before it), as the writeup shows it."""
        c, r = self.c, self.r
        place = c.place[item]
        lines: list[str] = []
        if c.truth[item] == ABSENT:
            return r.choice(("", "I did not get to this part.", "TODO"))
        for k in range(c.steps[item]):
            step = STEPS[item][k % len(STEPS[item])]
            lines.append(r.choice(("Taking the derivative,", "We have", "By the chain rule,", "")) + " "
                         + self.wrap(self.math(step), True))
        if r.random() < 0.3:
            lines.append("i.e. the result follows from the definition above.")
        final = self._final(item, place)
        if place == "neighbour" and final:
            self.neighbour_tail[item] = final
            final = "The result is written at the end of the previous answer."
        lines.append(final)
        return "\n\n".join(x for x in lines if x)

    def _rhs(self, sub: str) -> str:
        truth = self.c.truth[sub]
        return self.math(KEYS[sub][truth][self.c.spelling[sub]])

    def _final(self, item: str, place: str) -> str:
        c = self.c
        if c.truth[item] == ABSENT:
            return ""
        remark = c.remark[item]
        if item == "1d":
            return self._final_1d(place, remark)
        if item == "3b" and self.r.random() < 0.4:
            rhs = self._rhs(item)
            return f"It takes {self.wrap(rhs, False)} steps in total, since each word is shifted once and attached once."
        rhs = self._rhs(item)
        if place == "chain" and c.notation == "latex" and c.steps[item] and item != "3b":
            step = self.math(STEPS[item][-1]).split("=", 1)
            mid = step[1] if len(STEPS[item][-1][0].split("=", 1)) > 1 else rhs
            return self.wrap(f"\\begin{{aligned}} {self.math(LHS[item])} &= {mid} \\\\ &= {rhs} \\end{{aligned}}", True)
        eq = self.equation(item, item, rhs, lhs=item != "3b" or self.r.random() < 0.5, boxed=place == "boxed", remark=remark)
        if place == "answer":
            return self.r.choice(("Answer: ", "**Answer:** ", "Final answer: ")) + eq if not self.tex else \
                self.r.choice(("\\textbf{Answer:} ", "Answer: ")) + eq
        if place == "final_heading":
            return "#### Final Answer\n\n" + eq
        return eq

    def _final_1d(self, place: str, remark: int) -> str:
        c = self.c
        eq, neq = self._rhs("1d:eq"), self._rhs("1d:neq")
        form = c.spelling["1d"]
        if form == 3 and c.truth["1d"] == RIGHT:
            return self.equation("1d", "1d", self.math((r"(\hat{y}_w - y_w)«vc»", "(«yhs»_w «-» y_w)«vc»")),
                                 boxed=place == "boxed", remark=remark)
        if form == 0 and c.notation == "latex":
            body = (f"{self.math(LHS['1d'])} = \\begin{{cases}} {eq} & \\text{{if }} w = o \\\\ "
                    f"{neq} & \\text{{if }} w \\neq o \\end{{cases}}")
            return self.wrap(body, True)
        neq_word = "≠" if c.notation == "unicode" else ("!=" if c.notation == "ascii" else r"\neq")
        if form == 1 or c.notation != "latex" and form == 0:
            first = self.equation("1d", "1d:eq", eq, boxed=place == "boxed")
            second = self.equation("1d", "1d:neq", neq, boxed=place == "boxed", remark=remark)
            return f"When w = o:\n\n{first}\n\nWhen w {neq_word} o:\n\n{second}" if c.notation != "latex" else \
                f"For $w = o$: {first}\n\nFor $w {neq_word} o$: {second}"
        # case prefixes before the general left-hand side
        first = self.equation("1d", "1d", eq, prefix="w = o: " if c.notation != "latex" else "$w = o$: ")
        second = self.equation("1d", "1d", neq, remark=remark,
                               prefix=f"w {neq_word} o: " if c.notation != "latex" else f"$w {neq_word} o$: ")
        return f"{first}\n\n{second}"

    def table_answer(self, item: str, fmt: str) -> str:
        """3(a) or 3(f) in ``fmt`` (``tex``, ``markdown``, ``plain``)."""
        return dep.transition_table(self.dep, fmt) if item == "3a" else dep.parser_errors(self.dep, fmt)

    # documents ---------------------------------------------------------------------------
    def files(self) -> list[tuple[str, str]]:
        fmt = self.c.fmt
        if fmt.startswith("exam"):
            from written_corpus_tex import exam_files
            return exam_files(self, one=fmt == "exam_one")
        if fmt == "article":
            from written_corpus_tex import article
            return [("solutions.tex", article(self))]
        return [("answers.md" if fmt == "markdown" else "answers.txt", self.markdown())]

    def label(self, part: int, letter: str, roman: str | None) -> str:
        h = self.c.heading
        rom = f"({roman})" if roman else ""
        if self.c.fmt == "plain":
            return {"hash": f"{part}({letter}){rom}", "parent": f"Question {part}({letter}){rom}:",
                    "bold": f"{part}({letter}){rom}", "dash": f"{part}{letter}-{roman}" if roman else f"{part}{letter}",
                    "paren": f"{letter} {roman})" if roman else f"{letter})", "q": f"Q{part} ({letter}){rom}"}[h]
        return {"hash": f"## {part}({letter}){rom}", "parent": f"### ({letter}){rom}",
                "bold": f"**({letter}){rom}**", "dash": f"### {letter}-{roman}" if roman else f"### {letter}",
                "paren": f"### {letter} {roman})" if roman else f"### {letter})", "q": f"## Q{part} ({letter}){rom}"}[h]

    def markdown(self) -> str:
        plain = self.c.fmt == "plain"
        out: list[str] = []
        parts = {1: "Understanding word2vec", 2: "Machine Learning & Neural Networks", 3: "Neural Transition-Based Dependency Parsing"}
        sections = [(1, "a", None, "1a"), (1, "b", "i", "1b_i"), (1, "b", "ii", "1b_ii"), (1, "c", None, "1c"),
                    (1, "d", None, "1d"), (1, "e", None, "1e"), (2, "a", "i", "2a_i"), (2, "b", "i", "2b_i"),
                    (3, "a", None, "3a"), (3, "b", None, "3b"), (3, "e", "i", "3e_i"), (3, "e", "ii", "3e_ii"),
                    (3, "f", None, "3f")]
        bodies = {q: (self.answer_text(q) if q in ITEMS else self.table_answer(q, "plain" if plain else "markdown")
                      if q in TABLE_ITEMS else PROSE.get(q, "See the derivation.")) for *_, q in sections}
        for k, (part, letter, roman, q) in enumerate(sections):
            if k == 0 or sections[k - 1][0] != part:
                out.append(f"Part {part}: {parts[part]}" if plain else f"# {part}. {parts[part]}")
            out.append(self.label(part, letter, roman))
            body = bodies[q]
            nxt = sections[k + 1][3] if k + 1 < len(sections) else None
            if nxt in self.neighbour_tail:
                body += "\n\n#### Final Answer\n\n" + self.neighbour_tail[nxt] if not plain else \
                    "\n\nFinal answer of the next part: " + self.neighbour_tail[nxt]
            out.append(body)
        text = "\n\n".join(out) + "\n"
        return text.replace("\n\n", "\n") if self.c.compact else text


PROSE = {
    "1a": "Since y is one-hot, the cross-entropy -sum_w y_w log(yhat_w) reduces to -log(yhat_o), the naive-softmax loss.",
    "1b_ii": "The gradient is zero when the prediction equals the true distribution.",
    "1c": "Normalising loses the magnitude, which can carry sentiment strength.",
    "2a_i": "Momentum averages gradients over steps, so the noise of single minibatches cancels.",
}
