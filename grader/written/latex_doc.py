"""A LaTeX writeup (``*.tex``) -> the Markdown the section reader understands.

The course's LaTeX template numbers questions with nested ``enumerate`` lists (``(a)``, ``(b)``
at the first level, ``i.``, ``ii.`` inside), under ``\\section`` headings, and students write
their answers below each ``\\item``. This module turns that structure into Markdown headings
(``## (b)``, ``### (ii)``), display math into ``$$...$$``, ``tabular`` rows into Markdown table
rows, ``\\textbf{Answer:}`` into ``**Answer:**``; everything else is kept as text. It never
follows ``\\input``/``\\include`` (a writeup is read from the uploaded files only) and never runs
TeX.
"""

from __future__ import annotations

import re

from grader.written.braces import group

_COMMENT = re.compile(r"(?<!\\)%.*$", re.M)
_SECTION = re.compile(r"\\(section|subsection|subsubsection|paragraph|subparagraph)\*?\s*\{")
_LEVEL = {"section": "#", "subsection": "##", "subsubsection": "###", "paragraph": "####",
          "subparagraph": "#####"}
_MATH_ENVS = ("equation", "equation*", "align", "align*", "gather", "gather*", "multline",
              "multline*", "eqnarray", "eqnarray*", "displaymath", "math")
_WRAPPERS = ("answer", "solution", "ans", "response", "proof", "center", "flushleft", "minipage",
             "quote", "mdframed", "tcolorbox", "framed")
_LIST_ENVS = ("enumerate", "parts", "subparts", "questions", "itemize", "description")
_ITEM_WORDS = ("item", "part", "subpart", "question", "subquestion")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
ROMANS = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")


def _braced(text: str, start: int) -> tuple[str, int]:
    """The content of the ``{...}`` opening at ``start`` and the index after it (to the end if unclosed)."""
    return group(text, start) or (text[start + 1:], len(text))


def _body(text: str) -> str:
    m = re.search(r"\\begin\s*\{document\}(.*?)(?:\\end\s*\{document\}|$)", text, re.S)
    return m.group(1) if m else text


ROW_BREAK = re.compile(r"\\\\(?:\s*\[\s*-?\d*\.?\d+\s*(?:pt|em|ex|mm|cm|in|bp|sp|mu|dd|pc)\s*\])?")
"""A row break ``\\\\``, with its optional spacing ``[2pt]`` (a length, never ``[ROOT]``)."""


def tables_to_markdown(text: str) -> str:
    """``tabular`` environments -> Markdown table rows (``| a | b |``)."""
    def convert(m: re.Match[str]) -> str:
        body = m.group(2)
        body = re.sub(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^}]*\})", "", body)
        rows = [r.strip() for r in ROW_BREAK.split(body)]
        lines = []
        for k, row in enumerate(r for r in rows if r):
            cells = [c.strip() for c in re.split(r"(?<!\\)&", row)]
            lines.append("| " + " | ".join(cells) + " |")
            if k == 0:
                lines.append("|" + "---|" * len(cells))
        return "\n\n" + "\n".join(lines) + "\n\n"
    return re.sub(r"\\begin\s*\{(tabular\*?|tabularx|longtable|array)\}(?:\s*\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})+"
                  r"(.*?)\\end\s*\{\1\}", convert, text, flags=re.S)


def _display_math(text: str) -> str:
    envs = "|".join(re.escape(e) for e in _MATH_ENVS)
    text = re.sub(r"\\begin\s*\{(" + envs + r")\}(.*?)\\end\s*\{\1\}",
                  lambda m: "\n$$" + " ".join(m.group(2).split()) + "$$\n", text, flags=re.S)
    text = re.sub(r"\\\[(.*?)\\\]", lambda m: "\n$$" + " ".join(m.group(1).split()) + "$$\n", text, flags=re.S)
    text = re.sub(r"\$\$(.*?)\$\$", lambda m: "\n$$" + " ".join(m.group(1).split()) + "$$\n", text, flags=re.S)
    return text


def _sections(text: str) -> str:
    out = []
    pos = 0
    for m in _SECTION.finditer(text):
        if m.start() < pos:
            continue
        title, end = _braced(text, m.end() - 1)
        out.append(text[pos:m.start()])
        out.append(f"\n\n{_LEVEL[m.group(1)]} {' '.join(title.split())}\n\n")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _lists(text: str) -> str:
    """Number ``\\item``s the way the template's nested lists print them, as headings."""
    token = re.compile(r"\\begin\s*\{(" + "|".join(_LIST_ENVS) + r")\}(\s*\[[^\]]*\])?"
                       r"|\\end\s*\{(" + "|".join(_LIST_ENVS) + r")\}"
                       r"|\\(" + "|".join(_ITEM_WORDS) + r")(?![A-Za-z])\s*(\[[^\]]*\])?")
    out = []
    pos = 0
    stack: list[list] = []          # [env, counter, numbered?]
    for m in token.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
        if m.group(1):
            numbered = m.group(1) != "itemize" and m.group(1) != "description"
            stack.append([m.group(1), 0, numbered])
            continue
        if m.group(3):
            if stack:
                stack.pop()
            out.append("\n\n")
            continue
        explicit = (m.group(5) or "").strip("[] ")
        if not stack:
            stack.append(["enumerate", 0, True])
        frame = stack[-1]
        frame[1] += 1
        depth = sum(1 for f in stack if f[2])
        if explicit:
            label = explicit
        elif not frame[2]:
            out.append("\n- ")
            continue
        elif depth == 1:
            label = f"({LETTERS[(frame[1] - 1) % 26]})"
        elif depth == 2:
            label = f"({ROMANS[(frame[1] - 1) % len(ROMANS)]})"
        else:
            out.append(f"\n{frame[1]}. ")
            continue
        hashes = "#" * min(6, 2 + depth)
        out.append(f"\n\n{hashes} {label}\n\n")
    out.append(text[pos:])
    return "".join(out)


def _inline(text: str) -> str:
    text = re.sub(r"\\textbf\s*\{\s*((?:Final\s+)?Answer\s*:?)\s*\}", r"**\1**", text, flags=re.I)
    text = re.sub(r"\\(?:textbf|textit|emph|underline)\s*\{([^{}]*)\}", r"**\1**", text)
    text = re.sub(r"\\(?:newline|linebreak|par|noindent|medskip|bigskip|smallskip|vspace\*?\{[^}]*\}"
                  r"|hspace\*?\{[^}]*\}|clearpage|newpage|pagebreak|maketitle|centering)(?![A-Za-z])", "\n", text)
    text = re.sub(r"\\(?:input|include|includegraphics|usepackage|documentclass|title|author|date)"
                  r"(?:\[[^\]]*\])?\s*\{[^{}]*\}", "", text)
    envs = "|".join(re.escape(e) for e in _WRAPPERS)
    text = re.sub(r"\\(?:begin|end)\s*\{(?:" + envs + r")\}(\s*\[[^\]]*\])?", "\n\n", text)
    text = re.sub(r"\\(?:ifans|answer|solution|ans)\s*\{", "{", text)
    return text


def _plain_lists(text: str) -> str:
    """Lists inside an answer: ``enumerate`` items as ``i.``, ``ii.`` lines, others as ``-`` lines."""
    token = re.compile(r"\\begin\s*\{(enumerate|itemize|description)\}(\s*\[[^\]]*\])?"
                       r"|\\end\s*\{(?:enumerate|itemize|description)\}|\\item(?![A-Za-z])\s*(\[[^\]]*\])?")
    out = []
    pos = 0
    stack: list[tuple[str, list[int]]] = []     # (environment, [items so far])
    for m in token.finditer(text):
        out.append(text[pos:m.start()])
        pos = m.end()
        if m.group(1):
            stack.append((m.group(1), [0]))
        elif m.group(0).startswith("\\end"):
            if stack:
                stack.pop()
            out.append("\n\n")
        else:
            env, count = stack[-1] if stack else ("itemize", [0])
            count[0] += 1
            explicit = (m.group(3) or "").strip("[] ")
            mark = explicit or (f"{ROMANS[(count[0] - 1) % len(ROMANS)]}." if env == "enumerate" else "-")
            out.append(f"\n\n{mark} ")
    out.append(text[pos:])
    return "".join(out)


def body_to_markdown(text: str) -> str:
    """The Markdown of one answer's LaTeX (no headings: lists become plain numbered lines)."""
    text = _COMMENT.sub("", text)
    text = tables_to_markdown(text)
    text = _display_math(text)
    text = _plain_lists(text)
    text = _inline(text)
    text = re.sub(r"\n[ \t]+", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def tex_to_markdown(text: str) -> str:
    """Markdown of a LaTeX writeup, for :mod:`grader.written.sections`."""
    text = _COMMENT.sub("", text)
    text = _body(text)
    text = tables_to_markdown(text)
    text = _display_math(text)
    text = _sections(text)
    text = _lists(text)
    text = _inline(text)
    text = re.sub(r"\n[ \t]+", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
