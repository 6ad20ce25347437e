"""A LyX document (``.lyx``, LyX's own file, not its LaTeX export) as the Markdown the reader reads.

LyX writes its structure line by line: ``\\begin_layout Section*`` ... ``\\end_layout`` paragraphs (the
layout's name says what it is: a section heading, an enumerate item, a standard paragraph), insets
inside them (``\\begin_inset Formula $...$`` or a display ``\\[ ... \\]`` over lines, ``\\begin_inset
Tabular`` holding ``<lyxtabular>`` rows of ``<cell>`` s, each cell a ``\\begin_inset Text`` with its own
layouts, ``Newline``, ``ERT`` raw TeX, ``Note``), and character properties on lines of their own
(``\\series bold`` ... ``\\series default``, ``\\emph on``). Formulas are LaTeX already: they are passed
on as written (a display as ``$$ ... $$``); sections are headings (``Section`` ``#``, ``Subsection``
``##``, ``Subsubsection`` ``###``, ``Paragraph`` ``####``), enumerate and itemize layouts list items,
a tabular a pipe table, ``\\backslash`` a backslash. The header (``\\begin_header``) and what LyX does not
print (notes, graphics, labels) are not read.
"""

from __future__ import annotations

import re

_HEADINGS = {"Title": "#", "Part": "#", "Section": "#", "Subsection": "##", "Subsubsection": "###",
             "Paragraph": "####", "Subparagraph": "####"}
_ITEMS = {"Enumerate": "1. ", "Itemize": "- ", "Description": "- ", "List": "- "}
_HIDDEN = frozenset({"Note", "Graphics", "CommandInset", "Float", "Caption", "Index", "Marginal", "Preview"})
_PROPERTIES = ("\\emph", "\\shape", "\\family", "\\lang", "\\size", "\\bar", "\\color", "\\noun", "\\align",
               "\\labelwidthstring", "\\paragraph_spacing", "\\noindent", "\\begin_deeper", "\\end_deeper",
               "\\leftindent", "\\strikeout", "\\uuline", "\\uwave", "\\numeric", "\\status", "\\use_parbox",
               "\\start_of_appendix", "\\added_space", "\\top_extra", "\\bottom_extra")


def _formula(lines: list[str]) -> str:
    text = "\n".join(lines).strip()
    if text.startswith("\\[") and text.endswith("\\]"):
        return "\n\n$$" + text[2:-2].strip() + "$$\n\n"
    if text.startswith("\\begin{"):
        return "\n\n$$" + text + "$$\n\n"
    return text


def _table(rows: list[list[str]]) -> str:
    rows = [r for r in rows if r]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    lines = ["| " + " | ".join(c.replace("|", "\\|") for c in r + [""] * (width - len(r))) + " |" for r in rows]
    return "\n\n" + "\n".join(lines[:1] + ["|" + "---|" * width] + lines[1:]) + "\n\n"


def lyx_markdown(text: str) -> str:
    """``text`` (a ``.lyx`` file) as Markdown."""
    out: list[str] = []
    stack: list[list] = []          # [kind, parts or rows, name]: layout, formula, tabular, cell, inset
    lines = re.sub(r"(?<=\S)[ \t]*(\\begin_inset )", lambda m: m.group(0)[:-len(m.group(1))] + "\n" + m.group(1),
                   text).split("\n")      # an inset is on a line of its own (LyX writes it so; an edited file may not)
    k = next((j + 1 for j, line in enumerate(lines) if line.strip() == "\\begin_body"), 0)
    hidden = [0]                    # hidden frames on the stack (counted: a scan per piece was n^2 on unclosed insets)

    def emit(piece: str) -> None:
        holder = next((f for f in reversed(stack) if f[0] in ("layout", "cell")), None)
        if hidden[0]:
            return
        (holder[1] if holder else out).append(piece)

    for line in lines[k:]:
        top = stack[-1] if stack else None
        if top is not None and top[0] == "formula":
            if line.strip() == "\\end_inset":
                stack.pop()
                emit(_formula(top[1]))
            else:
                top[1].append(line)
            continue
        word = line.strip()
        if word.startswith("\\begin_inset Formula"):
            stack.append(["formula", [line.split("Formula", 1)[1]], ""])
        elif word.startswith("\\begin_inset Tabular"):
            stack.append(["tabular", [], ""])
        elif word.startswith("\\begin_inset Newline"):
            emit("  \n")
            stack.append(["inset", [], "Newline"])
        elif word.startswith("\\begin_inset"):
            name = (word.split() + ["", ""])[1]
            stack.append(["hidden" if name in _HIDDEN else "inset", [], name])
            hidden[0] += name in _HIDDEN
        elif word == "\\end_inset":
            if stack and stack[-1][0] != "layout":
                done = stack.pop()
                hidden[0] -= done[0] == "hidden"
                if done[0] == "tabular":
                    emit(_table(done[1]))
        elif word.startswith("<row"):
            if top is not None and top[0] == "tabular":
                top[1].append([])
        elif word.startswith("<cell"):
            stack.append(["cell", [], ""])
        elif word == "</cell>":
            if top is not None and top[0] == "cell":
                stack.pop()
                table = next((f for f in reversed(stack) if f[0] == "tabular"), None)
                if table is not None and table[1]:
                    table[1][-1].append(" ".join("".join(top[1]).split()))
        elif word.startswith(("<lyxtabular", "</lyxtabular", "<features", "<column", "</row")):
            continue
        elif word.startswith("\\begin_layout"):
            stack.append(["layout", [], word[len("\\begin_layout"):].strip()])
        elif word == "\\end_layout":
            if top is not None and top[0] == "layout":
                stack.pop()
                body = "".join(top[1]).strip()
                kind = top[2].rstrip("*")
                if kind in _HEADINGS and not any(f[0] == "cell" for f in stack):
                    emit(f"\n\n{_HEADINGS[kind]} {' '.join(body.split())}\n\n")
                elif stack and stack[-1][0] == "cell":
                    emit(body + " ")
                else:
                    emit(f"\n\n{_ITEMS.get(kind, '')}{body}\n\n")
        elif word.startswith("\\series"):
            emit("**" if word.endswith("bold") or word.endswith("default") else "")
        elif word == "\\backslash":
            emit("\\")
        elif word.startswith(_PROPERTIES) or word in ("\\end_body", "\\end_document"):
            continue
        elif stack:
            emit(line)
    text = "\n".join(part.rstrip(" ") for part in "".join(out).split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
