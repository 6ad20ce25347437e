"""Normalising one formula's LaTeX into the grammar that latex2sympy2_extended reads, before anything
is parsed (:mod:`grader.reading.mathparse` parses).

The formula is read by pylatexenc (math mode, tolerant), and its nodes are written out again as a
list of tokens, each macro looked up in the declared tables of :mod:`grader.reading.latex_tables`:
spacing and sizing macros go (``\\left(`` is ``(``), styles keep their argument as a group
(``\\mathbf{W}`` is ``{W}``), synonyms are replaced (``\\dfrac``, ``\\ge``), frames and colours go,
``\\\\[4pt]`` is a row break (never a product 4·p·t), ``\\{`` before a ``matrix`` is ``cases``.
The rewrites that look at neighbouring tokens (:mod:`grader.reading.latex_tokens`) follow: transposes,
hats, this assignment's step functions, ``p_{drop}`` and index pairs, braced single letters.
Unicode and ASCII spellings are turned into LaTeX first (:func:`grader.reading.notation.to_latex`).
A brace or an environment left open is refused (pylatexenc would close it). The ``cases``
environments of a normalised formula and their rows are found here too, for :mod:`mathparse`.
Nothing here evaluates student text.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
    LatexSpecialsNode,
    LatexWalkerError,
    get_default_latex_context_db,
)
from pylatexenc.macrospec import MacroSpec

from grader.reading import latex_tables as tables
from grader.reading.latex_fast import plain_nodes
from grader.reading.latex_tables import STEP_FUNCTIONS, SYNONYMS
from grader.reading.latex_tokens import Tok, rewrite, text_of
from grader.reading.notation import to_latex
from grader.reading.tex_walker import Walker, specials_finder

__all__ = ["FormulaError", "normalise", "brace_cases", "formula_nodes", "first_cases", "case_rows", "STEP_FUNCTIONS",
           "SYNONYMS", "clear_cache"]


class FormulaError(ValueError):
    """A formula that cannot be read; the message says what and why, for the student."""


@functools.cache
def _context() -> Any:
    db = get_default_latex_context_db()
    db.add_context_category("formula-normaliser", prepend=True,
                            macros=[MacroSpec(name, spec) for name, spec in tables.ARGUMENTS.items()])
    db.test_for_specials = specials_finder(db)
    return db


def formula_nodes(text: str) -> list:
    """pylatexenc's nodes of one formula, read in math mode (tolerant: a stray brace does not stop it)."""
    walker = Walker(text, latex_context=_context(), tolerant_parsing=True)
    try:
        found, _, _ = walker.get_latex_nodes(pos=0, parsing_state=walker.make_parsing_state(in_math_mode=True))
    except (LatexWalkerError, RecursionError, IndexError, ValueError) as exc:
        raise FormulaError(f"the LaTeX could not be read ({type(exc).__name__})") from None
    return [n for n in found if n is not None]


def _balanced(text: str) -> bool:
    """Every ``{`` of ``text`` is closed and every ``}`` opened (``\\{`` and ``\\}`` are characters)."""
    level = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        level += (ch == "{") - (ch == "}")
        if level < 0:
            return False
        i += 1
    return level == 0


def _length_end(s: str, i: int) -> int:
    """Where a length (``-1.5mu``, ``4pt``) starting at ``s[i]`` (after spaces) ends, or -1."""
    while i < len(s) and s[i].isspace():
        i += 1
    i += s.startswith("-", i)
    digits = i
    while i < len(s) and (s[i].isdigit() or s[i] == "."):
        i += 1
    if i == digits:
        return -1
    while i < len(s) and s[i].isspace():
        i += 1
    unit = next((u for u in tables.LENGTH_UNITS if s.startswith(u, i)), None)
    if unit is None or s[i + len(unit):i + len(unit) + 1].isalpha():
        return -1
    return i + len(unit)


class _Writer:
    """Writes nodes out as tokens, looking each macro up in the tables."""

    def __init__(self) -> None:
        self.out: list[Tok] = []
        self.after_sizing = False      # the next character is a sizing macro's delimiter
        self.after_length = False      # the next characters are a spacing macro's length

    def nodes(self, nodes: list) -> None:
        for node in nodes:
            if node is not None:
                self.node(node)

    def chars(self, s: str) -> None:
        i = 0
        if self.after_length:
            self.after_length = False
            end = _length_end(s, 0)
            i = max(end, 0)
        for ch in s[i:]:
            if self.after_sizing and not ch.isspace():
                self.after_sizing = False
                if ch == tables.NO_DELIMITER:
                    continue
            self.out.append(("s", ch) if ch.isspace() else ("c", ch))

    def group(self, node: Any, kind: str = "") -> None:
        if node is None:
            return
        if not isinstance(node, LatexGroupNode):
            self.node(node)
            return
        opening, closing = node.delimiters
        if opening != "{":
            self.out.append(("c", opening))
            self.nodes(node.nodelist)
            self.out.append(("c", closing))
            return
        self.out.append((kind + "{", "{"))
        self.nodes(node.nodelist)
        self.out.append((kind + "}", "}"))

    def node(self, node: Any) -> None:
        self.after_sizing = self.after_sizing and not isinstance(node, LatexMacroNode)
        if isinstance(node, LatexCharsNode):
            self.chars(node.chars)
        elif isinstance(node, LatexGroupNode):
            self.after_length = False
            self.group(node)
        elif isinstance(node, LatexMacroNode):
            self.after_length = False
            self.macro(node)
        elif isinstance(node, LatexEnvironmentNode):
            self.environment(node)
        elif isinstance(node, LatexSpecialsNode):
            self.chars(node.specials_chars)
        elif isinstance(node, LatexMathNode):
            self.out.append(("s", " "))
            self.nodes(node.nodelist)
            self.out.append(("s", " "))
        elif not isinstance(node, LatexCommentNode):
            self.chars(node.latex_verbatim())

    def macro(self, node: LatexMacroNode) -> None:
        name = node.macroname
        args = node.nodeargd.argnlist if node.nodeargd is not None else []
        post = [("s", " ")] if node.macro_post_space else []
        if name in SYNONYMS:
            target = SYNONYMS[name]
            if not target.startswith("\\"):
                self.out.append(("c", target))
                self.out.extend(post)
                return
            name = target[1:]
        if name in tables.DROPPED or name in tables.SWITCHES:
            self.out.append(("s", " "))
        elif name in tables.LENGTH_DROPPED:
            self.out.append(("s", " "))
            self.after_length = True
        elif name in tables.SIZING:
            self.after_sizing = True
        elif name in tables.STYLES:
            self.style(args)
        elif name in tables.WRAPPERS:
            index = tables.WRAPPERS[name]
            self.group(args[index] if index < len(args) else None)
        elif name in tables.HATS:
            self.hat(args)
        elif name == "\\":
            self.out.append(("m", "\\"))
            space = args[1] if len(args) > 1 else None
            if space is not None:
                inner = space.latex_verbatim()[1:-1]
                if _length_end(inner, 0) == len(inner.rstrip()) and inner.strip():
                    self.out.append(("s", " "))
                else:
                    self.group(space)
        else:
            self.out.append(("m", name))
            self.out.extend(post)
            for arg in args:
                self.group(arg, "a")

    def style(self, args: list) -> None:
        arg = next((a for a in args if a is not None), None)
        if isinstance(arg, LatexGroupNode) and arg.delimiters[0] == "{":
            self.group(arg)
        elif arg is not None:
            self.node(arg)

    def hat(self, args: list) -> None:
        start = len(self.out)
        self.style(args)
        inner = [t for t in self.out[start:] if t[0] != "s"]
        while len(inner) >= 2 and inner[0][0] == "{" and inner[-1][0] == "}":
            inner = inner[1:-1]
        del self.out[start:]
        if len(inner) == 1 and inner[0][0] == "c" and inner[0][1].isalpha():
            self.out.extend([("m", "hat"), ("a{", "{"), inner[0], ("a}", "}")])
        elif (len(inner) >= 3 and inner[0][0] == "c" and inner[0][1].isalpha() and inner[1] == ("c", "_")
              and (len(inner) == 3 and inner[2][0] == "c" or inner[2][0] == "{" and inner[-1][0] == "}")):
            sub = inner[2:] if len(inner) == 3 else [("a{", "{"), *inner[3:-1], ("a}", "}")]
            self.out.extend([("m", "hat"), ("a{", "{"), inner[0], ("a}", "}"), ("c", "_"), *sub])
        else:
            self.out.extend([("m", "hat"), ("a{", "{"), *inner, ("a}", "}")])

    def environment(self, node: LatexEnvironmentNode) -> None:
        name = node.environmentname
        if not "".join(node.latex_verbatim()[-len(name) - 12:].split()).endswith("\\end{" + name + "}"):
            raise FormulaError(f"a \\begin{{{name}}} without its \\end{{{name}}}")   # pylatexenc would close it
        before = [i for i, t in enumerate(self.out) if t[0] != "s"]
        if name in tables.CASES_ENVIRONMENTS and before and self.out[before[-1]] == ("m", "{"):
            del self.out[before[-1]]
            self.out.append(("r", "\\begin{cases}"))
            self.nodes(node.nodelist)
            self.out.append(("r", "\\end{cases}"))
            return
        self.out.append(("r", "\\begin{" + name + "}"))
        for arg in node.nodeargd.argnlist if node.nodeargd is not None else []:
            if arg is not None:
                self.out.append(("r", arg.latex_verbatim()))
        self.nodes(node.nodelist)
        self.out.append(("r", "\\end{" + name + "}"))


NORMALISE_CACHE = 2048
"""Normalised formulas kept in one reader process (cleared with the parse cache)."""


@functools.lru_cache(maxsize=NORMALISE_CACHE)
def normalise(latex: str) -> str:
    """Rewrite one formula into the grammar latex2sympy2_extended reads (no placeholders yet)."""
    text = to_latex(latex).replace("$", " ").replace("%", "\\%")
    if not _balanced(text):     # pylatexenc would close or drop a brace; the student wrote it
        raise FormulaError("its braces { } do not pair up")
    writer = _Writer()
    if "\\" in text or "{" in text or "}" in text:
        writer.nodes(plain_nodes(text, _context()) or formula_nodes(text))
    else:                       # no macro, no group: pylatexenc would give one node of characters
        writer.chars(text)
    text = " ".join(text_of(rewrite(writer.out)).split())
    return text.rstrip(tables.TRAILING)


def clear_cache() -> None:
    """Forget the normalised formulas (with :func:`grader.reading.mathparse.clear_parse_cache`)."""
    normalise.cache_clear()


CASES_ENVIRONMENTS = ("cases", "dcases", "rcases")
"""Environments read as a function defined by cases (found among the formula's pylatexenc nodes)."""


def first_cases(text: str) -> Any:
    """The first ``cases`` environment of ``text`` in reading order, or None."""
    todo = list(reversed(formula_nodes(text)))
    while todo:
        node = todo.pop()
        if isinstance(node, LatexEnvironmentNode) and node.environmentname in CASES_ENVIRONMENTS:
            return node
        argd = getattr(node, "nodeargd", None)
        inside = [*(argd.argnlist if argd is not None else []), *(getattr(node, "nodelist", None) or [])]
        todo.extend(reversed([n for n in inside if n is not None]))
    return None


def case_rows(text: str, env: LatexEnvironmentNode) -> list[str]:
    """The environment's rows as written, cut at its own row breaks ``\\\\``."""
    end = env.pos + env.len
    closing = text.rfind("\\end", env.pos, end)
    if closing < 0 or "".join(text[closing:end].split()) != "\\end{" + env.environmentname + "}":
        raise FormulaError("a \\begin{cases} without its \\end{cases}")
    breaks = [n.pos for n in env.nodelist if isinstance(n, LatexMacroNode) and n.macroname == "\\"]
    first = env.nodelist[0].pos if env.nodelist else closing
    return [text[a:b] for a, b in zip([first, *(b + 2 for b in breaks)], [*breaks, closing])]


_BRACE_MATRIX = re.compile(r"\\\{\s*\\begin\s*\{(matrix|array|aligned)\}(?:\s*\{[^{}]*\})?")


def brace_cases(text: str) -> str:
    """``\\left\\{ \\begin{matrix} a & \\text{if } c \\\\ ... \\end{matrix} \\right.`` (Word's and
    MathJax's way to write cases; its ``\\left``/``\\right.`` already dropped) -> ``cases``.
    For a whole answer's text (:mod:`grader.reading.answers`); a formula's are read from its nodes."""
    m = _BRACE_MATRIX.search(text)
    while m:
        end = re.compile(r"\\end\s*\{" + m.group(1) + r"\}").search(text, m.end())
        if end is None:
            break
        text = text[:m.start()] + r"\begin{cases}" + text[m.end():end.start()] + r"\end{cases}" + text[end.end():]
        m = _BRACE_MATRIX.search(text)
    return text
