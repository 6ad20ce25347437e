"""The notations students write formulas in, each mapped to LaTeX by a declared table.

One front end for every formula: LaTeX is the grammar :mod:`grader.reading.mathparse` reads, and
Unicode (ŷ, ∂, ⊙, ᵀ, ₁, 𝟙) and ASCII (``y_hat``, ``dJ/dU``, ``U^T``, ``*``, ``1{...}``, ``b1``)
are rewritten into it by the tables below, not by rules scattered over the reader. A formula
with no backslash is plain text and gets the ASCII table after the Unicode one (students mix
both: ``U(ŷ - y)^T``); LaTeX gets only the Unicode table (a pasted ``ŷ`` inside ``$...$``).

Conditions written in words (``W_ji if (xW + b1)_i > 0, else 0``; ``ŷ_i − 1 if i = c, ŷ_i
otherwise``) become a ``cases`` environment (:func:`word_cases`). Nothing here evaluates text.
"""

from __future__ import annotations

import re

from grader.reading.braces import closing

UNICODE: dict[str, str] = {
    # operators and relations
    "\u2212": "-", "\u2013": "-", "\u2014": "-", "\u00b7": r" \cdot ", "\u22c5": r" \cdot ", "\u2219": r" \cdot ",
    "\u00d7": r" \times ", "\u2299": r" \odot ", "\u2218": r" \circ ", "\u2297": r" \otimes ", "\u2260": r" \neq ",
    "\u2264": r" \leq ", "\u2265": r" \geq ", "\u2211": r"\sum ", "\u2208": r" \in ", "\u2192": r" \rightarrow ",
    "\u2190": r" \leftarrow ", "\u2026": r"\dots ", "\u22ef": r"\dots ", "\u2032": "'",
    # letters
    "\u03b3": r"\gamma ", "\u2202": r"\partial ", "\u03b4": r"\delta ", "\u03c3": r"\sigma ", "\u03b8": r"\theta ",
    "\u2113": "l", "\u0177": r"\hat{y}", "\U0001d7d9": r"\mathbb{1}", "\U0001d540": r"\mathbb{1}",
    # super- and subscripts
    "\u1d40": "^{T}", "\u22a4": r"\top ", "\u00b2": "^{2}", "\u207b\u00b9": "^{-1}",
    "\u2080": "_0", "\u2081": "_1", "\u2082": "_2", "\u2083": "_3", "\u1d62": "_i", "\u2c7c": "_j", "\u2092": "_o",
    "\u2096": "_k", "\u2099": "_n", "\u2093": "_x",
    # spaces
    "\u00a0": " ", "\u2009": " ", "\u202f": " ", "\u200b": "",
}
"""Unicode symbol -> LaTeX."""

_COMBINING_HAT = re.compile(r"([A-Za-z])\u0302")

ASCII: tuple[tuple[str, str], ...] = (
    # (pattern, replacement): applied in order to a formula written without LaTeX
    (r"([A-Za-z])_hat(?![A-Za-z])", r" \\hat{\1}"),                              # y_hat (also in Uy_hat)
    (r"(?<![A-Za-z\\])([A-Za-z])hat(?![A-Za-z])", r"\\hat{\1}"),                  # yhat
    (r"(?<![A-Za-z\\])hat\s*\(\s*([A-Za-z])\s*\)", r"\\hat{\1}"),                  # hat(y)
    (r"(?<![A-Za-z\\])(gamma|delta|sigma|theta|alpha|beta|partial)(?![A-Za-z])", r"\\\1 "),
    (r"(?<![A-Za-z\\])(sum|exp|log)(?![A-Za-z])", r"\\\1 "),
    (r"(?<![A-Za-z\\_^0-9])([A-Za-z])(\d)(?![0-9A-Za-z])", r"\1_\2"),              # b1 -> b_1
    (r"\^\s*\(([^()]*)\)", r"^{\1}"),                                             # ^(-1) -> ^{-1}
    (r"!=|=/=", r" \\neq "), (r">=", r" \\geq "), (r"<=", r" \\leq "),
    (r"\*", r" \\cdot "),
)
"""ASCII spelling -> LaTeX (a formula with no backslash before the Unicode table ran)."""

_ASCII = tuple((re.compile(p), r) for p, r in ASCII)
_PLAIN_INDICATOR = re.compile(r"(?<![A-Za-z0-9_\\^{])1\s*(?=\{)")


def _indicator_braces(text: str) -> str:
    """``1{cond}`` typed without LaTeX -> ``\\mathbb{1}\\{cond\\}``."""
    out, pos = [], 0
    for m in _PLAIN_INDICATOR.finditer(text):
        if m.start() < pos:
            continue
        end = closing(text, m.end())
        if end < 0:
            continue
        out.append(text[pos:m.start()] + r"\mathbb{1}\{" + text[m.end() + 1:end] + r"\}")
        pos = end + 1
    out.append(text[pos:])
    return "".join(out)


def to_latex(text: str) -> str:
    """``text`` in any of the notations -> LaTeX for :func:`grader.reading.latex_normal.normalise`."""
    plain = "\\" not in text
    text = _COMBINING_HAT.sub(r"\\hat{\1}", text)
    for char, latex in UNICODE.items():
        if char in text:
            text = text.replace(char, latex)
    if plain:
        text = word_cases(text)
        text = _indicator_braces(text)
        for pattern, repl in _ASCII:
            text = pattern.sub(repl, text)
    return text


_WORD_CASES = (
    # "A if COND, else B" / "A if COND and B otherwise" / "A when COND, B otherwise"
    re.compile(r"^(?P<a>[^,;]+?)\s+(?:if|when|for)\s+(?P<cond>[^,;]+?)\s*[,;]?\s*(?:and\s+)?(?:else|otherwise)\s*[,:]?\s*"
               r"(?P<b>[^,;]+?)\s*\.?$", re.I),
    re.compile(r"^(?P<a>[^,;]+?)\s+(?:if|when|for)\s+(?P<cond>[^,;]+?)\s*[,;]\s*(?:and\s+)?(?P<b>[^,;]+?)\s+"
               r"(?:otherwise|else|elsewhere)\s*\.?$", re.I),
)


def word_cases(text: str) -> str:
    """A formula whose cases are written in words -> ``\\begin{cases}``; else ``text``."""
    for pattern in _WORD_CASES:
        m = pattern.match(text.strip())
        if m:
            return (rf"\begin{{cases}} {m.group('a')} & {m.group('cond')} \\ {m.group('b')} & "
                    r"\text{otherwise} \end{cases}")
    return text
