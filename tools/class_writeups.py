"""Written answers for a made-up class, varying the way real classes do (used by make_class.py).

Each answer is drawn for each question from a small table of *kinds*: for formulas, the right
answer and the common wrong forms, each in several equivalent spellings (U(ŷ − y), Uŷ − Uy,
−Uy + Uŷ, bold macros, a row-vector transpose...); for 3(a), the right table and tables wrong from
a given row; for 3(f), the key and the known wrong readings; for prose, texts of different quality
with small changes of wording. Some answers are empty. The answers.md is the reference's, with
each answer block replaced, so headings and quoted prompts are the template's.

``draw_answers(rng)`` returns {question: (kind, what to write)}, written out by
``markdown_files`` (here) or ``tex_files`` (tools/class_tex.py); the kind of a formula answer
names its value class ("right", "transposed", "sign"...): answers of one kind must fall in one
answer group, answers of different kinds in different ones (tests/test_groups.py).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

REFERENCE_ANSWERS = Path(__file__).resolve().parent.parent / "reference" / "answers.md"
EMPTY = "empty"
EMPTY_SHARE = 0.05

A = "**Answer:** $${}$$"
FORMULAS: dict[str, dict[str, tuple]] = {
    "1b_i": {
        "right": (r"\frac{\partial J}{\partial \mathbf{v}_c} = U(\hat{y} - y)", r"U\hat{y} - Uy", r"-Uy + U\hat{y}",
                  r"\mathbf{U}(\hat{\mathbf{y}} - \mathbf{y})", r"(\hat{y} - y)^\top U^\top", r"-\mathbf{u}_o + U\hat{y}"),
        "transposed": (r"U^\top(\hat{y} - y)", r"U^T(\hat y - y)", r"\mathbf{U}^\top(\hat{\mathbf{y}} - \mathbf{y})"),
        "sign": (r"U(y - \hat{y})", r"Uy - U\hat{y}", r"\frac{\partial J}{\partial v_c} = -U(\hat y - y)"),
        "no_U": (r"\hat{y} - y", r"-(y - \hat{y})"),
    },
    "1d": {   # ("split", case w = o, case w ≠ o) or ("one", a formula for both)
        "right": (("split", r"(\hat{y}_o - 1)\mathbf{v}_c", r"\hat{y}_w \mathbf{v}_c"),
                  ("one", r"(\hat{y}_w - y_w)\mathbf{v}_c"), ("split", r"\hat{y}_o v_c - v_c", r"v_c \hat{y}_w")),
        "sign": (("split", r"(1 - \hat{y}_o)\mathbf{v}_c", r"-\hat{y}_w \mathbf{v}_c"), ("one", r"(y_w - \hat{y}_w)\mathbf{v}_c")),
        "no_minus_one": (("split", r"\hat{y}_o \mathbf{v}_c", r"\hat{y}_w \mathbf{v}_c"), ("one", r"\hat{y}_w\mathbf{v}_c")),
    },
    "1e": {
        "right": (r"\frac{\partial J}{\partial U} = \mathbf{v}_c(\hat{y} - y)^\top", r"v_c(\hat y - y)^T",
                  r"\mathbf{v}_c \hat{\mathbf{y}}^\top - \mathbf{v}_c \mathbf{y}^\top"),
        "transposed": (r"(\hat{y} - y)\mathbf{v}_c^\top", r"(\hat y - y) v_c^T"),
        "sign": (r"\mathbf{v}_c(y - \hat{y})^\top", r"v_c y^T - v_c \hat y^T"),
    },
    "2b_i": {
        "right": (r"\gamma = \frac{1}{1 - p_{drop}}", r"(1 - p_{drop})^{-1}", r"\gamma = 1/(1 - p_{\text{drop}})"),
        "one_minus_p": (r"\gamma = 1 - p_{drop}", r"1 - p_{\text{drop}}"),
        "inverse_p": (r"\gamma = \frac{1}{p_{drop}}", r"p_{drop}^{-1}"),
    },
    "3b": {
        "right": ("2n", "n + n", r"2 \cdot n"),
        "plus_one": ("2n + 1", "n + n + 1"),
        "n": ("n",),
        "minus_one": ("2n - 1",),
    },
    "3e_i": {
        "right": (r"\frac{\partial h_i}{\partial x_j} = \mathbb{1}\{(xW + b_1)_i > 0\}\, W_{ji}",
                  r"W_{ji}\,\mathbb{1}[(xW+b_1)_i > 0]"),
        "no_indicator": (r"W_{ji}", r"\frac{\partial h_i}{\partial x_j} = W_{ji}"),
    },
    "3e_ii": {
        "right": (r"\hat{y}_i - y_i", r"\frac{\partial\, CE}{\partial l_i} = \hat y_i - y_i", r"-y_i + \hat{y}_i"),
        "sign": (r"y_i - \hat{y}_i",),
        "no_label": (r"\hat{y}_i",),
    },
}
WORDS = "words"
WORDS_SHARE = 0.05
IN_WORDS = {"1b_i": "U times the difference between the prediction and the truth.",
            "3e_ii": "the predicted probability minus the true one"}
"""Answers in words only: the grader finds no formula and flags them for review."""
FORMULA_WEIGHTS = {"right": 6, "transposed": 2, "sign": 2}
"""Right answers are the commonest; other wrong forms weigh 1."""

PROSE: dict[str, tuple[str, ...]] = {
    "1a": ("Because y is one-hot, every term of the cross-entropy sum with w not equal to o is zero, and the "
           "remaining term is -log of yhat_o, which is exactly the naive-softmax loss.",
           "The cross entropy is minus the sum of y_w log yhat_w; only the true word o has y = 1, so it equals "
           "-log yhat_o = J.",
           "They are the same because both are losses."),
    "1b_ii": ("The gradient is zero when yhat equals y, i.e. the model predicts the true outside word with "
              "probability one, or when yhat - y lies in the null space of U.",
              "When the prediction is perfect: yhat = y.",
              "When the learning rate is zero."),
    "1b_iii": ("The first term pulls v_c towards the true outside vector u_o; the second pushes it away from "
               "the expected outside vector U yhat under the model.",
               "One term moves the center vector toward the observed word and the other away from the words the "
               "model predicts.",
               "The terms are the gradient and the loss."),
    "1c": ("Normalising removes the length, so when u_x = alpha u_y with alpha > 0 the two words become the same "
           "vector and the magnitude (how positive) is lost; with alpha < 0 the direction still differs.",
           "It loses information when the norm carries meaning, such as sentiment strength.",
           "Normalisation never loses information."),
    "2a_i": ("Momentum averages recent gradients, so minibatch noise cancels out and the update varies less; "
             "the steps follow a steadier direction and learning converges faster.",
             "Averaging the gradients smooths out the noise of each minibatch.",
             "Because m is smaller than the gradient."),
    "2a_ii": ("Parameters with small or rare gradients get larger updates, because dividing by sqrt(v) "
              "rescales each parameter's step; this helps rarely updated weights move.",
              "Parameters whose gradients were small get bigger steps.",
              "All parameters get the same update."),
    "2b_ii": ("Dropout is a regulariser during training that prevents co-adaptation; at evaluation we want a "
              "deterministic prediction from the full network, so no units are dropped.",
              "At test time we want the whole network and deterministic outputs.",
              "Dropout makes evaluation slower."),
    "3g": ("POS tags help because they generalise across words: rare words share tags with frequent ones, so "
           "the parser can learn attachment preferences from the tags.",
           "Tags give syntactic information that words alone do not.",
           "They are not useful."),
}
EXPLAIN: dict[str, tuple[str, ...]] = {
    "1d": ("The score of word w is u_w^T v_c, so its derivative with respect to u_w is v_c times the softmax "
           "error yhat_w - y_w, which is yhat_o - 1 for the outside word and yhat_w otherwise.",
           "Differentiate the log-softmax: only the true word gets the -1.",
           "Using the chain rule."),
    "2b_i": ("Each unit is kept with probability 1 - p, so the expected value of d_i h_i is (1 - p) h_i; "
             "multiplying by 1 / (1 - p) makes the expectation equal to h_i.",
             "We need E[h_drop] = h, and a unit survives with probability 1 - p.",
             "So that the output is scaled."),
    "3b": ("Every word is shifted onto the stack once and removed by exactly one arc (ROOT's arc included), so "
           "n shifts plus n arcs.",
           "Each word needs one SHIFT and one ARC.",
           "Because there are two transitions per step."),
}
"""The explanation (the TA's share) written beside each formula, in three qualities."""
SWAPS = (("because", "since"), ("the model", "the network"), ("vector", "embedding"), ("so", "therefore"),
         ("zero", "0"), ("gradient", "derivative"))


def _vary(text: str, rng: random.Random) -> str:
    """Small changes of wording, as two students writing the same idea would make."""
    for a, b in SWAPS:
        if a in text and rng.random() < 0.3:
            text = text.replace(a, b, 1)
    if rng.random() < 0.2:
        text = text[0].lower() + text[1:]
    if rng.random() < 0.2:
        text = text.rstrip(".") + "."
    return text


def _table(first_wrong: int | None, arrows: str) -> str:
    """The reference's 3(a) table, wrong from row ``first_wrong`` on (its transition swapped)."""
    text = REFERENCE_ANSWERS.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| [")]
    if first_wrong is not None:
        cells = rows[first_wrong].split("|")
        swap = {" SHIFT ": " LEFT-ARC ", " LEFT-ARC ": " RIGHT-ARC ", " RIGHT-ARC ": " SHIFT "}
        cells[4] = swap.get(cells[4], " SHIFT ")
        rows[first_wrong] = "|".join(cells)
    header = "| Stack | Buffer | New dependency | Transition |\n|---|---|---|---|\n"
    return header + "\n".join(r.replace("→", arrows) for r in rows)


TABLES = {"right": None, "row_4": 4, "row_7": 7, "row_13": 13}
KEY_3F = (("Verb Phrase Attachment Error", "acquisition → citing", "blocked → citing"),
          ("Modifier Attachment Error", "elements → most", "crucial → most"),
          ("Prepositional Phrase Attachment Error", "declined → decision", "reasons → decision"),
          ("Coordination Attachment Error", "affects → one", "plants → one"))
WRONG_3F = {2: ("Prepositional Phrase Attachment Error", "declined → reasons", "comment → reasons"),
            1: ("Prepositional Phrase Attachment Error", "elements → most", "crucial → most")}


TYPE_SPELLINGS = {"Verb Phrase Attachment Error": ("VP attachment error", "verb-phrase attachment"),
                  "Modifier Attachment Error": ("modifier attachment", "Modifier attachment error."),
                  "Prepositional Phrase Attachment Error": ("PP attachment error", "prepositional-phrase attachment"),
                  "Coordination Attachment Error": ("coordination attachment", "Coordination error")}
"""Other spellings of each error type; the grader reads them as the same type."""


def _parser_errors(rng: random.Random) -> Drawn:
    """(the kind of each sentence's answer, "key" or "wrong", joined by commas; the four readings)."""
    triples, kinds = [], []
    for n in range(4):
        triple, label = KEY_3F[n], "key"
        if n in WRONG_3F and rng.random() < 0.3:
            triple, label = WRONG_3F[n], "wrong"
        kinds.append(label)
        kind, wrong, right = triple
        if rng.random() < 0.4:      # the same type as students spell it
            kind = rng.choice(TYPE_SPELLINGS[kind])
        if rng.random() < 0.3:
            wrong, right = wrong.replace("→", "->"), right.replace("→", "->")
        triples.append((kind, wrong, right))
    return ",".join(kinds), triples


def _blocks(text: str) -> list[tuple[str, int, int]]:
    """(question id, start, end) of each answer block of the reference's answers.md."""
    out = []
    for m in re.finditer(r"<!-- BEGIN SOLUTION -->\n(.*?)<!-- END SOLUTION -->", text, re.S):
        heading = text.rfind("\n### ", 0, m.start())
        label = text[heading + 5:text.find(" ", heading + 5)]
        lm = re.match(r"(\d)\((\w)\)(?:\((\w+)\))?", label)
        assert lm, label
        qid = lm.group(1) + lm.group(2) + (f"_{lm.group(3)}" if lm.group(3) else "")
        out.append((qid, m.start(1), m.end(1)))
    return out


def draw_answers(rng: random.Random) -> dict[str, Drawn]:
    """One student's answers: (kind, what to write) for each question, in either layout
    (:func:`markdown_files` here, ``tex_files`` in tools/class_tex.py)."""
    return {qid: _draw(qid, rng) for qid in QUESTIONS}


def markdown_files(drawn: dict[str, Drawn], rng: random.Random) -> dict[str, str]:
    """The reference's answers.md with every answer replaced by the drawn one."""
    text = REFERENCE_ANSWERS.read_text(encoding="utf-8")
    pieces: list[str] = []
    last = 0
    for qid, start, end in _blocks(text):
        pieces += [text[last:start], _markdown(qid, *drawn[qid], rng) + "\n"]
        last = end
    pieces.append(text[last:])
    return {"answers.md": "".join(pieces)}


QUESTIONS = ("1a", "1b_i", "1b_ii", "1b_iii", "1c", "1d", "1e", "2a_i", "2a_ii", "2b_i", "2b_ii",
             "3a", "3b", "3e_i", "3e_ii", "3f", "3g")
Drawn = tuple[str, object]


def _draw(qid: str, rng: random.Random) -> Drawn:
    """(kind, what to write) of one answer."""
    if rng.random() < EMPTY_SHARE:
        return EMPTY, None
    if qid in IN_WORDS and rng.random() < WORDS_SHARE:
        return WORDS, IN_WORDS[qid]
    if qid in FORMULAS:
        table = FORMULAS[qid]
        kind = rng.choices(list(table), weights=[FORMULA_WEIGHTS.get(k, 1) for k in table])[0]
        prose = rng.choice(EXPLAIN[qid]) if qid in EXPLAIN else "A short derivation."
        return kind, (rng.choice(table[kind]), _vary(prose, rng))
    if qid == "3a":
        kind = rng.choices(list(TABLES), weights=[5, 1, 2, 1])[0]
        return kind, (TABLES[kind], rng.choice(("→", "->")))
    if qid == "3f":
        return _parser_errors(rng)
    quality = rng.choices((0, 1, 2), weights=(5, 3, 2))[0]
    return ("good", "short", "poor")[quality], _vary(PROSE[qid][quality], rng)


def _markdown(qid: str, kind: str, what: object, rng: random.Random) -> str:
    if kind == EMPTY:
        return ""
    if kind == WORDS:
        return f"**Answer:** {what}\n"
    if qid in FORMULAS:
        spelling, prose = what  # type: ignore[misc]
        if qid == "1d":
            if spelling[0] == "split":
                answer = (f"**Answer:** case w = o: $${spelling[1]}$$\n\n"
                          f"**Answer:** case w ≠ o: $${spelling[2]}$$")
            else:
                answer = f"**Answer:** $$\\frac{{\\partial J}}{{\\partial \\mathbf{{u}}_w}} = {spelling[1]}$$"
        else:
            answer = A.format(spelling)
        return f"{prose}\n\n{answer}\n"
    if qid == "3a":
        first_wrong, arrows = what  # type: ignore[misc]
        return _table(first_wrong, arrows) + "\n"
    if qid == "3f":
        items = [f"{roman}.\n\n- **Error type:** {k}\n- **Incorrect dependency:** {w}\n- **Correct dependency:** {r}"
                 for roman, (k, w, r) in zip(("i", "ii", "iii", "iv"), what)]  # type: ignore[call-overload]
        return "\n\n".join(items) + "\n"
    return f"{what}\n"
