"""The LaTeX spellings the formula normaliser knows, as data (:mod:`grader.reading.latex_normal`
walks a formula's pylatexenc nodes and looks each macro up here). A new spelling is a new entry.

Generic LaTeX (any course's formulas) first, then :data:`ASSIGNMENT_NOTATION`: the spellings this
assignment's answers use (dropout's keep probability ``p_{drop}``, ReLU's derivative as a unit step,
the index pairs of ``W_{ji}``).
"""

from __future__ import annotations

from dataclasses import dataclass

DROPPED = frozenset({",", ";", ":", "!", " ", "quad", "qquad", "displaystyle", "textstyle", "scriptstyle",
                     "limits", "nolimits", "middle", "hspace", "space", "label", "tag", "nonumber", "notag"})
"""Macros that stand for space or nothing in a formula (their arguments go with them): spacing
``\\,`` ``\\quad``, math styles ``\\displaystyle``, ``\\limits``, ``\\hspace{2pt}``, equation labels
and tags."""
LENGTH_DROPPED = frozenset({"kern", "mkern", "hkern", "skip", "mskip", "hskip"})
"""Spacing macros followed by a length, not an argument: ``\\mkern-1.5mu``; the length goes too."""
LENGTH_UNITS = ("mu", "pt", "em", "ex", "mm", "cm", "in", "bp", "sp", "dd", "pc")
"""Units of a length after :data:`LENGTH_DROPPED` or in a row break's spacing ``\\\\[4pt]``."""
SIZING = frozenset({"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "bigm", "Bigl", "Bigr", "Bigm",
                    "biggl", "biggr", "biggm", "Biggl", "Biggr", "Biggm"})
"""Delimiter sizes: the macro goes, its delimiter stays (``\\left(`` is ``(``; ``\\right.`` is nothing)."""
NO_DELIMITER = "."
"""The delimiter :data:`SIZING` macros write for "none"."""
STYLES = frozenset({"mathbf", "boldsymbol", "bm", "mathbfit", "mathit", "pmb", "vec", "mathsf", "mathrm", "textrm",
                    "text", "textit", "textbf", "mbox", "operatorname", "mathnormal", "underline",
                    "overrightarrow", "mathtt", "texttt", "textsf", "emph"})
"""Styles whose argument is kept as a group: ``\\mathbf{W}`` is ``{W}``, ``\\text{if }`` is ``{if }``."""
WRAPPERS = {"boxed": 0, "fbox": 0, "colorbox": 2}
"""Frames whose content (the argument at that index) is kept as a group: ``\\boxed{x}`` is ``{x}``."""
SWITCHES = frozenset({"color"})
"""Macros whose arguments go and whose effect is not read: ``\\color{red}``."""
HATS = frozenset({"hat"})
"""Accents read as a hat on one letter: ``\\hat y``, ``\\hat{\\mathbf{y}}`` and ``\\hat{y_o}`` are ``\\hat{y}`` (then ``_o``)."""
SYNONYMS: dict[str, str] = {
    "ell": "l", "cdotp": "\\cdot", "bullet": "\\cdot", "ast": "\\cdot",
    "ldots": "\\dots", "cdots": "\\dots", "dotsc": "\\dots", "dotsb": "\\dots",
    "lvert": "|", "rvert": "|", "vert": "|", "lbrack": "[", "rbrack": "]", "lbrace": "\\{", "rbrace": "\\}",
    "ge": "\\geq", "le": "\\leq", "ne": "\\neq", "gt": ">", "lt": "<",
    "dfrac": "\\frac", "tfrac": "\\frac", "widehat": "\\hat",
}
"""LaTeX commands with the same meaning as another (or a character)."""
ARGUMENTS = {**{name: "{" for name in STYLES}, "boxed": "{", "fbox": "{", "tag": "*{", "dfrac": "{{", "tfrac": "{{",
             "colorbox": "[{{", "color": "[{"}
"""pylatexenc argument specs for the macros above that its default tables lack."""
TRANSPOSE_MACROS = frozenset({"top", "intercal"})
TRANSPOSE_LETTER = "T"
"""A transpose: ``^T``, ``^\\top``, ``^\\intercal``, ``^{\\mathsf T}``, ``^\\text{T}`` are ``^{T}``."""
CASES_ENVIRONMENTS = frozenset({"matrix", "array", "aligned"})
"""Environments that, after ``\\{`` (``\\left\\{``), are Word's and MathJax's way to write ``cases``."""
OPERATORS = frozenset({"cdot", "times", "odot", "circ", "otimes", "pm", "mp", "in", "neq", "leq", "geq", "approx",
                       "equiv", "quad", "qquad", "sum", "prod", "partial", "nabla", "log", "exp", "ln"})
"""Commands that take no argument: ``\\cdot {W}`` is ``\\cdot W`` (a braced letter after them is no argument)."""
TRAILING = " \t\n.,;:"
"""Punctuation ending a formula's sentence, not part of it."""

@dataclass(frozen=True)
class AssignmentNotation:
    """Spellings one assignment's answers use (one instance below, for this assignment)."""

    step_functions: tuple[str, ...]
    dropout_base: str
    dropout_subscripts: tuple[str, ...]
    dropout_styles: tuple[str, ...]
    index_pair_letters: str


ASSIGNMENT_NOTATION = AssignmentNotation(
    step_functions=("ReLU'", "Heaviside", "H", "step", "\\theta", "\\Theta"),
    dropout_base="p", dropout_subscripts=("drop", "dropout", "d"),
    dropout_styles=("text", "mathrm", "rm", "textrm", "mathit", "operatorname"),
    index_pair_letters="ijk",
)
"""This assignment's spellings. Step functions: the unit step 1{x > 0} applied to a bracket,
``ReLU'(z)`` (any case, also ``\\mathrm{ReLU}^\\prime``), Heaviside's ``H(z)``, ``\\text{step}(z)``,
``\\theta(z)``; each becomes ``\\relustep`` for :mod:`grader.reading.mathparse`. Dropout probability:
``p_{drop}``, ``p_{\\text{dropout}}``, ``p_d`` (its subscripts, and the style macros allowed around
them) are ``p``. Index pair letters: ``W_ji`` typed without braces is ``W_{ji}`` (a pair of these
letters is one subscript; ``v_cy`` stays v_c·y, as in TeX), and ``W_{j,i}`` is ``W_{ji}``."""
STEP_FUNCTIONS = ASSIGNMENT_NOTATION.step_functions

FUNCTIONS: dict[str, str] = {"softmax": "\\mathrm{softmax}"}
"""Named functions an answer may apply to a bracket, in any style (``\\operatorname{softmax}(l)``,
``\\text{softmax}(l)``, plain ``softmax(l)``), each written as latex2sympy reads a call of it; the
evaluator (:mod:`grader.reading.evaluate`) computes it and :mod:`grader.reading.mathparse` reads
an index after its bracket (``softmax(l)_i``) as an entry of the call."""
