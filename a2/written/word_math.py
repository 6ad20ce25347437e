"""Formulas spoken in words in a plain-text answer ("U multiplied by (y-hat minus y)", "one over (one minus
p_drop)"), as the symbols a TA reads in them.

Only in a formula item's section typed without math (no ``$``, no backslash): the operator words between
names and brackets (``minus``, ``plus``, ``times``, ``multiplied by``, ``divided by``, ``one over``), the
number words next to them (``one minus``) and a hat spelled out (``y-hat``) are written as symbols, so the
reader's plain-text rules (the formula a line ends with) read them. The section keeps a doubt: an answer
read from words below full goes to a TA.
"""

from __future__ import annotations

import re

WORDS = ((re.compile(r"\b([A-Za-z])[- ]hat(?![A-Za-z])"), r"\1hat"),
         (re.compile(r"\bone over\b", re.I), "1/"),
         (re.compile(r"\bone minus\b", re.I), "1 -"),
         (re.compile(r"\bone plus\b", re.I), "1 +"),
         (re.compile(r"\bminus\b"), "-"),
         (re.compile(r"\bplus\b"), "+"),
         (re.compile(r"\b(?:multiplied by|times)\b"), "*"),
         (re.compile(r"\bdivided by\b"), "/"))
DOUBT = "the formula was read from words (minus, times, one over ...) written as symbols"


def spoken(body: str) -> str | None:
    """``body`` with its spoken operators as symbols, or None: math typed as such, or no operator word."""
    if "$" in body or "\\" in body:
        return None
    out = body
    for pattern, symbol in WORDS:
        out = pattern.sub(symbol, out)
    return out if out != body and re.search(r"[-+*/] ?[A-Za-z0-9(]", out) else None
