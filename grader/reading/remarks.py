"""The one remark rule: where the remark after a formula starts (``\\quad \\text{where ...}``, ``, i.e.
...``, a trailing ``(so ...)``), applied before any split on ``=`` (:mod:`grader.reading.answers`), and
what counts as prose rather than notation in a formula typed as text."""

from __future__ import annotations

import re

from grader.reading.braces import opening, scan
from grader.reading.notation import OTHER_CASE, basis_vectors, trailing_condition

_CONDITION_WORDS = re.compile(r"\s+(?=(?:when|if|for)\b)", re.I)
_LATEX_REMARK = re.compile(r"\\(?:quad|qquad|text|mbox|textrm|textit|hspace|tag|intertext)(?![A-Za-z])|\\[,;]\s*\\text|,"
                           r"|\\ (?=(?:\\ |\s)*\()")
"""Where a remark starts: ``\\quad``, prose in ``\\text``, a comma, control spaces before a bracket (``\\ \\ (w \\neq o)``)."""
NOTATION_WORDS = ("T", "drop", "CE", "softmax", "ReLU", "relu", "sign", "diag", "step", "Heaviside", "exp", "log",
                  "max", "min", "sum")
"""Words that are notation inside math (``\\text{softmax}``, ``\\text{step}(z)``), never a remark or prose."""
_NOTATION_TEXT = re.compile(r"\s*(?:[A-Za-z]|otherwise|" + "|".join(NOTATION_WORDS) + r")\s*")
_TEXT_REMARK = re.compile(
    r",\s*(?:i\.\s?e\.?|e\.\s?g\.?|where|which|so|since|because|as|this|that|with|note|here|by|using)(?![A-Za-z])"
    r"|,\s+(?!else|otherwise)(?=[a-z]{3,}\s)"
    r"|\s+(?:where|since|because|which|so\s+that|i\.\s?e\.|e\.\s?g\.)\s|[.;](?:\s|$)"
    r"|\s+#\s|\s+\((?=\s*(?:i\.\s?e\.|e\.\s?g\.|so\s|note\b))", re.I)     # a code comment, "(i.e. ...)"
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z_^])(?!(?:" + "|".join(NOTATION_WORDS) + r"|[a-z]?hat|gamma|delta|sigma|theta|"
                         r"partial)\b)[a-z]{3,}\b", re.I)


SHAPE_NOTE = re.compile(r"\(\s*(?:\|V\||[A-Za-z](?:_\{?[A-Za-z]\}?)?|\d+)\s*(?:×|x|\\times|\*)\s*"
                        r"(?:\|V\||[A-Za-z](?:_\{?[A-Za-z]\}?)?|\d+)\s*\)")
"""A shape written after a formula, ``(d × |V|)``, ``(D_h x D_x)``: a remark, never a factor."""


def _remark_paren(text: str) -> int:
    """Where a trailing ``( ... )`` that holds prose starts (``(so ...)``, ``(ŷ_c − 1 for the true
    class, ŷ_i otherwise)``), or -1; a one-hot vector's name (``onehot(o)``) is notation, not prose."""
    body = text.rstrip()
    if not body.endswith(")"):
        return -1
    start = opening(body, len(body) - 1)
    if start > 0 and body[:start].strip() and SHAPE_NOTE.fullmatch(body[start:]):
        return start
    if start <= 0 or not body[:start].strip() or not _PROSE_WORD.search(re.sub(r"\\[A-Za-z]+", " ", basis_vectors(body[start:]))):
        return -1
    return start


def cut_remark(formula: str) -> str:
    """The formula without the remark after it: the ONE rule, applied before any split on ``=``.

    A remark starts, at the top level (outside brackets and ``cases``), at ``\\quad``/``\\qquad``,
    ``\\text{...}`` holding prose (not notation such as ``\\text{T}``), a shape note (``\\in
    \\mathbb{R}^{d×|V|}``), a comma (``, \\quad z = xW + b_1``, ``, i.e. ...``), a sentence's end,
    or a trailing ``( ... )`` holding words. Plain-text formulas end at the same places: ``, i.e.``,
    ``, where``, `` (so ...)``. Conditions (``if``, ``when``, ``otherwise``) are not remarks: they
    belong to the answer's cases."""
    text = formula
    latex = "\\" in text
    for i, ch, top in scan(text):
        if not top or not text[:i].strip() or text[i - 1] == "\\":
            continue
        if ch == "," and (latex or _TEXT_REMARK.match(text, i)) and _comma_is_remark(text, i):
            text = text[:i]
            break
        if ch == "∈" or ch == "\\" and text.startswith("\\in", i) and not text[i + 3:i + 4].isalpha():
            text = text[:i]       # a shape note: ... \in \mathbb{R}^{d \times |V|}
            break
        if ch == "\\" and _LATEX_REMARK.match(text, i):
            m = re.match(r"\\(?:text|mbox|textrm|textit)\s*\{([^{}]*)\}", text[i:])
            if m and _NOTATION_TEXT.fullmatch(m.group(1)):
                continue
            text = text[:i]
            break
        if ch in ".;" and not latex and _TEXT_REMARK.match(text, i):
            text = text[:i]
            break
        if ch == " " and not latex and _TEXT_REMARK.match(text, i):
            text = text[:i]
            break
    paren = _remark_paren(text)
    if paren > 0:
        text = text[:paren]
    cond = None if latex else trailing_condition(text)
    if cond is not None:
        text = text[:cond]
    text = text.strip().rstrip(" ,;.")
    while text.endswith("\\") and not text.endswith("\\\\"):
        text = text[:-1].rstrip(" ,;.")       # "\;" at the end was spacing, not punctuation: no lone "\"
    return text


def _comma_is_remark(text: str, i: int) -> bool:
    """A top-level comma ends the answer unless what follows is another case (``..., else 0``) or
    the formula goes on as a list (``[a, b]`` is inside brackets and never here)."""
    rest = text[i + 1:].lstrip()
    return not re.match(r"(?:\\text\s*\{\s*)?(?:else|otherwise|if|when|for\s+[a-z]\s*(?:=|\\neq|≠))", rest, re.I) \
        and not re.match(r"[-\d(]", rest) and not OTHER_CASE.match(rest)
