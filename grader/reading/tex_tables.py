"""LaTeX tables as rows of cells, read straight from pylatexenc's nodes (:mod:`grader.reading.tex_walk`).

A table environment's own nodes (:data:`TABLE_ENVS`: ``tabular``, ``tabularx``, ``longtable``,
tabularray's ``tblr``, nicematrix's ``NiceTabular``...; ``array`` in math), after its column
specification, are split into rows at each ``\\\\`` (or ``\\tabularnewline``) node and into cells at each ``&``
node: an ``&`` or a ``\\\\`` inside a group or a nested environment stays in its cell. A row break's
optional spacing (``\\\\[2pt]``) is part of the break; any other bracket the parser gave it as an
argument (``\\\\ [ROOT, I] & ...``) is the next row's text; a spanning cell (``\\multicolumn{1}{c}{Stack}``)
is its text. Rules (``\\hline``, ``\\toprule``,
``\\cline{2-3}``) and comments are not cells. A cell's text is its source with emphasis
(``\\textbf{...}``) unwrapped, line breaks as spaces and labels dropped; the cells of an ``array``
are math (``$...$``). Nothing is written as Markdown: the table reader
(:func:`a2.written.tables.table_rows`) takes these rows as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexSpecialsNode,
)

from grader.reading import tex_walk

TABLE_ENVS = frozenset({"tabular", "tabular*", "tabularx", "tabulary", "xltabular", "longtable", "supertabular",
                        "tblr", "longtblr", "talltblr", "NiceTabular", "NiceTabular*", "tabu", "longtabu", "array"})
"""Table environments: LaTeX's, tabularx, longtable, tabularray's ``tblr``, nicematrix's, tabu's; ``array`` in math."""
ROW_BREAKS = frozenset({"\\", "tabularnewline"})
SPANNING = frozenset({"multicolumn", "multirow"})
"""``\\multicolumn{2}{c}{text}``, ``\\multirow{2}{*}{text}``: the cell's text is the last of three groups."""
RULES = frozenset({"hline", "toprule", "midrule", "bottomrule", "cline", "cmidrule", "addlinespace"})
HEAD_FOOT = frozenset({"endfirsthead", "endhead", "endfoot", "endlastfoot"})
"""A ``longtable``'s markers: the rows before ``\\endfirsthead`` (else before ``\\endhead``) are its
head, read once; the repeated head and the foot rows (before ``\\endfoot``, ``\\endlastfoot``) are
not read again."""
EMPHASIS = frozenset({"textbf", "textit", "emph", "underline"})
BREAKS = frozenset({"newline", "linebreak", "par", "noindent", "medskip", "bigskip", "smallskip", "vspace",
                    "hspace", "clearpage", "newpage", "pagebreak", "maketitle", "centering"})
DROPPED = frozenset({"input", "include", "includegraphics", "usepackage", "documentclass", "title", "author",
                     "date", "label"})
_LENGTH = re.compile(r"\[\s*-?\d*\.?\d+\s*(?:pt|em|ex|mm|cm|in|bp|sp|mu|dd|pc)\s*\]")
"""A row break's spacing (``[2pt]``), never a bracketed list (``[ROOT]``)."""
_OPTIONS = re.compile(r"\s*(?:\[[^\]]*\]\s*)*")
"""Spaces and bracketed options between a spanning cell's groups (``\\multirow[t]{2}{*}{...}``)."""
MIN_MATH_ROWS = 3
"""A display that is only an ``array`` of this many rows (and as many cells in its first) is a table
typed in math mode (3(a) with cells in ``\\text{}``); a smaller one is a matrix or cases."""


@dataclass(frozen=True)
class LatexTable:
    """One table: where its environment starts and ends in the text, and its rows as (cells, the
    offset where the row starts)."""

    start: int
    end: int
    rows: tuple[tuple[tuple[str, ...], int], ...]


def _args(node) -> list:
    return [a for a in (node.nodeargd.argnlist if node.nodeargd is not None else []) if a is not None]


def _body(node: LatexEnvironmentNode) -> list:
    """A table's nodes after its column specification (a leading group when the parser has no
    argument spec for the environment)."""
    body = [n for n in node.nodelist if n is not None]
    if not _args(node):
        while body and (isinstance(body[0], LatexGroupNode) or
                        (isinstance(body[0], LatexCharsNode) and not body[0].chars.strip())):
            body.pop(0)
    return body


def _text(text: str, nodes) -> str:
    """A cell's text from its nodes (see the module's docstring)."""
    out: list[str] = []
    for node in nodes:
        if node is None or isinstance(node, LatexCommentNode):
            continue
        if isinstance(node, LatexCharsNode):
            out.append(node.chars)
        elif isinstance(node, LatexGroupNode):
            ends = node.delimiters or ("{", "}")
            out.append(ends[0] + _text(text, node.nodelist) + ends[1])
        elif isinstance(node, LatexMacroNode) and node.macroname in EMPHASIS and _args(node) \
                and isinstance(_args(node)[-1], LatexGroupNode):
            out.append(_text(text, _args(node)[-1].nodelist))
        elif isinstance(node, LatexMacroNode) and node.macroname in BREAKS:
            out.append(" ")
        elif isinstance(node, LatexMacroNode) and node.macroname in DROPPED:
            continue
        else:
            out.append(text[node.pos:node.pos + node.len])
    return "".join(out)


def rows(text: str, node: LatexEnvironmentNode) -> list[tuple[tuple[str, ...], int]]:
    """The rows of one table environment of ``text``: (cells, offset of the row), empty rows left out."""
    math = node.environmentname == "array"
    found: list[tuple[tuple[str, ...], int]] = []
    cells: list[list] = [[]]
    start: int | None = None
    skip_group = False
    spanning = 0              # groups of a \multicolumn still to come (the parser has no spec for it)

    def close() -> None:
        texts = [" ".join(_text(text, c).split()) for c in cells]
        if any(texts) or len(texts) > 1:
            found.append((tuple(f"${t}$" if math and t else t for t in texts), start or node.pos))

    body = _body(node)
    first_head = any(isinstance(n, LatexMacroNode) and n.macroname == "endfirsthead" for n in body)
    segment = 0               # where the rows since the last head or foot marker start in ``found``
    for n in body:
        if isinstance(n, LatexMacroNode) and n.macroname in HEAD_FOOT:
            if any(cells[0]) or len(cells) > 1:
                close()
            cells, start = [[]], None
            if not (n.macroname == "endfirsthead" or (n.macroname == "endhead" and not first_head)):
                del found[segment:]
            segment = len(found)
            continue
        if skip_group and isinstance(n, LatexGroupNode):     # \cline's {2-3} when the parser gave it no argument
            skip_group = False
            continue
        skip_group = False
        if spanning and isinstance(n, LatexGroupNode):
            spanning -= 1
            if spanning:
                continue
            n = LatexGroupNode(nodelist=n.nodelist, delimiters=("", ""), pos=n.pos, len=n.len, parsing_state=n.parsing_state)
        elif spanning and isinstance(n, LatexCharsNode) and _OPTIONS.fullmatch(n.chars):
            continue
        spanning = 0
        if isinstance(n, LatexMacroNode) and n.macroname in SPANNING and not _args(n):
            spanning = 3
            continue
        if isinstance(n, LatexSpecialsNode) and n.specials_chars == "&":
            cells.append([])
            continue
        if isinstance(n, LatexMacroNode) and n.macroname in ROW_BREAKS:
            close()
            cells, start = [[]], None
            args = _args(n)
            spacing = text[args[0].pos:args[0].pos + args[0].len] if args else ""
            if spacing and not _LENGTH.fullmatch(spacing):
                cells[0].append(args[0])                  # \\ [ROOT, I] & ...: the next row's text
                start = args[0].pos
            continue
        if isinstance(n, LatexMacroNode) and n.macroname in RULES:
            skip_group = not _args(n)
            continue
        if start is None and not (isinstance(n, LatexCharsNode) and not n.chars.strip()) \
                and not isinstance(n, LatexCommentNode):
            start = n.pos + (len(n.chars) - len(n.chars.lstrip()) if isinstance(n, LatexCharsNode) else 0)
        cells[-1].append(n)
    close()
    return [(c, s) for c, s in found if any(c) or len(c) > 1]


def tables(text: str) -> list[LatexTable]:
    """Every table environment of ``text`` outside math (groups and other environments entered), in order."""
    if "\\begin" not in text:
        return []
    out: list[LatexTable] = []

    def walk(nodes) -> None:
        for node in nodes:
            if isinstance(node, LatexEnvironmentNode):
                if node.environmentname in TABLE_ENVS:
                    out.append(LatexTable(node.pos, node.pos + node.len, tuple(rows(text, node))))
                else:
                    walk(node.nodelist)
            elif isinstance(node, LatexGroupNode):
                walk(node.nodelist)

    walk(tex_walk.fragment(text))
    return out


def math_array(latex: str) -> str | None:
    """The ``array`` environment's source when a display's whole content is one array of
    :data:`MIN_MATH_ROWS` rows or more, the first with as many cells (a table typed in math mode);
    None for any other display (a matrix, cases, a formula)."""
    if "array" not in latex:
        return None
    nodes = [n for n in tex_walk.fragment(latex) if not (isinstance(n, LatexCharsNode) and not n.chars.strip())]
    if len(nodes) != 1 or not isinstance(nodes[0], LatexEnvironmentNode) or nodes[0].environmentname != "array":
        return None
    found = rows(latex, nodes[0])
    if len(found) < MIN_MATH_ROWS or len(found[0][0]) < MIN_MATH_ROWS:
        return None
    return latex[nodes[0].pos:nodes[0].pos + nodes[0].len]
