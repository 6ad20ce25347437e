"""Answers a student marks in the text of a LaTeX template instead of in its answer blocks.

A student who deletes the template's ``\\ifans{...}`` and writes ``\\textbf{Answer:} ...`` (or
``Answer:`` at the start of a line, ``\\textit{Solution.}``) after the prompt has marked an answer
as surely as a block does. Each such marker opens a block of its own: from the marker to the next
part, sub-part, question, list item or section at its level, to the next marker, or to the end of
the group or environment it stands in. The template reader (:mod:`a2.written.tex_exam`) then reads
these blocks as it reads ``\\ifans{}``, so the prompt around them is never taken for the answer.
What is a marker comes from the answer words of :mod:`grader.reading.answer_words`.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexCharsNode, LatexEnvironmentNode, LatexGroupNode, LatexMacroNode

from grader.reading import tex_walk
from grader.reading.answer_words import ANSWER, FINAL_ANSWER, SOLUTION, alternation

_WORDS = alternation(FINAL_ANSWER, ANSWER, SOLUTION)
_MARKER_TEXT = re.compile(r"^\s*" + _WORDS + r"s?\s*[:：.]\s*$", re.I)
"""The argument of a bold or italic marker (``\\textbf{Answer:}``, ``\\emph{Solution.}``)."""
_MARKER_LINE = re.compile(r"(?im)^[ \t]*" + _WORDS + r"s?[ \t]*[:：]")
"""A marker typed as text at the start of a line (``Answer: ...``)."""
_STYLES = frozenset({"textbf", "textit", "emph", "underline", "textsc", "bf", "it"})
BOUNDARIES = frozenset({"part", "subpart", "subsubpart", "question", "titledquestion", "item", "section",
                        "subsection", "subsubsection", "paragraph"})
"""Commands that end a marked answer: the next part, item or section."""


def _marker_end(text: str, node: object) -> int | None:
    """Where the answer after ``node`` starts when ``node`` is a marker, else None."""
    if isinstance(node, LatexMacroNode) and node.macroname in _STYLES and node.nodeargd is not None:
        args = [a for a in node.nodeargd.argnlist if a is not None]
        if args and _MARKER_TEXT.match(text[args[-1].pos:args[-1].pos + args[-1].len].strip("{}")):
            return node.pos + node.len
    if isinstance(node, LatexGroupNode):        # {\bf Answer:}
        inner = text[node.pos + 1:node.pos + node.len - 1]
        if _MARKER_TEXT.match(re.sub(r"\\(?:bf|bfseries|it|itshape|em)(?![A-Za-z])", "", inner)):
            return node.pos + node.len
    if isinstance(node, LatexCharsNode):
        m = _MARKER_LINE.search(node.chars)
        if m and (m.start() > 0 or node.pos == 0 or text[node.pos - 1] == "\n"):
            return node.pos + m.end()
    return None


def marked_blocks(text: str, blocks: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """(start, end, content) of every marked answer of ``text`` outside the answer ``blocks`` it has."""
    out: list[tuple[int, int, str]] = []

    def inside_block(pos: int) -> bool:
        return any(start <= pos < end for start, end, _ in blocks)

    def walk(items: list | tuple, end_of_list: int) -> None:
        items = [n for n in items if n is not None]
        for k, node in enumerate(items):
            if inside_block(node.pos):
                continue
            start = _marker_end(text, node)
            if start is not None:
                stop = next((n.pos for n in items[k + 1:] if (isinstance(n, LatexMacroNode) and n.macroname in BOUNDARIES)
                             or _marker_end(text, n) is not None or inside_block(n.pos)), end_of_list)
                if text[start:stop].strip():
                    out.append((node.pos, stop, text[start:stop]))
            elif isinstance(node, LatexEnvironmentNode):
                walk(node.nodelist, tex_walk.end_tag(text, node))
            elif isinstance(node, LatexGroupNode):
                walk(node.nodelist, node.pos + node.len - 1)

    walk(tex_walk.nodes(text), len(text))
    return out
