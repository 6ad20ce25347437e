"""LaTeX of one final answer -> an ordered SymPy tree, without ever evaluating student text.

The tree is built by latex2sympy2_extended from its ANTLR parse tree (no ``eval``, no
``sympify`` of strings). Two things are adapted to what students write in this assignment:

* Symbols are created non-commutative, so ``U^T(ŷ - y)`` and ``(ŷ - y)^T U`` keep their
  order: the numeric evaluator (:mod:`grader.reading.evaluate`) multiplies matrices left to
  right and reports shape mismatches. The whole conversion runs under ``sympy.evaluate(False)``
  so nothing is simplified or computed (``10^{10^{10}}`` stays a tree).
* Notation the grammar does not know is rewritten first (:func:`normalise`): styles
  (``\\mathbf``, ``\\boldsymbol``, ``\\bm``), transposes (``^\\top``, ``^T``, ``^\\intercal``),
  ``p_{drop}``, unicode (ŷ, ᵀ, ·, −), and constructs that become *placeholders*: indicators
  (``\\mathbb{1}\\{..\\}``, ``\\mathbf{1}[..]``, ``1[..]``, Iverson brackets, ``ReLU'(z)``),
  indexing of a bracketed expression (``(xW + b_1)_i``) and ``cases`` environments. Each
  placeholder's parts are parsed on their own and kept beside the tree.

Sizes are capped (:data:`MAX_FORMULA_CHARS`, :data:`MAX_NESTING`, :data:`MAX_NODES`); a hostile
formula costs its own question, and the process boundary (:mod:`a2.written.process`) adds a
time limit on top.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

import sympy
from latex2sympy2_extended.latex2sympy2 import ConversionConfig, _Latex2Sympy

from grader.reading.braces import closing, depth, opening, scan
from grader.reading.latex_normal import FormulaError, case_rows, first_cases, normalise
from grader.reading.latex_normal import clear_cache as clear_normalised
from grader.reading.latex_tables import FUNCTIONS
from grader.reading.prediction import fast_parser

MAX_FORMULA_CHARS = 2000
"""Longest formula (after normalisation) that is parsed; longer ones are reported, not read."""
MAX_NESTING = 30
"""Deepest bracket nesting accepted (the ANTLR parser recurses on nesting)."""
MAX_NODES = 600
"""Largest parsed tree that is evaluated."""
PLACEHOLDER = "Omega"
"""Greek capital used for placeholder symbols (``\\Omega_{3}``): no answer here uses Ω."""

_CONFIG = ConversionConfig(lowercase_symbols=False, interpret_as_mixed_fractions=False,
                           interpret_simple_eq_as_assignment=False, interpret_contains_as_eq=False)


@dataclass(frozen=True)
class Indicator:
    """1 when ``condition`` holds, else 0 (``\\mathbb{1}\\{z_i > 0\\}``, ``ReLU'(z_i)``...)."""

    condition: Any          # a SymPy Relational (or And/Or of them)
    source: str


@dataclass(frozen=True)
class IndexOf:
    """Entry ``indices`` of a bracketed expression: ``(xW + b_1)_i``."""

    inner: Any
    indices: str
    source: str


@dataclass(frozen=True)
class Cases:
    """``\\begin{cases} a & cond \\\\ b & \\text{otherwise} \\end{cases}``; condition None = otherwise."""

    branches: tuple[tuple[Any, Any], ...]
    source: str


Placeholder = Indicator | IndexOf | Cases


@dataclass(frozen=True)
class Formula:
    """A parsed answer: what was read, the tree, and the placeholders the tree refers to."""

    source: str
    normalised: str
    tree: Any
    placeholders: dict[str, Placeholder] = field(default_factory=dict)


class _OrderedConverter(_Latex2Sympy):
    """latex2sympy2_extended's converter with non-commutative symbols (keeps product order)."""

    @staticmethod
    def _ordered(out: Any) -> Any:
        if isinstance(out, sympy.Basic):
            swap = {s: sympy.Symbol(s.name, commutative=False) for s in out.atoms(sympy.Symbol)
                    if s.is_commutative}
            if swap:
                out = out.xreplace(swap)
        return out

    def convert_atom_expr(self, atom_expr: Any) -> Any:
        return self._ordered(super().convert_atom_expr(atom_expr))

    def create_symbol(self, text: str, enforce_case: bool = False) -> Any:
        return sympy.Symbol(text, commutative=False)

    def parse_number(self, text: str) -> Any:
        """A whole number as the Integer ``sympy.Number`` makes of its text, without SymPy's
        string parser (``exec`` of ``from sympy import *`` for every number); any other as before."""
        if text.isascii() and text.isdigit():
            return sympy.Integer(int(text))
        return super().parse_number(text)


class _FastConverter(_OrderedConverter):
    """The same converter with ANTLR's cached SLL prediction (:mod:`grader.reading.prediction`)."""

    def create_parser(self, latex_str: str) -> Any:
        return fast_parser(super().create_parser(latex_str))


# ---------------------------------------------------------------------------------------------
# Placeholders: constructs the grammar cannot read, parsed piecewise.

_INDICATOR_HEAD = re.compile(
    r"(?:\\(?:mathbb|mathbf|mathds|mathbbm|boldsymbol|bm|textbf|text|mathrm|operatorname)\s*\{\s*(?:1|I)\s*\}"
    r"|\\(?:mathbb|mathds|mathbbm)\s*(?:1|I)|(?<![A-Za-z0-9_\\{}^.])1|(?<![A-Za-z\\{])I)"
    r"\s*(?=\\\{|\[|\(|_\s*\{)")
_RELATION = re.compile(r"(?:[<>]|\\(?:geq?|leq?|gt|lt|neq|ne|geqslant|leqslant)(?![A-Za-z])|(?<![<>!\\])=)")
_SUM_HEAD = re.compile(r"\\sum\s*(?:_\s*(\{(?:[^{}]|\{[^{}]*\})*\}|[A-Za-z]))?\s*(?:\^\s*(\{(?:[^{}]|\{[^{}]*\})*\}|\S))?")

class _Placeholders:
    def __init__(self) -> None:
        self.table: dict[str, Placeholder] = {}

    def add(self, item: Placeholder) -> str:
        key = str(len(self.table))
        self.table[key] = item
        return f" \\{PLACEHOLDER}_{{{key}}} "


_IF_OTHER = r"(?:falls|wenn|si|se|cuando|quand|если)(?=\s)|如果|当|若"
"""'If' in the languages writeups mix with English math (German, French, Spanish, Italian, Portuguese,
Russian, Chinese): ``\text{falls } w = o``."""
_OTHERWISE_OTHER = (r"sonst|andernfalls|sinon|autrement|sino|si\s+no|en\s+otro\s+caso|de\s+lo\s+contrario|altrimenti|"
                    r"senão|caso\s+contrário|иначе|в\s+противном\s+случае|否则|其他|其它|それ以外|그\s*외")
"""'Otherwise' in those languages (and Japanese and Korean): ``\text{sonst}``."""
_CONDITION_WORDS = re.compile(r"\{\s*[,;]?\s*((?:if|when|for|where|otherwise|else|and|o\.w\.|"
                              + _IF_OTHER + "|" + _OTHERWISE_OTHER + r")(?:\b|(?<=\W))[^{}]*)\}", re.I)


def _condition_text(text: str) -> str:
    text = _CONDITION_WORDS.sub(r" \1 ", text)
    text = re.sub(r"^\s*(?:if|when|for|where|" + _IF_OTHER + r")(?:\b|(?<=\W))", "", text.strip(), flags=re.I)
    return text.strip().strip(",;:").strip()


_OTHERWISE = re.compile(r"^\s*(?:otherwise|else|elsewhere|o\.?w\.?|other(?:wise)?\s*cases?|" + _OTHERWISE_OTHER
                        + r")(?:\b|(?<=\W)|$)", re.I)
_IF_WORDS = re.compile(r"\b(?:if|when|for|where|and)\b", re.I)


def _parse_condition(text: str, ph: _Placeholders) -> Any:
    text = _condition_text(text)
    if not text or _OTHERWISE.match(text):
        return None
    if re.search(r"\b(?:otherwise|else)\b", text, re.I):
        return None
    if not _RELATION.search(text):
        raise FormulaError(f"the condition {text!r} has no comparison (=, ≠, <, >, ≤, ≥)")
    return _convert(_substitute(text, ph), ph)


def _cases(text: str, ph: _Placeholders) -> str:
    while True:
        env = first_cases(text) if "\\begin" in text else None
        if env is None:
            return text
        branches = []
        for row in case_rows(text, env):
            if not row.strip():
                continue
            parts = row.split("&", 1) if "&" in row else _split_row_without_ampersand(row)
            expr_text = parts[0].strip().rstrip(",")
            cond_text = parts[1] if len(parts) > 1 else ""
            cond_text = re.sub(r"\\(?:text|mbox|textrm|mathrm)\s*\{([^{}]*)\}", r" \1 ", cond_text)
            expr = _convert(_substitute(normalise(expr_text), ph), ph)
            cond = _parse_condition(normalise(cond_text) if cond_text.strip() else "", ph)
            branches.append((expr, cond))
        if not branches:
            raise FormulaError("an empty cases environment")
        end = env.pos + env.len
        key = ph.add(Cases(tuple(branches), text[env.pos:end]))
        text = text[:env.pos] + key + text[end:]


def _split_row_without_ampersand(row: str) -> list[str]:
    """``a, \\text{if } w = o`` (no ``&``): split at ``\\text{if`` or at the last top-level comma."""
    m = re.search(r"\\(?:text|mbox|textrm|mathrm)\s*\{\s*(?:if|when|otherwise|else)", row)
    if m:
        return [row[:m.start()], row[m.start():]]
    commas = [i for i, ch, top in scan(row) if top and ch == ","]
    if commas:
        return [row[:commas[-1]], row[commas[-1] + 1:]]
    return [row]


def _indicators(text: str, ph: _Placeholders) -> str:
    """``\\mathbb{1}\\{c\\}``, ``1[c]``, ``\\mathbf{1}(c)``, ``\\mathbb{1}_{c}``, ``\\relustep(z)``, ``[c]``."""
    # ReLU'(z): 1 where z > 0.
    while True:
        m = re.search(r"\\relustep\s*", text)
        if not m:
            break
        j = m.end()
        if j >= len(text) or text[j] not in "({[":
            raise FormulaError("ReLU' must be followed by its argument in brackets, e.g. ReLU'(z_i)")
        end = closing(text, j)
        if end < 0:
            raise FormulaError("an unclosed bracket after ReLU'")
        inner = text[j + 1:end]
        arg = _convert(_substitute(inner, ph), ph)
        key = ph.add(Indicator(sympy.StrictGreaterThan(arg, 0, evaluate=False), f"ReLU'({inner})"))
        text = text[:m.start()] + key + text[end + 1:]
    while True:
        m = _INDICATOR_HEAD.search(text)
        if not m:
            break
        j = m.end()
        if text.startswith("\\{", j):
            end = closing(text, j)
            inner = text[j + 2:end] if end >= 0 else ""
            stop = end + 2
        elif text[j] == "_":
            k = text.index("{", j)
            end = closing(text, k)
            inner = text[k + 1:end] if end >= 0 else ""
            stop = end + 1
        else:
            end = closing(text, j)
            inner = text[j + 1:end] if end >= 0 else ""
            stop = end + 1
        if end < 0:
            raise FormulaError("an indicator whose bracket is never closed")
        if not _RELATION.search(inner):
            # 1(...) without a comparison is just a product with 1: leave it to the grammar.
            text = text[:m.start()] + "{1}" + text[m.end():]
            continue
        cond = _parse_condition(inner, ph)
        key = ph.add(Indicator(cond, text[m.start():stop]))
        text = text[:m.start()] + key + text[stop:]
    # Iverson brackets: [cond] with a comparison inside.
    i = 0
    while i < len(text):
        if text[i] == "[" and (i == 0 or text[i - 1] != "\\"):
            end = closing(text, i)
            if end > 0 and _RELATION.search(text[i + 1:end]) and not text[end + 1:end + 2] == "_":
                cond = _parse_condition(text[i + 1:end], ph)
                key = ph.add(Indicator(cond, text[i:end + 1]))
                text = text[:i] + key + text[end + 1:]
                i += len(key)
                continue
        i += 1
    return text


BARE_INDICES = "ijk"
"""Index letters read as a subscript when written right after a closing bracket without ``_``."""
_INDEXED = re.compile(r"[\)\]](?:\s*_\s*(\{[^{}]*\}|[A-Za-z0-9])|([" + BARE_INDICES + r"])(?![A-Za-z0-9_{]))")


def _indexed_groups(text: str, ph: _Placeholders) -> str:
    """``(xW + b_1)_i`` / ``[xW+b]_{i}`` / ``(xW + b_1)i`` -> a placeholder for the entry.

    An index letter written right after the bracket, without ``_`` (:data:`BARE_INDICES`), is its
    subscript: an answer never multiplies by an index."""
    while True:
        m = _INDEXED.search(text)
        if not m:
            return text
        start = opening(text, m.start())
        if start < 0:
            raise FormulaError("a closing bracket before a subscript has no opening bracket")
        inner = text[start + 1:m.start()]
        call = next((f for f in FUNCTIONS.values() if text[:start].rstrip().endswith(f)), None)
        if call is not None:         # softmax(l)_i: the entry of the call, not softmax times (l)_i
            start = text[:start].rstrip().rfind(call)
            inner = text[start:m.start() + 1]
        index = (m.group(1) or m.group(2)).strip("{} ").replace(",", "").replace(" ", "")
        tree = _convert(_substitute(inner, ph), ph)
        key = ph.add(IndexOf(tree, index, text[start:m.end()]))
        text = text[:start] + key + text[m.end():]


def _sums(text: str) -> str:
    """Every ``\\sum`` gets explicit limits ``_{w=1}^{N}``; the range is the question's."""
    def fix(m: re.Match[str]) -> str:
        sub = (m.group(1) or "").strip("{} ")
        var = re.match(r"\s*([A-Za-z])", sub)
        if not var:
            raise FormulaError("a sum without its index (write e.g. \\sum_{w} or \\sum_{k=1}^{3})")
        return f"\\sum_{{{var.group(1)}=1}}^{{N}} "
    return _SUM_HEAD.sub(fix, text)


def _substitute(text: str, ph: _Placeholders) -> str:
    text = _cases(text, ph)
    text = text.replace("&", " ")
    text = _indicators(text, ph)
    text = _indexed_groups(text, ph)
    text = _sums(text)
    return text


def _count_nodes(tree: Any) -> int:
    return sum(1 for _ in sympy.preorder_traversal(tree))


def _convert(text: str, ph: _Placeholders) -> Any:
    """Parse one piece of normalised LaTeX with the ordered converter."""
    if not text.strip():
        raise FormulaError("an empty expression")
    if re.search(r"\\odot|\\circ|\\otimes|\\oplus", text):
        raise FormulaError("element-wise products (⊙, ∘) are not read here; write the entry-wise "
                           "form of the answer instead (e.g. with indices)")
    try:
        with sympy.evaluate(False):
            try:
                tree = _FastConverter(config=_CONFIG).parse(text)
            except RecursionError:
                raise
            except Exception:   # parsed again with ANTLR's default: the same tree or the same message
                tree = _OrderedConverter(config=_CONFIG).parse(text)
    except RecursionError:
        raise FormulaError("the expression is nested too deeply to read") from None
    except FormulaError:
        raise
    except Exception as exc:  # the ANTLR grammar reports any syntax problem as Exception
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FormulaError(f"the LaTeX could not be parsed ({detail})") from None
    if isinstance(tree, (list, tuple)):
        raise FormulaError("several expressions where one was expected")
    if not isinstance(tree, sympy.Basic):
        raise FormulaError("the LaTeX is not an expression")
    if tree.has(sympy.FiniteSet):      # a braced group ({2n} of \mathbf{2n}) is a group, never a set
        with sympy.evaluate(False):
            tree = tree.replace(lambda e: isinstance(e, sympy.FiniteSet) and len(e.args) == 1, lambda e: e.args[0])
    return tree


def parse_formula(latex: str) -> Formula:
    """Parse one answer (already cut to the expression itself) into a :class:`Formula`.

    Parses are kept (:data:`PARSE_CACHE` of them): the same text is read again when
    rivals, evidence and the catalogue's shapes are compared, and ANTLR is the reader's cost."""
    return _parse_cached(latex)


PARSE_CACHE = 1024
"""Formulas whose parse is kept in one reader process (failures are not kept: they are cheap)."""


@functools.lru_cache(maxsize=PARSE_CACHE)
def _parse_cached(latex: str) -> Formula:
    return _parse(latex)


def clear_parse_cache() -> None:
    """Forget every kept parse of a writeup's formulas (tests that watch the parser at work, and
    the reader's benchmark between writeups)."""
    _parse_cached.cache_clear()
    clear_normalised()


@functools.cache
def parse_known(latex: str) -> Formula:
    """A formula the assignment itself writes (a known mistake of the catalogue), parsed once in a
    process and kept apart from the writeups' formulas."""
    return _parse(latex)


def _parse(latex: str) -> Formula:
    if len(latex) > MAX_FORMULA_CHARS:
        raise FormulaError(f"the formula is {len(latex)} characters long; at most {MAX_FORMULA_CHARS} "
                           "are read (give the final answer on its own)")
    text = normalise(latex)
    if not text or re.search(r"-\s*-\s*-|[_─]{3}", latex):      # "gamma = ---------": a bar drawn over three lines
        raise FormulaError("an empty formula" if not text else "a fraction bar drawn with dashes over three lines")
    if depth(text) > MAX_NESTING:
        raise FormulaError(f"the formula nests brackets more than {MAX_NESTING} deep")
    ph = _Placeholders()
    body = _substitute(text, ph)
    tree = _convert(body, ph)
    if _count_nodes(tree) > MAX_NODES:
        raise FormulaError(f"the formula has more than {MAX_NODES} parts; give the final answer on its own")
    return Formula(latex, text, tree, dict(ph.table))
