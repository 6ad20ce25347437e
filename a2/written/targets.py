"""What a formula answers, from its left-hand side: ∂J/∂v_c, ∂J/∂u_w, ∂J/∂U, ∂h_i/∂x_j, ∂CE/∂l_i, γ.

Students often answer two questions under one heading (``## e-i`` ends with ∂CE/∂l_i), or write
intermediate steps of a derivation (``∂/∂u_w exp(u_oᵀv_c) = 0``) before the result. The
left-hand side of an equation says which question it answers: :func:`lhs_target` maps it to a
question id, to :data:`STEP` for the derivative of something that is not the loss (a step of a
derivation, never a final answer), or to None when it does not say; :func:`differentiated_by` is
the one map from a variable to its question, which the section finder uses too. :func:`split_foreign_tail`
moves the end of a section that answers a sibling question, when that question has no answer of
its own.
"""

from __future__ import annotations

import re

from grader.reading import answers, sides
from grader.reading.braces import group

STEP = "step"
"""lhs_target of a derivative of an intermediate quantity (``∂/∂u_w exp(u_oᵀ v_c)``)."""

_STYLE = re.compile(r"\\(?:mathbf|boldsymbol|bm|vec|mathrm|text|operatorname|mathit|left|right|,|;|!|displaystyle)\s*")
_FRAC_HEAD = re.compile(r"^\\[dt]?frac\s*(?=\{)")


def fraction(text: str) -> dict[str, str] | None:
    """``\\frac{num}{den}rest`` -> its parts, braces nested to any depth (the one scanner's groups)."""
    head = _FRAC_HEAD.match(text)
    num = group(text, head.end()) if head else None
    if num is None:
        return None
    at = num[1]
    while at < len(text) and text[at].isspace():
        at += 1
    den = group(text, at)
    if den is None:
        return None
    return {"num": num[0], "den": den[0], "rest": text[den[1]:]}
_SLASH = re.compile(r"^(?P<num>(?:\\partial|∂|d)\s*[^/=]{0,40}?)\s*/\s*(?P<den>(?:\\partial|∂|d)\s*[^\s=()]{1,30})(?P<rest>.*)$", re.S)


def _flat(text: str) -> str:
    text = _STYLE.sub("", text)
    text = text.replace("\\hat", "hat").replace("ŷ", "haty").replace("\\ell", "l").replace("ℓ", "l")
    return "".join(text.replace("{", " ").replace("}", " ").split())


_VARIABLES: tuple[tuple[re.Pattern[str], str, bool], ...] = (
    # (the variable, flattened; the question whose derivation differentiates by it; whether the
    # derivative by it is that question's final answer, or only a step of its derivation)
    (re.compile(r"v_?c"), "1b_i", True),
    (re.compile(r"u_?(?:w|o|1|2|k|x|j|i|\d+|\|V\|)"), "1d", True),
    (re.compile(r"U"), "1e", True),
    (re.compile(r"x_?j?"), "3e_i", True),
    # z = xW + b1, the pre-activation of 3(e)(i)'s h = ReLU(xW + b1), as writeups name it:
    # ∂h_i/∂z_i and ∂z_i/∂x_j are steps of 3(e)(i), never a final answer of any question.
    (re.compile(r"z_?i?"), "3e_i", False),
    # 3(e)(ii)'s logits are l (ŷ = softmax(l)). θ is no question's variable in this assignment:
    # it names the model's parameters (Part 2's Adam update, J(θ) in 3(e)(ii)'s prompt).
    (re.compile(r"(?:l|ell)_?i?"), "3e_ii", True),
)


def differentiated_by(variable: str) -> tuple[str, bool] | None:
    """(question, final) for a derivative with respect to ``variable`` (``u_w``, ``\\mathbf{U}``,
    ``z_i``): the question whose derivation takes it, and whether it is that question's final
    answer (False: a step); None when no question differentiates by it."""
    s = _flat(variable)
    for pattern, question, final in _VARIABLES:
        if pattern.fullmatch(s):
            return question, final
    return None


def question_of(variable: str) -> str | None:
    """The question whose final answer is the derivative with respect to ``variable`` (u_w -> 1d,
    U -> 1e, l_i -> 3e_ii), None for a step's variable (z_i) or no question's."""
    hit = differentiated_by(variable)
    return hit[0] if hit and hit[1] else None


_LOSS = re.compile(r"(?:(?:J|L|\\?mathcal\{?[JL]\}?|ℒ|loss)(?:_?[\w\-]*)?|CE)(?:\([^()]*\))?|h_?i|h|\([^()]*,[^()]*\)")
"""What a derivative of the loss (or of h_i, 3(e)(i)) differentiates, flattened: also the loss's
argument list with its name left out (``\\frac{\\partial}{\\partial u_w}(v_c, o, U)``)."""
_CASE_NOTE = re.compile(r"\((?:[^()]*(?:\\neq?|\\ne|≠|!=|=)[^()]*)\)$")
"""A case written after the derivative (``∂J/∂u_w (w \\neq o)``): which case, not what is differentiated."""


def lhs_target(lhs: str) -> str | None:
    """The question a formula with left-hand side ``lhs`` answers (see the module docstring)."""
    text = lhs.strip()
    if not text:
        return None
    flat = _flat(text)
    if re.fullmatch(r"(?:\\gamma|γ|gamma)", flat):
        return "2b_i"
    if re.fullmatch(r"(?:\\#)?(?:steps|n_?steps|numberofsteps|#steps|transitions)", flat, re.I):
        return "3b"
    if "\\" not in text:              # dh(i)/dx(j), dh[i]/dx[j]: an entry indexed as code or MATLAB writes it
        text = re.sub(r"(?<=[A-Za-z])[\[(]\s*([a-z])\s*[\])]", r"_\1", text)
    slash = _SLASH.match(text.replace("\\partial", "∂"))
    m = fraction(text) or (slash.groupdict() if slash else None)
    if not m:
        return None
    num, den, rest = _flat(m["num"]), m["den"], _flat(m["rest"])
    wrt = differentiated_by(re.sub(r"^(?:\\partial|∂|d)", "", _flat(den)))
    if wrt is None:
        return None
    target, final = wrt
    num = re.sub(r"^(?:\\partial|∂|d)", "", num)
    num, rest = _CASE_NOTE.sub("", num), _CASE_NOTE.sub("", rest)
    if not num and rest:            # the operator form: \frac{\partial}{\partial v_c} J(v_c, o, U)
        num, rest = rest, ""
    if rest or (num and not _LOSS.fullmatch(num)):
        return STEP      # the derivative of something else than the loss (or of an expression)
    if not final:
        return STEP      # by an intermediate quantity (∂h_i/∂z_i)
    if target == "3e_i" and not num.startswith("h"):
        return STEP
    if target == "3e_ii" and num.startswith("h"):
        return STEP
    return target


_BLOCK_START = re.compile(r"[ \t]*(?:[-*+][ \t]|\d{1,2}[.)][ \t]|\(?[ivx]{1,4}[.)]|\*\*|__|#|\$\$|\\\[|\\begin)")
"""A line that starts a block of its own (a list item, a sub-part's numeral, a bold label, a heading,
display math), where a section may be cut; any other line break is a hard wrap inside a paragraph."""


def split_foreign_tail(body: str, own: str, formula_lhs: list[tuple[int, str]],
                       questions: set[str]) -> tuple[str, str, str] | None:
    """(own part, the tail, the question the tail answers) when the section ``body`` of ``own``
    ends with an answer to a sibling question; ``formula_lhs`` is (offset, lhs) of its formulas."""
    seen_own = False
    for offset, lhs in formula_lhs:
        target = lhs_target(lhs)
        if target == own:
            seen_own = True
        elif target and target != STEP and target in questions and target[0] == own[0] and seen_own:
            cut = body.rfind("\n\n", 0, offset)
            if cut < 0:         # a line that starts a block; never a hard wrap inside a sentence
                cut = max((k for k in range(offset) if body[k] == "\n" and _BLOCK_START.match(body, k + 1)), default=-1)
            if cut <= 0:
                return None
            return body[:cut].rstrip(), body[cut:].strip("\n"), target
    return None


TOPIC_HEADINGS: dict[str, re.Pattern[str]] = {
    # A heading without a label we know (``### Q3-1. Transition sequence trace``: the Winter
    # handouts number sub-parts, and renumber them) answers the question whose topic it names.
    "3a": re.compile(r"transition\s+sequence|\btrace\b|sequence\s+of\s+transitions", re.I),
    "3b": re.compile(r"complexity|how\s+many\s+steps|number\s+of\s+(?:steps|transitions)", re.I),
    "3f": re.compile(r"error\s+analysis|parsing\s+errors?\b", re.I),
}


def topic_title(heading: str, questions: set[str], taken: set[str]) -> str | None:
    """The question an unlabelled heading names by its topic (:data:`TOPIC_HEADINGS`), unless
    another section already answers it."""
    found = [q for q, pattern in TOPIC_HEADINGS.items() if q in questions and pattern.search(heading)]
    return found[0] if len(found) == 1 and found[0] not in taken else None


def pretty(question: str | None) -> str:
    """``1b_i`` -> ``1(b)(i)``."""
    if not question:
        return "?"
    m = re.fullmatch(r"(\d)([a-z])(?:_([ivx]+))?", question)
    if not m:
        return question
    part, letter, roman = m.groups()
    return f"{part}({letter})" + (f"({roman})" if roman else "")


SWAPPED = (("1d", "1e"),)
"""Questions another handout of the assignment numbers the other way round (the Winter reruns ask
∂J/∂U as (d) and ∂J/∂u_w as (e))."""


def swapped_numbering(found: list, questions: set[str]) -> None:
    """A writeup whose section labelled ``b`` is about ``a`` follows the swapped handout: its section
    labelled ``a`` that does not say what it is about answers ``b`` (and a TA checks a score below full)."""
    for pair in SWAPPED:
        for a, b in (pair, pair[::-1]):
            moved = any(label == b and about == a for label, about, _ in found)
            answered = any(s.question == b for _, _, s in found)
            if not moved or answered or b not in questions:
                continue
            for label, about, section in found:
                if label == a and about is None and section.question == a:
                    section.question = b
                    section.doubt = (f"the section labelled {pretty(a)} ({section.where}) was read as {pretty(b)}: "
                                     f"the writeup's {pretty(b)} is about {pretty(a)}'s question (a handout that swaps them)")
                    section.notes.append(f"Your section labelled {pretty(b)} answers {pretty(a)}'s question, so the "
                                         f"one labelled {pretty(a)} ({section.where}) was read as {pretty(b)}.")


# ---------------------------------------------------------------------------------------------
# What a section is about

_DERIVATIVE_FAMILY = ("1b_i", "1d", "1e", "3e_i", "3e_ii")
_WRT = re.compile(r"with\s+respect\s+to[^$\n]{0,50}?(?:\$+([^$]{1,80})\$|\\\(((?:(?!\\\)).){1,80})\\\)|"
                  r"(?<![\w\\])([A-Za-z](?:_\{?[A-Za-z]\}?)?)(?=\s*(?:'s?|’s?)?\s*(?:[.,:;)]|$|\s(?:and|for|in|when|where)\b)))")
"""'with respect to $X$', or (in a prompt read as plain text: the template's parts) 'with respect to X .'"""
_SLASH_PARTIAL = re.compile(r"(?:\\partial|∂)\s*J\s*/\s*(?:\\partial|∂)\s*(\\?[A-Za-z{}\\_ ]{1,30})")


def derivative_target(heading: str, body: str) -> str | None:
    """Which derivative question a section is about, from its heading or first derivative."""
    for text in (heading, body[:1500]):
        for m in _WRT.finditer(text):
            target = question_of(m.group(1) or m.group(2) or m.group(3))
            if target:
                return target
    for wrt in (_partial_fraction(body), _SLASH_PARTIAL.search(body)):
        target = question_of(wrt if isinstance(wrt, str) else wrt.group(1)) if wrt else None
        if target:
            return target
    return None


def section_about(label: str, heading: str, body: str) -> str | None:
    """Which derivative question a section labelled ``label`` is about (:func:`derivative_target`),
    unless its equations answer its label's question and never that one: a 1(d) that starts from
    ∂J/∂U in prose ("∂J/∂U is made of the columns ∂J/∂u_w") and gives ∂J/∂u_w = ... stays 1(d)."""
    target = derivative_target(heading, body)
    if target is None or target == label:
        return target
    named = {lhs_target(sides.lhs(c.latex)) for c in answers.candidates(body)}
    return None if label in named and target not in named else target


def _partial_fraction(body: str) -> str | None:
    """What the first ``\\frac{\\partial ...}{\\partial X}`` of ``body`` differentiates by (X), its
    groups read by the one group scanner (nested to any depth)."""
    for m in re.finditer(r"\\frac\s*(?=\{)", body):
        parts = fraction(body[m.start():m.start() + 400])
        if parts and parts["num"].lstrip().startswith("\\partial") and parts["den"].lstrip().startswith("\\partial"):
            return parts["den"].lstrip()[len("\\partial"):]
    return None


_NUMERALS = {"一": "1", "二": "2", "三": "3", "1": "1", "2": "2", "3": "3", "１": "1", "２": "2", "３": "3"}
_QUESTION_WORDS = re.compile(r"^(?:第\s*([一二三1-3１-３])\s*(?:题|題|問|问|部分|部|大题|大題)"
                             r"|(?:문제|과제|질문|問題|问题|設問|设问)\s*([一二三1-3１-３])(?![0-9]))")
"""A question numbered in Chinese, Japanese or Korean (``第三题``, ``문제 3.``, ``問題3``)."""


QUESTION_WORDS = ("pregunta", "problema", "ejercicio", "parte", "tarea", "cuestión", "questão", "exercício",
                  "exercice", "partie", "aufgabe", "teil", "frage", "domanda", "esercizio", "opgave", "zadanie",
                  "задача", "вопрос", "часть")
"""Words for "question"/"part" in other languages written before a number (``Pregunta 3 (b)``,
``Aufgabe 1``, ``Задача 2``): data; a new language is a new entry."""
_OTHER_WORD = re.compile(r"^(?:" + "|".join(QUESTION_WORDS) + r")\s*\.?\s*(?=[1-3１-３](?![0-9]))", re.I)


def latin_question_word(text: str) -> str:
    """``text`` with a leading question word in another language as "Problem N" (``第三题 依存句法分析``
    -> ``Problem 3 依存句法分析``, ``Pregunta 3 (b)`` -> ``Problem 3 (b)``), so the label reader reads its number."""
    m = _QUESTION_WORDS.match(text)
    if m is not None:
        return f"Problem {_NUMERALS[m.group(1) or m.group(2)]}{text[m.end():]}"
    m = _OTHER_WORD.match(text)
    return text if m is None else f"Problem {_NUMERALS[text[m.end()]]}{text[m.end() + 1:]}"
