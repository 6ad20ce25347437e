"""A LaTeX writeup's own macros: collected from every uploaded .tex file, expanded with a budget.

Students write answers with the course template's shorthands (``\\bU``, ``\\by``, ``\\hat{\\by}``)
and with their own (``\\newcommand{\\byt}{\\hat{\\by}}`` in a main file). :func:`definitions`
reads ``\\newcommand``, ``\\renewcommand``, ``\\providecommand``, ``\\def``,
``\\DeclareMathOperator`` and xparse's ``\\NewDocumentCommand`` (``m``, ``o``, ``O{..}`` arguments)
from the text; :func:`expand` replaces uses by their bodies (arguments
``#1``..``#9`` taken as braced groups or single tokens). A backslash, ``b`` and one letter that no
definition covers is that letter in bold (the template's ``\\bu``, ``\\bv``, ``\\bW`` ...).

Expansion is bounded (:data:`MAX_EXPANSIONS`, :data:`MAX_GROWTH`): a recursive or exploding
definition raises :class:`MacroError`, and the caller reads that text without expansion, so it
costs only the writeup that holds it. Names the structure reader needs (``\\answer``, ``\\part``,
``\\input`` ...) are never expanded. Nothing is ever run through TeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.reading.braces import group as braced

MAX_EXPANSIONS = 20_000
"""Macro uses replaced in one text before giving up."""
MAX_GROWTH = 200_000
"""Characters an expansion may add to one text before giving up."""
MAX_DEFINITIONS = 500
"""Definitions read from one submission."""

PROTECTED = frozenset({
    "answer", "ans", "ifans", "solution", "part", "subpart", "subsubpart", "question", "titledquestion",
    "item", "begin", "end", "input", "include", "subfile", "section", "subsection", "textbf", "text",
    "mathbf", "boxed", "frac", "hat", "partial", "newcommand", "renewcommand", "def", "left", "right",
})
"""Commands never redefined here, whatever the document says (the reader depends on them)."""
_BOLD_EXCLUDED = frozenset("fm")      # \bf (font switch) and \bm (the bm package) are not vectors


class MacroError(ValueError):
    """A definition that recurses or grows without bound."""


@dataclass(frozen=True)
class Macro:
    name: str
    nargs: int
    body: str
    default: str | None = None     # the optional first argument's default ([opt] in \newcommand)


_NEWCOMMAND = re.compile(r"\\(?:re|provide)?newcommand\*?\s*(?:\{\s*\\([A-Za-z]+)\s*\}|\\([A-Za-z]+))\s*"
                         r"(?:\[\s*(\d)\s*\])?\s*(?:\[([^\]]*)\])?\s*(?=\{)")
_DEF = re.compile(r"\\(?:g|e|x)?def\s*\\([A-Za-z]+)\s*((?:#\d)*)\s*(?=\{)")
_OPERATOR = re.compile(r"\\DeclareMathOperator\*?\s*\{\s*\\([A-Za-z]+)\s*\}\s*(?=\{)")
_DOCUMENT_COMMAND = re.compile(r"\\(?:New|Renew|Provide|Declare)DocumentCommand\s*(?:\{\s*\\([A-Za-z]+)\s*\}|\\([A-Za-z]+))"
                               r"\s*(?=\{)")
_SPEC = re.compile(r"\s*(?:(o)|O\{([^{}]*)\})?((?:\s*[mr+]?m)*+)\s*")
"""An xparse argument specification; the repetition is possessive (``mm`` is one or two of its
steps: a spec that does not match otherwise was tried both ways at every ``m``)."""


def _document_command(text: str, m: re.Match, name: str) -> tuple[Macro | None, int] | None:
    """xparse's ``\\NewDocumentCommand{\\pd}{O{J} m}{...}``: an optional first argument (``o``, or ``O{default}``)
    then mandatory ones (``m``); another argument type (a star, a verbatim) is not expanded (None)."""
    spec = braced(text, m.end())
    if spec is None:
        return None
    body = braced(text, spec[1])
    if body is None:
        return None
    shape = _SPEC.fullmatch(spec[0])
    if shape is None:
        return None, body[1]
    optional = shape.group(1) is not None or shape.group(2) is not None
    nargs = shape.group(3).count("m") + int(optional)
    return Macro(name, nargs, body[0], (shape.group(2) or "") if optional else None), body[1]


def definitions(text: str) -> tuple[dict[str, Macro], str]:
    """The macros ``text`` defines, and ``text`` without their definitions."""
    found: dict[str, Macro] = {}
    out: list[str] = []
    pos = 0
    pattern = re.compile("|".join(f"(?:{p.pattern})" for p in (_NEWCOMMAND, _DEF, _OPERATOR, _DOCUMENT_COMMAND)))
    for m in pattern.finditer(text):
        if m.start() < pos:
            continue
        if m.group(8) or m.group(9):
            got = _document_command(text, m, m.group(8) or m.group(9))
            if got is not None:
                if got[0] is not None and got[0].name not in PROTECTED and len(found) < MAX_DEFINITIONS:
                    found[got[0].name] = got[0]
                out.append(text[pos:m.start()])
                pos = got[1]
            continue
        body = braced(text, m.end())
        if body is None:
            continue
        content, end = body
        name = m.group(1) or m.group(2) or m.group(5) or m.group(7)
        if m.group(5):
            macro = Macro(name, (m.group(6) or "").count("#"), content)
        elif m.group(7):
            macro = Macro(name, 0, f"\\operatorname{{{content}}}")
        else:
            macro = Macro(name, int(m.group(3) or 0), content, m.group(4))
        if name not in PROTECTED and len(found) < MAX_DEFINITIONS:
            found[name] = macro
        out.append(text[pos:m.start()])
        pos = end
    out.append(text[pos:])
    return found, "".join(out)


_USE = re.compile(r"\\([A-Za-z]+)")


def _argument(text: str, i: int) -> tuple[str, int]:
    """One macro argument at ``i``: a braced group, a control word, or one character."""
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text):
        return "", i
    if text[i] == "{":
        got = braced(text, i)
        if got is not None:
            return got
    if text[i] == "\\":
        m = _USE.match(text, i)
        if m:
            return m.group(0), m.end()
        return text[i:i + 2], i + 2
    return text[i], i + 1


def expand(text: str, macros: dict[str, Macro]) -> str:
    """``text`` with every defined macro (and every undefined ``\\bX``) replaced by its meaning."""
    budget = MAX_EXPANSIONS
    limit = len(text) + MAX_GROWTH
    i = 0
    while True:
        m = _USE.search(text, i)
        if m is None:
            return text
        name = m.group(1)
        macro = macros.get(name)
        if macro is None and len(name) == 2 and name[0] == "b" and name[1] not in _BOLD_EXCLUDED:
            macro = Macro(name, 0, f"\\mathbf{{{name[1]}}}")
        if macro is None or name in PROTECTED:
            i = m.end()
            continue
        budget -= 1
        if budget < 0:
            raise MacroError("too many macro expansions (a definition that calls itself?)")
        j = m.end()
        args: list[str] = []
        if macro.default is not None and macro.nargs:
            if j < len(text) and text[j] == "[":
                close = text.find("]", j)
                args.append(text[j + 1:close] if close > 0 else macro.default)
                j = close + 1 if close > 0 else j
            else:
                args.append(macro.default)
        while len(args) < macro.nargs:
            arg, j = _argument(text, j)
            args.append(arg)
        body = macro.body
        for k, arg in enumerate(args, start=1):
            body = body.replace(f"#{k}", arg)
        if macro.nargs == 0 and j < len(text) and text[j].isalpha() and not body.endswith("}"):
            body += " "     # \bU x: keep the space TeX swallowed after the control word
        text = text[:m.start()] + body + text[j:]
        if len(text) > limit:
            raise MacroError("macro expansion grew the text too much (a definition that calls itself?)")
        i = m.start()


def expand_safely(text: str, macros: dict[str, Macro]) -> tuple[str, str]:
    """``expand``, or ``text`` untouched and why when a definition recursed or exploded."""
    try:
        return expand(text, macros), ""
    except MacroError as exc:
        return text, str(exc)
