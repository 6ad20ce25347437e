"""Answers written as code: numpy (or MATLAB-style) lines in a section that has no formula of its own.

Some students answer the derivations with the numpy they checked them with (``grad_v_c = U @ (y_hat -
y)``, ``np.outer(v_c, y_hat - y)``, ``float(z[i] > 0) * W[j, i]``), in a fenced block, an indented
block or an inline code span. A TA reads the block's last assignment as the answer. So does the reader,
but only for a section in which no formula outside code was found (code elsewhere, such as a
notebook's cells, is never an answer): that assignment's right side, written as the math it computes
(:func:`code_math`: ``np.outer(a, b)`` is a bᵀ, ``U.dot(x)`` is U x, ``X.T`` is Xᵀ, ``a[i, j]`` is a_ij, a comparison
used as a number is its indicator, ``**`` a power), becomes the section's marked answer, with a doubt
(an answer read from code below full goes to a TA). A definition before it (``z = x @ W + b1``) is kept
as a line of its own.
"""

from __future__ import annotations

import ast
import re

from grader.reading.answers import candidates

_FENCED = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_INDENTED = re.compile(r"(?:^(?: {4}|\t)[^\n]*\n?)+", re.M)
_SPAN = re.compile(r"`([^`\n]+=[^`\n]+)`")
_CODE_LANGUAGES = frozenset({"", "python", "py", "python3", "ipython", "numpy", "matlab", "octave", "julia", "r"})
_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][\w]*(?:\[[^\]=]*\])?)\s*=(?!=)\s*(.+?)\s*$")
FORMULA_QUESTIONS = frozenset({"1b_i", "1d", "1e", "2b_i", "3b", "3e_i", "3e_ii"})
"""The items whose answer is a formula (the others, tables and words, are never read from code here)."""
DOUBT = "the answer was read from code (its last assignment), as the math it computes"
MAX_EXPRESSION = 300
"""Characters of an assignment's right side read as an answer (a longer one is no formula a TA reads, and
:func:`code_math` rewrites nested calls one at a time: 3,000 nested ``float(`` took 38 s)."""


def _code_regions(body: str) -> list[str]:
    """The code in ``body``: fenced blocks of a programming language, indented blocks, inline spans with ``=``."""
    out = [m.group(3) for m in _FENCED.finditer(body) if m.group(2).lower() in _CODE_LANGUAGES]
    rest = _FENCED.sub("", body)
    out += [m.group(0) for m in _INDENTED.finditer(rest) if "=" in m.group(0) and _looks_like_code(m.group(0))]
    out += [m.group(1) for m in _SPAN.finditer(rest) if _looks_like_code(m.group(1))]
    return out


_PROSE = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}")


def _looks_like_code(text: str) -> bool:
    """Whether an indented block or a code span is code, not math (``\\``, ``$``) or prose indented
    with a tab (three words in a row)."""
    return not re.search(r"[\\$]", text) and not _PROSE.search(text)


def without_code(body: str) -> str:
    body = _FENCED.sub(lambda m: "\n" if m.group(2).lower() in _CODE_LANGUAGES else m.group(0), body)
    body = _INDENTED.sub(lambda m: "\n" if _looks_like_code(m.group(0)) else m.group(0), body)
    return _SPAN.sub(lambda m: " " if _looks_like_code(m.group(1)) else m.group(0), body)


def _closing_paren(text: str, start: int) -> int:
    """The index after the ``)`` closing the ``(`` at ``start`` (-1 if unclosed)."""
    depth = 0
    for k in range(start, len(text)):
        depth += text[k] == "("
        depth -= text[k] == ")"
        if depth == 0:
            return k + 1
    return -1


def _call(text: str, name: str, rewrite) -> str:
    """``text`` with each call ``name(a, b)`` replaced by ``rewrite([a, b])``."""
    while True:
        at = text.find(name + "(")
        if at < 0 or (at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_.")):
            return text
        end = _closing_paren(text, at + len(name))
        if end < 0:
            return text
        inner = text[at + len(name) + 1:end - 1]
        depth, args, cur = 0, [], ""
        for ch in inner:
            depth += ch in "([{"
            depth -= ch in ")]}"
            if ch == "," and depth == 0:
                args.append(cur.strip())
                cur = ""
            else:
                cur += ch
        args.append(cur.strip())
        text = text[:at] + rewrite(args) + text[end:]


def code_math(expr: str) -> str:
    """A numpy/MATLAB-style expression as the plain-text math it computes (see the module's docstring)."""
    expr = expr.split("#", 1)[0].split("%", 1)[0].strip().rstrip(";")
    expr = re.sub(r"\bnp\.(?:outer)\b", "outer", expr)
    expr = _call(expr, "outer", lambda a: f"({a[0]})({a[1]})^T" if len(a) == 2 else "?")
    expr = expr.replace(".dot(", " (").replace("np (", "dot(")              # U.dot(y_hat - y); np.dot(a, b)
    expr = _call(expr, "dot", lambda a: f"({a[0]})({a[1]})" if len(a) == 2 else "?")
    for cast in ("float", "int", "np.float64", "bool"):
        expr = _call(expr, cast, lambda a: f"1{{{a[0]}}}" if len(a) == 1 and re.search(r"[<>]", a[0]) else f"({a[0]})")
    expr = re.sub(r"\(([^()]*?[<>]=?[^()]*?)\)(\.astype\(\w+\))?", r"1{\1}", expr)     # (z[i] > 0) * W[j, i]
    expr = re.sub(r"\.T\b", "^T", expr)
    expr = re.sub(r"(\w)\[\s*([A-Za-z0-9]+)\s*,\s*([A-Za-z0-9]+)\s*\]", r"\1_{\2\3}", expr)
    expr = re.sub(r"(\w)\[\s*([A-Za-z0-9]+)\s*\]", r"\1_\2", expr)
    expr = re.sub(r"\bnp\.(exp|log|sum)\b", r"\1", expr)
    expr = re.sub(r"(?<![\w.])(\d+)\.0*(?![\d\w])", r"\1", expr)        # 1.0, 1.
    return expr.replace("**", "^").replace("@", " ")


_LATEX_NAMES = ((re.compile(r"\b([A-Za-z]+?)_?hat(?![A-Za-z0-9])(_[A-Za-z0-9]+|_\{\w+\})?"),
                 lambda m: f"\\hat{{{m.group(1)}}}{m.group(2) or ''}"),
                (re.compile(r"\b([pP])_?drop\b"), lambda m: "p_{drop}"),
                (re.compile(r"\b([bW])([0-9])\b"), lambda m: f"{m.group(1)}_{m.group(2)}"),
                (re.compile(r"1\{([^{}]*)\}"), lambda m: f"\\mathbb{{1}}\\{{{m.group(1)}\\}}"),
                (re.compile(r"\s*\*\s*"), lambda m: " "))


def as_latex(plain: str) -> str:
    """:func:`code_math`'s plain math as LaTeX (``y_hat_w`` is ``\\hat{y}_w``, ``1{z_i > 0}`` an indicator)."""
    for pattern, rewrite in _LATEX_NAMES:
        plain = pattern.sub(rewrite, plain)
    return plain


def code_answer(body: str) -> str | None:
    """The section's answer read from its code (``Answer: <math>`` lines), or None: a section with a
    formula outside code, or no assignment with a right side that reads as math."""
    regions = _code_regions(body)
    if not regions or candidates(without_code(body)):
        return None
    assignments = [m for region in regions for line in region.split("\n")
                   if (m := _ASSIGNMENT.match(line)) and len(m.group(2)) <= MAX_EXPRESSION
                   and not re.search(r"[\"']|\blambda\b|\bnp\.zeros", m.group(2))]
    if not assignments:
        return None
    last = assignments[-1]
    lines = [f"where ${as_latex(code_math(m.group(1)))} = {as_latex(code_math(m.group(2)))}$" for m in assignments[:-1]
             if len(m.group(1)) <= 2]           # a short name defined first (z = x @ W + b1)
    return "\n\n".join(lines + [f"Answer: ${as_latex(code_math(last.group(2)))}$"]) + "\n"


def _words(value) -> list[str] | None:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value) else None


def _arc(value) -> str:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return f"{value[0]} → {value[1]}"
    return value if isinstance(value, str) else ""


def _literal(region: str):
    """The Python literal a code block assigns or holds (None if it holds none)."""
    text = "\n".join(line.split("#", 1)[0] for line in region.split("\n")).strip()
    m = re.match(r"^[A-Za-z_]\w*\s*=\s*", text)
    try:
        return ast.literal_eval(text[m.end():] if m else text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):   # TypeError: {[1]: 2}
        return None


def literal_rows(body: str, question: str) -> str | None:
    """A 3(a) table or 3(f) answers held in a code block as a Python literal (a list of (stack, buffer, arc,
    transition) tuples; a dict of sentence -> (error type, incorrect arc, correct arc)), as the Markdown a
    student would have typed: pipe rows, one line per sentence (a comment naming the correct arc before
    the incorrect one swaps them). None if the section has no such literal."""
    for m in _FENCED.finditer(body):
        value = _literal(m.group(3))
        if question == "3a" and isinstance(value, (list, tuple)) and len(value) >= 3:
            rows = []
            for row in value:
                if not isinstance(row, (list, tuple)) or len(row) not in (3, 4) or None in (
                        _words(row[0]), _words(row[1])) or isinstance(row[0], str) or isinstance(row[1], str):
                    return None
                rest = list(row[2:])
                name = next((cell for cell in reversed(rest) if isinstance(cell, str) and "→" not in cell
                             and "->" not in cell), "")
                arc = next((_arc(cell) for cell in rest if cell is not name), "")
                rows.append(f"| [{', '.join(row[0])}] | [{', '.join(row[1])}] | {arc} | {name} |")
            return "| Stack | Buffer | New dependency | Transition |\n|---|---|---|---|\n" + "\n".join(rows) + "\n"
        if question == "3f" and isinstance(value, dict) and value:
            comment = m.group(3).lower()
            swap = 0 <= comment.find("correct") < comment.find("incorrect")
            lines = []
            for key, entry in value.items():
                if not isinstance(entry, (list, tuple)) or len(entry) != 3:
                    return None
                kind, wrong, right = entry[0], _arc(entry[1]), _arc(entry[2])
                wrong, right = (right, wrong) if swap else (wrong, right)
                lines.append(f"{key}. {kind}. Incorrect dependency: {wrong}. Correct dependency: {right}.")
            return "\n\n".join(lines) + "\n"
    return None
