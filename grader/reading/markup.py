"""Written files in other markups, as the Markdown the reader reads: a Jupyter notebook (.ipynb),
Emacs org-mode (.org) and reStructuredText (.rst); in any Markdown, LaTeX's sectioning commands on
lines of their own (Mathpix's Markdown of a scanned page writes ``\\section*{3. ...}`` and
``\\title{...}``; students paste them from Overleaf) as the headings they print.

Each converter reads the markup's own structure (the notebook's cells from its JSON; org's
``*`` headings, ``#+`` keywords, tables and description lists; rst's underlined titles,
``.. math::`` blocks, ``:math:`` roles and simple tables) and writes the same text with Markdown's
spelling of it, line for line where it can (org, rst), so that places keep their line numbers.
Math is passed on as written: ``\\( \\)``, ``\\[ \\]`` and LaTeX environments are read as in
Markdown.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from grader.reading.blocks import markdown_tokens
from grader.reading.lyx import lyx_markdown
from grader.reading.mathml import mathml_as_tex
from grader.reading.myst import plain_markdown
from grader.reading.wikitext import is_wikitext, wikitext_markdown

MARKUPS = (".ipynb", ".org", ".rst", ".html", ".htm", ".lyx")
"""File suffixes read through this module."""


def as_markdown(name: str, text: str) -> str:
    """``text`` of the file ``name`` as Markdown (a file of another kind is returned as it is)."""
    low = name.lower()
    if low.endswith(".ipynb"):
        return plain_markdown(notebook(text))
    if low.endswith(".org"):
        return org(text)
    if low.endswith(".rst"):
        return rst(text)
    if low.endswith((".html", ".htm")):
        return html(text)
    if low.endswith(".lyx"):
        return lyx_markdown(text)
    if is_wikitext(text):
        return wikitext_markdown(text)
    text = plain_markdown(text)         # MyST's directives and roles (a Jupyter Book)
    return latex_headings(text) if "\\" in text else text


_LATEX_HEADING = re.compile(r"^\s*\\(title|section|subsection|subsubsection|paragraph)\*?\{")
_HEADING_LEVEL = {"title": 1, "section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4}


def latex_headings(text: str) -> str:
    """A line that is only a LaTeX sectioning command (``\\section*{1. word2vec}``, or ``\\title{`` with its
    title on the next lines and ``}`` alone, as Mathpix writes it) as the Markdown heading it prints,
    in the same lines (the lines a title spans are left blank); math and other text are not touched."""
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        m = _LATEX_HEADING.match(lines[k])
        if m is None:
            k += 1
            continue
        end, depth, title = k, 0, []
        for end in range(k, min(k + 6, len(lines))):
            chunk = lines[end][m.end():] if end == k else lines[end]
            depth += chunk.count("{") - chunk.count("}") + (1 if end == k else 0)
            title.append(chunk)
            if depth <= 0:
                break
        words = " ".join(" ".join(title).strip().rsplit("}", 1)[0].split())
        if depth > 0 or not words or lines[end].strip()[-1:] != "}":
            k += 1
            continue
        lines[k:end + 1] = ["#" * _HEADING_LEVEL[m.group(1)] + " " + words] + [""] * (end - k)
        k = end + 1
    return "\n".join(lines)


TEXT_CELLS = frozenset({"markdown", "raw"})
"""Notebook cells that hold the student's text (a raw cell often holds LaTeX: ``\\[ ... \\]``)."""


def notebook(text: str) -> str:
    """A notebook's Markdown and raw cells, in order (code cells and outputs are not answers); a
    notebook whose JSON cannot be read gives no text."""
    try:
        doc = json.loads(text)
    except ValueError:
        return ""
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return ""
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") in TEXT_CELLS:
            source = cell.get("source", "")
            out.append("".join(source) if isinstance(source, list) else str(source))
    return "\n\n".join(s.strip("\n") for s in out)




def _stars(line: str) -> int:
    """An org heading's level: its leading stars, followed by a space (0: not a heading)."""
    stars = len(line) - len(line.lstrip("*"))
    return stars if stars and line[stars:stars + 1] in (" ", "\t") else 0


def _made_of(line: str, chars: str, *, ends: str = "") -> bool:
    """Whether ``line`` (stripped) is only ``chars`` (at least three), starting and ending with ``ends`` when given."""
    text = line.strip()
    return len(text) >= 3 and set(text) <= set(chars) and (not ends or text[0] == ends == text[-1])
_ORG_DESCRIPTION = re.compile(r"^(\s*[-+]\s+.*?)\s+::\s+")


def org(text: str) -> str:
    """Org-mode: ``*`` headings as ``#``, ``#+`` keyword lines left blank, a table's ``|---+---|``
    rule as Markdown's, ``- term :: text`` as ``- term: text``."""
    out = []
    for line in text.split("\n"):
        if line.lstrip().startswith("#+"):
            out.append("")
        elif _stars(line):
            out.append("#" * min(_stars(line), 6) + " " + line[_stars(line):].strip())
        elif _made_of(line, "|-+", ends="|"):
            out.append("|" + " --- |" * max(1, line.count("|") + line.count("+") - 1))
        else:
            out.append(_ORG_DESCRIPTION.sub(r"\1: ", line, count=1))
    return "\n".join(out)


CONTAINERS = frozenset({"admonition", "note", "tip", "hint", "important", "attention", "caution", "warning",
                        "danger", "error", "seealso", "topic", "sidebar", "container", "rubric", "epigraph"})
"""rst directives whose indented body is ordinary text (an answer in ``.. admonition:: Answer``)."""

ADORNMENTS = "=-~^\"'`#*+.:_"
"""Characters an rst title is underlined (or overlined) with."""
_RST_ROLE = re.compile(r":math:`([^`]*)`")
_RST_LITERAL = re.compile(r"``([^`]*)``")


def _adornment(line: str) -> str:
    """The character a line of rst adornment repeats ("" when the line is not one)."""
    text = line.rstrip()
    return text[0] if len(text) >= 3 and text[0] in ADORNMENTS and set(text) == {text[0]} else ""


def _columns_border(line: str) -> bool:
    """A simple table's border: runs of ``=`` separated by spaces (``=====  ===``)."""
    return _made_of(line, "= ") and " " in line.strip() and line.strip()[0] == "="


def _runs(line: str) -> list[tuple[int, int]]:
    """(start, end) of each run of ``=`` in a simple table's border."""
    runs, k = [], 0
    while k < len(line):
        if line[k] == "=":
            start = k
            while k < len(line) and line[k] == "=":
                k += 1
            runs.append((start, k))
        else:
            k += 1
    return runs
_RST_DIRECTIVE = re.compile(r"^\s*\.\.\s+([A-Za-z-]+)::\s*(.*)$")


def rst(text: str) -> str:
    """reStructuredText: an underlined (or over- and underlined) title as a heading, ``.. math::``
    and its indented block as display math, ``:math:`x``` as ``$x$``, ``\\`\\`x\\`\\``` as ``x``, a
    simple table (columns under ``===  ===``) as a pipe table, a grid table's ``+---+`` rules as rules of
    dashes; the body of an admonition (``.. note::``) is read as text, other directives are left blank."""
    lines = text.split("\n")
    out = list(lines)
    levels: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if _columns_border(line):
            k = _simple_table(lines, out, k)
            continue
        if _made_of(line, "+-=", ends="+"):       # a grid table's +----+ / +====+ rule: a rule of dashes
            out[k] = line.replace("+", "|").replace("=", "-")
            k += 1
            continue
        directive = _RST_DIRECTIVE.match(line)
        if directive:
            k = _directive(lines, out, k, directive.group(1).lower(), directive.group(2))
            continue
        under = _adornment(lines[k + 1]) if k + 1 < len(lines) else ""
        if line.strip() and not _adornment(line) and under and len(lines[k + 1].rstrip()) >= len(line.strip()):
            if under not in levels:
                levels.append(under)
            out[k] = "#" * min(levels.index(under) + 1, 6) + " " + line.strip()
            out[k + 1] = ""
            if k > 0 and _adornment(lines[k - 1]):
                out[k - 1] = ""
            k += 2
            continue
        out[k] = _RST_LITERAL.sub(r"\1", _RST_ROLE.sub(r"$\1$", line))
        k += 1
    return "\n".join(out)


def _directive(lines: list[str], out: list[str], k: int, name: str, argument: str) -> int:
    """A directive and its indented block: math as ``$$ ... $$`` in the same lines, others blank."""
    end = k + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t"):
        end += 1
    while end > k + 1 and not lines[end - 1].strip():
        end -= 1
    body = [ln.strip() for ln in lines[k + 1:end] if ln.strip()]
    if name in CONTAINERS:           # its body is the student's text: read on, one indent less
        indent = min((len(ln) - len(ln.lstrip()) for ln in lines[k + 1:end] if ln.strip()), default=0)
        lines[k + 1:end] = [ln[indent:] for ln in lines[k + 1:end]]
        out[k] = ""
        return k + 1
    for j in range(k, end):
        out[j] = ""
    if name == "math":
        block = ["$$", *([argument] if argument.strip() else []), *body, "$$"]
        if len(block) > end - k:                    # no blank line to spare: the block takes more lines
            block = [*block[:end - k - 1], "\n".join(block[end - k - 1:])]
        out[k:k + len(block)] = block
    return end


def _simple_table(lines: list[str], out: list[str], k: int) -> int:
    """A simple table from its first ``===  ===`` border to its last: one pipe row per text line, the
    columns where the border's runs of ``=`` are (``..`` alone in a cell is an empty cell)."""
    spans = _runs(lines[k])
    borders = [k]
    end = k + 1
    while end < len(lines) and (lines[end].strip() or len(borders) < 3):
        if _columns_border(lines[end]):
            borders.append(end)
            if len(borders) == 3:
                break
        end += 1
    last = borders[-1]
    rows = []
    for j in range(k + 1, last):
        if _columns_border(lines[j]) or not lines[j].strip():
            out[j] = ""
            continue
        cells = []
        for n, (start, stop) in enumerate(spans):
            stop = spans[n + 1][0] if n + 1 < len(spans) else len(lines[j])
            cell = lines[j][start:stop].strip()
            cells.append("" if cell == ".." else _RST_LITERAL.sub(r"\1", cell).replace("|", "\\|"))
        rows.append((j, "| " + " | ".join(cells) + " |"))
        out[j] = ""
    out[k] = out[last] = ""
    if rows:
        first, header = rows[0]
        rule = "|" + " --- |" * len(spans)
        if len(borders) == 3 and borders[1] > first:   # the header's own border line holds the rule
            out[borders[1]] = rule
            out[first] = header
        else:
            out[first] = header + "\n" + rule
        for j, row in rows[1:]:
            out[j] = row
    return last + 1


class _Html(HTMLParser):
    """HTML (a notebook exported by nbconvert, a page saved from an editor) as Markdown: headings,
    paragraphs, list items, line breaks, tables as pipe rows; scripts, styles and code left out.
    Math is text there (``$...$`` for MathJax), entities decoded (``&gt;``, ``&rarr;``)."""

    SKIP = frozenset({"script", "style", "head", "pre", "code", "svg"})
    BLOCKS = frozenset({"p", "div", "ol", "ul", "table", "tr", "blockquote", "section", "main", "body"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.lists: list[str] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.rows = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self.skip += 1
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in ("ol", "ul"):
            self.lists.append(tag)
        elif tag == "li":
            self.out.append("\n" + ("1. " if self.lists[-1:] == ["ol"] else "- "))
        elif tag == "br":
            self.out.append("\\\n   " if self.lists else "\n")
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []
        elif tag in self.BLOCKS:
            self.out.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6", "p", "div"):
            self.out.append("\n\n")
        elif tag in ("ol", "ul") and self.lists:
            self.lists.pop()
            self.out.append("\n\n")
        elif tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()).replace("|", "\\|"))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.out.append("\n| " + " | ".join(self.row) + " |")
            if self.rows == 0:
                self.out.append("\n|" + " --- |" * len(self.row))
            self.rows += 1
            self.row = None
        elif tag == "table":
            self.rows = 0
            self.out.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        data = data.replace("\u00b6", "")        # a heading's anchor link
        if self.cell is not None:
            self.cell.append(data)
        elif self.row is None:
            self.out.append(data if data.strip() else " " if data else "")


def html(text: str) -> str:
    """An HTML file's text as the Markdown it renders (:class:`_Html`), its MathML as LaTeX (:mod:`grader.reading.mathml`)."""
    parser = _Html()
    parser.feed(mathml_as_tex(text))
    parser.close()
    lines = [line.rstrip() for line in "".join(parser.out).split("\n")]
    return "\n".join(line for k, line in enumerate(lines) if line or k == 0 or lines[k - 1]).strip() + "\n"


class _TableRows(HTMLParser):
    """The rows of an HTML table, each a list of its cells' text (entities decoded: ``&rarr;`` is →)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            self._cell = []
        elif tag == "br" and self._cell is not None:
            self._cell.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()).replace("|", "\\|"))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def pipe_table_lines(rows: list[list[str]]) -> list[str]:
    """``rows`` (cells already escaped; the first row the header) as a Markdown pipe table's lines,
    short rows padded with empty cells to the widest."""
    width = max(len(r) for r in rows)
    table = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    table.insert(1, "|" + " --- |" * width)
    return table


def html_tables(text: str) -> str:
    """An HTML ``<table>`` of a Markdown file (Typora, Notion, a notebook's output) as the pipe table a
    Markdown reader reads, in the same lines (blank lines fill the rest); which lines are HTML blocks
    comes from markdown-it's tokens, the cells from the standard library's HTML parser."""
    if "<table" not in text.lower():
        return text
    lines = text.split("\n")
    for tok in markdown_tokens(text):
        if tok.type != "html_block" or not tok.map or "<table" not in tok.content.lower():
            continue
        parser = _TableRows()
        parser.feed(tok.content)
        rows = [r for r in parser.rows if r]
        start, end = tok.map
        if len(rows) < 2 or end - start < len(rows) + 1:
            continue
        table = pipe_table_lines(rows)
        lines[start:end] = table + [""] * (end - start - len(table))
    return "\n".join(lines)
