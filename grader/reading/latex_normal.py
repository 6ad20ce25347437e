"""Normalising one formula's LaTeX: plain string rewriting into the grammar that
latex2sympy2_extended reads, before anything is parsed (:mod:`grader.reading.mathparse` parses).

Styles (``\\mathbf``, ``\\boldsymbol``, ``\\bm``), transposes (``^\\top``, ``^T``), ``p_{drop}``,
unicode (ŷ, ᵀ, ·, −), spacing and sizing commands, ``\\\\[4pt]`` row spacing (never a product
4·p·t) and ``W_ji`` typed without braces. Nothing here evaluates student text.
"""

from __future__ import annotations

import re

from grader.reading.braces import closing
from grader.reading.notation import to_latex


class FormulaError(ValueError):
    """A formula that cannot be read; the message says what and why, for the student."""



_SPACING = re.compile(r"(?<!\\)\\(?:[,;:! ]|quad\b|qquad\b|displaystyle\b|textstyle\b|limits\b|nolimits\b"
                      r"|middle\b|[mh]?(?:kern|skip)\s*-?\d*\.?\d+\s*(?:mu|pt|em|ex)\b|h?space\*?\s*\{[^{}]*\})")
"""Spacing: ``\\,`` ``\\quad`` ``\\displaystyle``, and with a length (``\\mkern-1.5mu`` in a transpose macro, ``\\hspace{2pt}``)."""
_SIZING = re.compile(r"\\(?:left|right|[bB]igg?[lrm]?)(?![A-Za-z])\s*(\\?[\.\(\)\[\]\{\}|]|\\[lr]?[vV]ert"
                     r"|\\langle|\\rangle|\\lbrace|\\rbrace|\\lbrack|\\rbrack)?")
_STYLE_WITH_ARG = ("mathbf", "boldsymbol", "bm", "mathbfit", "mathit", "pmb", "vec", "mathsf",
                   "mathrm", "textrm", "text", "textit", "textbf", "mbox", "operatorname", "mathnormal",
                   "underline", "overrightarrow", "mathtt", "texttt", "textsf", "emph")
_HAT_WITH_ARG = ("hat", "widehat")
_TRANSPOSE = re.compile(
    r"\^\s*(?:\\top(?![A-Za-z])|\\intercal(?![A-Za-z])|\\mathsf\s*\{\s*T\s*\}|\\mathrm\s*\{\s*T\s*\}|\\text\s*\{\s*T\s*\}"
    r"|\{\s*(?:\\top|\\intercal|T|\\mathsf\s*\{\s*T\s*\}|\\mathrm\s*\{\s*T\s*\}|\\text\s*\{\s*T\s*\}"
    r"|\\textsf\s*\{\s*T\s*\})\s*\}|T)")
_P_DROP = re.compile(r"p_\s*((?:\{\s*|\\(?:text|mathrm|rm|textrm|mathit|operatorname)\s*)*)"
                     r"(?:drop(?:out)?|d)(?![A-Za-z])")
STEP_FUNCTIONS = ("ReLU'", "Heaviside", "H", "step", "\\theta", "\\Theta")
"""Spellings of the unit step 1{x > 0} applied to a bracket: ``ReLU'(z)`` (also ``relu'``,
``\\mathrm{ReLU}^\\prime``), Heaviside's ``H(z)``, ``\\text{step}(z)``, ``\\theta(z)``. Data: a new
spelling is a new entry."""
_STEP = re.compile(
    r"(?<![A-Za-z{])\\?(?:operatorname|mathrm|text|textrm|textsf|mathsf)?\s*\{?\s*(?:"
    + "|".join("(?i:" + re.escape(name[:-1]) + r")\s*\}?\s*(?:'|\^\s*\{?\s*\\prime\s*\}?)" if name.endswith("'")
               else re.escape(name) + r"(?![A-Za-z])\s*\}?(?=\s*(?:\\left\s*)?\()" for name in STEP_FUNCTIONS)
    + ")")
SYNONYMS: dict[str, str] = {
    "ell": "l", "cdotp": "\\cdot", "bullet": "\\cdot", "ast": "\\cdot",
    "ldots": "\\dots", "cdots": "\\dots", "dotsc": "\\dots", "dotsb": "\\dots",
    "lvert": "|", "rvert": "|", "vert": "|", "lbrack": "[", "rbrack": "]", "lbrace": "\\{", "rbrace": "\\}",
    "ge": "\\geq", "le": "\\leq", "ne": "\\neq", "gt": ">", "lt": "<",
    "dfrac": "\\frac", "tfrac": "\\frac", "widehat": "\\hat",
}
"""LaTeX commands with the same meaning as another (or a character): one table, one rewrite."""
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_ROW_SPACING = re.compile(r"\\\\\s*\[\s*-?\d*\.?\d+\s*(?:pt|em|ex|mm|cm|in|bp|sp|mu|dd|pc)\s*\]")
"""``\\\\[4pt]``: a line break with extra space, never a product 4·p·t."""
_PLAIN_PAIR = re.compile(r"(?<=[A-Za-z])_([ijk])([ijk])(?![A-Za-z{])")
"""``W_ji`` typed without braces: a pair of index letters is one subscript (``v_cy`` stays v_c·y, as in TeX)."""
_COMMA_PAIR = re.compile(r"_\{\s*([a-z])\s*,\s*([a-z])\s*\}")
_TRAILING = re.compile(r"[\s.,;:]+$")
_TEXT_OPERATORS = {"softmax": "softmax", "ReLU": "ReLU", "relu": "ReLU", "sgn": "sgn"}


def _unwrap(text: str, commands: tuple[str, ...], *, keep: str = "{}") -> str:
    """Replace ``\\cmd{arg}`` by ``arg`` (``keep`` "{}" keeps the braces) for each command."""
    pattern = re.compile(r"\\(" + "|".join(commands) + r")(?![A-Za-z])\s*")
    out = []
    pos = 0
    for m in pattern.finditer(text):
        if m.start() < pos:
            continue
        out.append(text[pos:m.start()])
        j = m.end()
        if j < len(text) and text[j] == "{":
            end = closing(text, j)
            if end < 0:
                raise FormulaError(f"an unclosed brace after \\{m.group(1)}")
            inner = text[j + 1:end]
            out.append("{" + inner + "}" if keep == "{}" else inner)
            pos = end + 1
        else:
            pos = j   # \mathbf x: the command applies to the next token, which stays as it is
    out.append(text[pos:])
    return "".join(out)


def _hats(text: str) -> str:
    """``\\hat y``, ``\\widehat{\\mathbf{y}}`` -> ``\\hat{y}``."""
    text = re.sub(r"\\hat\s+\{", r"\\hat{", text)                     # \hat \mathbf{y} once unwrapped
    text = re.sub(r"\\hat\s*([A-Za-z])", r"\\hat{\1}", text)
    # \hat{y_o} -> \hat{y}_o; {\hat{y}}_{i} -> \hat{y}_{i} (a subscript on a braced group)
    text = re.sub(r"\\hat\{\s*([A-Za-z])\s*_\s*(\{[^{}]*\}|[A-Za-z0-9])\s*\}", r"\\hat{\1}_\2", text)
    # \hat{{y}} (after unwrapping a style) -> \hat{y}
    text = re.sub(r"\\hat\{\s*\{\s*([A-Za-z])\s*\}\s*\}", r"\\hat{\1}", text)
    text = re.sub(r"\{\s*(\\hat\{[A-Za-z]\})\s*\}(?=\s*[_^])", r"\1", text)
    return text


_BRACE_MATRIX = re.compile(r"\\\{\s*\\begin\s*\{(matrix|array|aligned)\}(?:\s*\{[^{}]*\})?")


def brace_cases(text: str) -> str:
    """``\\left\\{ \\begin{matrix} a & \\text{if } c \\\\ ... \\end{matrix} \\right.`` (Word's and
    MathJax's way to write cases; its ``\\left``/``\\right.`` already dropped) -> ``cases``."""
    m = _BRACE_MATRIX.search(text)
    while m:
        end = re.compile(r"\\end\s*\{" + m.group(1) + r"\}").search(text, m.end())
        if end is None:
            break
        text = text[:m.start()] + r"\begin{cases}" + text[m.end():end.start()] + r"\end{cases}" + text[end.end():]
        m = _BRACE_MATRIX.search(text)
    return text


def _p_drop(text: str) -> str:
    """``p_{drop}``, ``p_{\\text{drop}}``, ``p_\\text{drop}``, ``p_d`` -> ``p`` (braces balanced)."""
    out = []
    pos = 0
    for m in _P_DROP.finditer(text):
        out.append(text[pos:m.start()])
        opened = m.group(1).count("{")
        j = m.end()
        while opened and j < len(text):
            if text[j] == "}":
                opened -= 1
            elif not text[j].isspace():
                break
            j += 1
        if opened:
            out.append(m.group(0))   # not a subscript we understand: leave it
            pos = m.end()
            continue
        out.append("p")
        pos = j
    out.append(text[pos:])
    return "".join(out)


_OPERATORS = frozenset({"cdot", "times", "odot", "circ", "otimes", "pm", "mp", "in", "neq", "leq", "geq", "approx",
                        "equiv", "quad", "qquad", "sum", "prod", "partial", "nabla", "log", "exp", "ln"})
"""Commands that take no argument: ``\\cdot {W}`` (left by unwrapping ``\\cdot \\mathbf{W}``) is ``\\cdot W``."""


def _strip_braced_singletons(text: str) -> str:
    """``{U}`` left behind by unwrapping -> ``U`` where it is not a command's argument."""
    def keep(m: re.Match[str]) -> str:
        before = text[:m.start()].rstrip()
        if before and (before[-1] in "_^" or before[-1] == "}" and not before.endswith("\\}")):
            return m.group(0)     # x^{T}, \frac{a}{b}: an argument ({W} after an indicator's \} is not)
        word = re.search(r"\\?[A-Za-z]+$", before)
        if word and word.group(0).startswith("\\") and word.group(0)[1:] not in _OPERATORS:
            return m.group(0)            # \frac{1}, \hat{y}, \sqrt{n}: a command's argument
        return m.group(1)
    for _ in range(3):       # {x}{W}: the second is a singleton too once the first is stripped
        new = re.sub(r"\{\s*([A-Za-z0-9])\s*\}", keep, text)
        if new == text:
            break
        text = new
    return text


def normalise(latex: str) -> str:
    """Rewrite one formula into the grammar latex2sympy2_extended reads (no placeholders yet)."""
    text = to_latex(latex)
    text = _ROW_SPACING.sub(r"\\\\ ", text)
    text = text.replace("$", " ")
    text = re.sub(r"\\(?:boxed|fbox|colorbox\{[^{}]*\}|color\{[^{}]*\})\s*(?=\{)", "", text)
    text = re.sub(r"\\tag\*?\s*\{[^{}]*\}|\\label\s*\{[^{}]*\}|\\nonumber|\\notag", " ", text)
    text = _COMMAND.sub(lambda m: SYNONYMS.get(m.group(1), m.group(0)), text)
    text = re.sub(r"\\(?:left|right)\s*\.", "", text)
    text = _SIZING.sub(lambda m: m.group(1) or "", text)
    text = _SPACING.sub(" ", text)
    text = brace_cases(text)
    text = _STEP.sub(r" \\relustep ", text)
    text = _TRANSPOSE.sub("^{T}", text)
    text = _hats(text)
    text = _p_drop(text)
    text = _unwrap(text, _STYLE_WITH_ARG)
    text = _hats(text)
    text = _p_drop(text)
    text = _PLAIN_PAIR.sub(r"_{\1\2}", text)     # W_ji typed without braces is W_{ji}
    text = _COMMA_PAIR.sub(r"_{\1\2}", text)     # W_{j,i} is W_{ji}
    text = _strip_braced_singletons(text)
    text = " ".join(text.split())
    return _TRAILING.sub("", text)
