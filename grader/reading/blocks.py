"""One document model for every written file: a list of blocks with their file and line.

Each format has one tokenizer:

* Markdown through markdown-it-py with mdit-py-plugins' ``dollarmath`` (``$...$``, ``$$...$$``)
  and ``amsmath`` (``\\begin{align}`` ... at the top level) plugins;
* LaTeX through pylatexenc's ``LatexWalker`` (:mod:`grader.reading.tex_walk`: tolerant mode, the
  exam template's macro specs); in a template document only the answer blocks' content counts
  (the prompt of the template is never an answer);
* plain text by lines.

Blocks are :data:`HEADING`, :data:`PARAGRAPH`, :data:`DISPLAY` (display math), :data:`INLINE`
(inline math), :data:`TABLE` and :data:`ITEM` (a list item). The section reader
(:mod:`a2.written.sections`) finds questions; this model is what the evidence of
:mod:`a2.written.evidence` is read from: every equation of the writeup, wherever it is.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.amsmath import amsmath_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
)

from grader.reading import tex_tables, tex_walk
from grader.reading.answers import opens_with_marker
from grader.reading.braces import math_groups
from grader.reading.kept import per_writeup

HEADING = "heading"
PARAGRAPH = "paragraph"
DISPLAY = "display"
INLINE = "inline"
TABLE = "table"
ITEM = "item"
MATH_ENVS = frozenset({"equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
                       "eqnarray", "eqnarray*", "displaymath", "math", "flalign", "flalign*"})
SECTIONS = frozenset({"section", "subsection", "subsubsection", "paragraph", "titledquestion"})
MAX_BLOCKS = 5000
"""Blocks read from one file (the rest is not read)."""


@dataclass(frozen=True)
class Block:
    kind: str
    text: str
    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}, line {self.line}"


@functools.cache
def _markdown() -> MarkdownIt:
    return (MarkdownIt("commonmark", {"html": True}).enable("table")
            .use(dollarmath_plugin, double_inline=True).use(amsmath_plugin))


@per_writeup(maxsize=8)
def markdown_tokens(text: str) -> tuple:
    """The token stream of a Markdown text: the one Markdown tokenizer of the reader (the section
    finder reads its headings and paragraphs, :func:`markdown_blocks` its blocks and math, the
    summary table and the heading check theirs: one parse of a file, kept while it is read)."""
    return tuple(_markdown().parse(text))


MATH_FENCES = frozenset({"math", "latex", "tex", "katex", "mathjax"})
"""Info strings of a fenced block that holds math (GitHub renders ```` ```math ```` as display math)."""


def github_math(text: str) -> str:
    """GitHub's math syntax as the ``$`` math the reader reads: a fenced block whose info string is
    one of :data:`MATH_FENCES` becomes display math (``$$`` lines), `` $`...`$ `` inline math
    (``$...$``). Which lines are fences, and which are code (left exactly as they are), comes from
    markdown-it's tokens."""
    if "```" not in text and "~~~" not in text and "$`" not in text:
        return text
    lines = text.split("\n")
    code: set[int] = set()
    for tok in markdown_tokens(text):
        if tok.type not in ("fence", "code_block") or not tok.map:
            continue
        start, end = tok.map
        if tok.type == "fence" and tok.info.strip().lower() in MATH_FENCES:
            at = lines[start].find(tok.markup)
            lines[start] = lines[start][:at] + "$$"
            close = lines[end - 1].rfind(tok.markup) if end - 1 > start else -1
            if close >= 0 and not lines[end - 1][close:].strip(tok.markup[0] + " \t"):
                lines[end - 1] = lines[end - 1][:close] + "$$"
            else:
                lines.insert(end, "$$")      # an unclosed fence runs to the end of its container
        else:
            code.update(range(start, end))
    return "\n".join(line if k in code or "$`" not in line else _GITHUB_INLINE.sub(r"$\1$", line)
                     for k, line in enumerate(lines))


_GITHUB_INLINE = re.compile(r"\$`([^`\n]+)`\$")
_STRUCK = re.compile(r"(?<!~)~~(?=[^\s~])(?:[^~\n]|\n(?![ \t]*\n))*?(?<=\S)~~(?!~)|<(del|s|strike)>(?:[^<\n]|\n(?![ \t]*\n))*?</\1>")
"""Struck-through text, within one paragraph (a hard wrap inside it, never a blank line); never a
``~~~`` code fence."""
_STRUCK_MATH = re.compile(r"(?<![^\s(])~~(?=[^\s~])[^~\n]*\$[^~\n]*?(?<=\S)~~(?![~$\w])")
"""A strike through a formula on one line (``~~$U(y - \\hat{y})$~~ oops``): a rejected attempt, with its math."""


def struck_out(text: str) -> str:
    """Text struck through (``~~old~~``, ``<del>old</del>``) outside math is deleted text: blanked
    (the rest keeps its place), never read as an answer."""
    if "~~" not in text and "</" not in text:
        return text
    text = _STRUCK_MATH.sub(lambda m: " " * len(m.group(0)), text)
    out, pos = [], 0
    for start, end in _outside_math(text):
        out.append(text[pos:start])
        out.append(_STRUCK.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


PROMPT_CALLOUTS = frozenset({"question", "quote", "cite", "faq", "help"})
"""Callout types (``> [!question]``) that quote the handout; any other callout holds the student's text."""
_CALLOUT = re.compile(r"^[ \t]*>[ \t]*\\?\[!([A-Za-z-]+)\\?\]")
"""A callout's marker line, ``> [!note]``, or ``> \\[!note\\]`` as pandoc escapes its brackets."""


def callouts_opened(text: str) -> str:
    """A callout (Obsidian's and GitHub's ``> [!answer]``, ``> [!note]``) is the student's own text,
    not a quoted prompt: its lines lose their ``>`` and its marker line is left blank, so the
    answers inside are read as any others. Plain blockquotes (the template quotes each question) and
    callouts of :data:`PROMPT_CALLOUTS` stay quotes, up to a line that starts with an "Answer:"
    marker (an answer typed inside the template's quoted prompt), which is unquoted from there on. Which lines form a blockquote comes from
    markdown-it's tokens."""
    if "[!" not in text and ">" not in text:
        return text
    lines = text.split("\n")
    depth = 0
    for tok in markdown_tokens(text):
        if tok.type == "blockquote_close":
            depth -= 1
        if tok.type != "blockquote_open":
            continue
        depth += 1
        if depth > 1 or not tok.map:
            continue
        start, end = tok.map
        m = _CALLOUT.match(lines[start])
        if not m:           # the template's quoted prompt, the answer typed inside it after "Answer:"
            # (at any depth: "> > **Answer.** 2n" is a reply quoted under the quoted prompt)
            start = next((k for k in range(start, end) if opens_with_marker(_unquoted(lines[k], every=True))), end)
            for k in range(start, end):
                lines[k] = _unquoted(lines[k], every=True)
            continue
        if m.group(1).lower() in PROMPT_CALLOUTS:
            continue
        lines[start] = ""
        for k in range(start + 1, end):
            lines[k] = _unquoted(lines[k])
    return "\n".join(lines)


_ASKS = re.compile(r"\?|(?:^|[.:;]\s+|\(\w{1,4}\)\s*)(?:compute|show|write|derive|explain|give|parse|go through|find|"
                   r"state|prove|briefly|consider|suppose|let|recall|what|when|why|how|which|for each)\b", re.I)
_TABLE_ROW = re.compile(r"^\s*\|.*\|.*\|\s*$", re.M)
QUOTED_ANSWER = "the section's only text is quoted ('> ...'), which usually holds the question's own words; it was read as the answer"


def quoted_reply(lines: list[str], span: range, quoted: set[int]) -> str:
    """The blockquotes among ``lines[span]`` (a section that has nothing outside its quotes, which are
    the lines ``quoted``) that are the student's text rather than the question's own words, which ask (a "?", "Compute",
    "Let", "Explain"; the handout's 3(a) shows four rows of its table): a blockquote used for the answer
    itself ("> | Stack | ...", "> We need ... so $\\gamma = ...$"), unquoted at every depth; "" if none."""
    quotes = re.split(r"\n\s*\n", "\n".join(_unquoted(lines[k], every=True) if k in quoted and lines[k].lstrip().startswith(">")
                                               else "" for k in span))
    return "\n\n".join(q.strip() for q in quotes if any(mark in q for mark in ("$", "\\(", "→", "->")) and (
        len(_TABLE_ROW.findall(q)) >= 10 or not _ASKS.search(re.sub(r"\$[^$]*\$", " ", q))))


def _unquoted(line: str, *, every: bool = False) -> str:
    """``line`` without its first blockquote ``>`` (and the space after it); ``every``: without all of them."""
    at = line.find(">")
    if at < 0 or line[:at].strip():
        return line
    rest = line[at + 1:].removeprefix(" ")
    return _unquoted(rest, every=True) if every else rest
PANDOC_ESCAPED = "_*#<>~^`=+-.!"
"""Characters pandoc and Google Docs' Markdown export escape in Markdown text (``p\\_drop``, ``\\*``,
``v\\_c \\= U``, ``\\+``, ``1\\.``; CommonMark lets any punctuation be escaped); brackets too (``\\[ROOT\\]``).
Never ``\\(``/``\\)`` (math delimiters to this reader) nor ``\\|`` (a cell's own pipe)."""


def pandoc_unescaped(text: str) -> str:
    """A Markdown file written by pandoc (its text has ``\\_`` or ``\\*`` outside math) with its escapes
    undone, as a Markdown renderer shows it: ``\\[ROOT, I\\]`` is a bracketed list there, never
    display math, and ``u\\_o`` is ``u_o``. Math (``$...$``) is left as it is; other files are unchanged."""
    if not any(text[start:end].count(f"\\{ch}") for start, end in _outside_math(text) for ch in "_*"):
        return text
    text = _brackets(text)
    text = _STRUCK_MATH.sub(lambda m: " " * len(m.group(0)), text)
    out, pos = [], 0
    for start, end in _outside_math(text):
        out.append(text[pos:start])
        chunk = text[start:end]
        for ch in PANDOC_ESCAPED:
            chunk = chunk.replace(f"\\{ch}", ch)
        out.append(chunk)
        pos = end
    out.append(text[pos:])
    return "".join(out)


_MATH_ESCAPE = re.compile(r"\\([\\_*])")


def site_unescaped(text: str) -> str:
    """Math escaped for a site generator's Markdown (Hexo, Hugo: ``v\\_c``, ``\\\\{``, ``\\\\\\\\``
    for a row break) as the LaTeX it stands for. A document is read so only when its math holds
    ``\\_``, which no formula means: then ``\\\\`` is ``\\``, ``\\_`` is ``_`` and ``\\*`` is ``*`` in its
    math; other documents are unchanged."""
    spans = list(math_groups(text))
    if not any("\\_" in body for _s, _e, body, _d in spans):
        return text
    out, pos = [], 0
    for start, end, _body, _display in spans:
        out.append(text[pos:start])
        out.append(_MATH_ESCAPE.sub(r"\1", text[start:end]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


_ESCAPED_BRACKETS = re.compile(r"\\\[([^\n]*?)\\\]")


def _brackets(text: str) -> str:
    """``\\[...\\]`` on one line: escaped brackets after text or around words, display math when it
    opens the line and holds LaTeX commands."""
    def one(m: re.Match[str]) -> str:
        opens_line = not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip()
        return m.group(0) if opens_line and "\\" in m.group(1) else f"[{m.group(1)}]"
    return _ESCAPED_BRACKETS.sub(one, text)


def _outside_math(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for start, end, _body, _display in math_groups(text):
        spans.append((pos, start))
        pos = end
    return [*spans, (pos, len(text))]


def list_items(text: str) -> list[str]:
    """The source text of each top-level item of the first Markdown list of ``text`` (its nested
    lists inside it), from markdown-it's tokens: ``1.`` ... ``4.`` with an item per sentence."""
    lines = text.split("\n")
    items: list[str] = []
    depth = 0
    for tok in markdown_tokens(text):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
            if depth == 0 and items:
                break
        elif tok.type == "list_item_open" and depth == 1 and tok.map:
            items.append("\n".join(lines[tok.map[0]:tok.map[1]]).rstrip())
    return items


def markdown_blocks(text: str, file: str) -> list[Block]:
    """The blocks of a Markdown file (blockquotes, the template's quoted prompts, are left out)."""
    out: list[Block] = []
    tokens = markdown_tokens(text)
    lines = text.split("\n")
    quote = 0
    kind_of_next = PARAGRAPH
    line = 1
    for tok in tokens:
        if tok.type == "blockquote_open":
            quote += 1
        elif tok.type == "blockquote_close":
            quote -= 1
        if quote:
            continue
        if tok.map:
            line = tok.map[0] + 1
        if tok.type == "heading_open":
            kind_of_next = HEADING
        elif tok.type == "paragraph_open":
            kind_of_next = PARAGRAPH
        elif tok.type == "list_item_open":
            kind_of_next = ITEM
        elif tok.type in ("math_block", "math_block_label", "amsmath"):
            out.append(Block(DISPLAY, tok.content.strip(), file, line))
        elif tok.type == "table_open" and tok.map:
            out.append(Block(TABLE, "\n".join(lines[tok.map[0]:tok.map[1]]), file, line))
        elif tok.type == "inline":
            out.append(Block(kind_of_next, tok.content, file, line))
            kind_of_next = PARAGRAPH
            for child in tok.children or ():
                if child.type == "math_inline":
                    out.append(Block(INLINE, child.content.strip(), file, line))
                elif child.type == "math_inline_double":
                    out.append(Block(DISPLAY, child.content.strip(), file, line))
    return out[:MAX_BLOCKS]


def plain_blocks(text: str, file: str) -> list[Block]:
    """A plain-text file: one paragraph per non-empty line."""
    return [Block(PARAGRAPH, line.strip(), file, k + 1) for k, line in enumerate(text.split("\n"))
            if line.strip()][:MAX_BLOCKS]


def latex_blocks(text: str, file: str, *, answers_only: bool = False) -> list[Block]:
    """The blocks of a LaTeX file; ``answers_only``: only what is inside answer blocks."""
    starts = [0] + [k + 1 for k, ch in enumerate(text) if ch == "\n"]
    out: list[Block] = []

    def line_of(pos: int) -> int:
        return bisect.bisect_right(starts, pos)

    def add(kind: str, content: str, pos: int) -> None:
        if content.strip() and len(out) < MAX_BLOCKS:
            out.append(Block(kind, content.strip(), file, line_of(pos)))

    def walk(items: list | tuple, inside: bool) -> None:
        for node in items:
            if node is None:
                continue
            keep = inside or not answers_only
            if isinstance(node, LatexMathNode):
                if keep:
                    open_, close = node.delimiters if node.delimiters else ("", "")
                    inner = text[node.pos + len(open_):node.pos + node.len - len(close)]
                    add(DISPLAY if node.displaytype == "display" else INLINE, inner, node.pos)
            elif isinstance(node, LatexEnvironmentNode):
                name = node.environmentname
                if name in MATH_ENVS:
                    if keep:
                        begin = tex_walk.begin_tag_end(text, node)
                        add(DISPLAY, text[begin:tex_walk.end_tag(text, node)], node.pos)
                elif name.startswith("tabular") or name in tex_tables.TABLE_ENVS:
                    if keep:
                        add(TABLE, text[node.pos:node.pos + node.len], node.pos)
                else:
                    walk(node.nodelist, inside or name in tex_walk.BLOCK_ENVS)
            elif isinstance(node, LatexMacroNode):
                if node.macroname in tex_walk.BLOCK_MACROS:
                    args = node.nodeargd.argnlist if node.nodeargd is not None else []
                    for arg in args:
                        if isinstance(arg, LatexGroupNode):
                            walk(arg.nodelist, True)
                elif node.macroname in SECTIONS and keep:
                    add(HEADING, text[node.pos:node.pos + node.len], node.pos)
                elif node.macroname == "item" and keep:
                    add(ITEM, "", node.pos)
            elif isinstance(node, LatexGroupNode):
                walk(node.nodelist, inside)
            elif isinstance(node, LatexCharsNode) and keep:
                add(PARAGRAPH, node.chars, node.pos)

    walk(tex_walk.nodes(text), False)
    return out


def read_blocks(file: str, text: str, *, template: bool = False, plain: bool = False) -> list[Block]:
    """The blocks of one written file, by its kind (``template``: a document in the exam template;
    ``plain``: plain text, read by lines, as :func:`a2.written.sections.is_plain_text` decides)."""
    if file.lower().endswith(".tex"):
        return latex_blocks(text, file, answers_only=template)
    if plain:
        return plain_blocks(text, file)
    return markdown_blocks(text, file)
