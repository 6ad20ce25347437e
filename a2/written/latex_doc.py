"""A LaTeX writeup (``*.tex``) that is not in the exam template, read through the one LaTeX tokenizer
(pylatexenc, :mod:`grader.reading.tex_walk`) for the section reader (:mod:`a2.written.sections`).

The course's LaTeX template numbers questions with nested ``enumerate`` lists (``(a)``, ``(b)``
at the first level, ``i.``, ``ii.`` inside), under ``\\section`` headings, and students write
their answers below each ``\\item``. :func:`outline` gives the section markers straight from the
nodes: sections, slides' titles and numbered items are headings (``(b)``, ``(ii)``, numbered as the
lists print them; under a ``\\subsection`` whose title names one question, ``3(f)``, a list is the
answer's own: plain lines), labelled from their titles, never written as Markdown headings to be read
again. Between them, the answers' text is still written as the Markdown the answer reader reads
(:func:`body_to_markdown` for one answer): display math and math environments as ``$$...$$``,
``\\textbf{Answer:}`` as ``**Answer:**``, lists as plain ``i.``/``-`` lines; tables are kept as written
(:mod:`grader.reading.tex_tables` reads their rows from their nodes); every other node is kept as
written. It never follows ``\\input``/``\\include`` (a writeup is read from the uploaded files only)
and never runs TeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pylatexenc.latexwalker import (
    LatexCharsNode,
    LatexCommentNode,
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexMathNode,
)

from a2.written.sections import _blocks as paragraph_markers
from a2.written.sections import _Marker, parse_label
from grader.reading import tex_tables, tex_walk
from grader.reading.braces import group

_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4, "subparagraph": 5}
_HEADING, _ITEM = "\ue000", "\ue001"
"""Holds a heading's place in the written text (a private-use character no writeup types)."""
_MATH_ENVS = frozenset({"equation", "equation*", "align", "align*", "gather", "gather*", "multline",
                        "multline*", "eqnarray", "eqnarray*", "displaymath", "math", "flalign", "flalign*"})
_LIST_ENVS = frozenset({"enumerate", "parts", "subparts", "questions", "itemize", "description"})
_UNNUMBERED = frozenset({"itemize", "description"})
_ITEM_WORDS = frozenset({"item", "part", "subpart", "question", "subquestion"})
_BLOCKS = frozenset(tex_walk.BLOCK_MACROS)
_COUNTER = re.compile(r"\\(set|addto)counter\s*\{\s*enum(i{1,3}|iv)\s*\}\s*\{\s*(-?\d{1,6})\s*\}")
"""``\\setcounter{enumi}{4}``; a value of more digits is not read (int() refuses 4,300 and more)."""
LETTERS = "abcdefghijklmnopqrstuvwxyz"
ROMANS = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")


def _display(latex: str) -> str:
    return "\n$$" + " ".join(latex.split()) + "$$\n"


def _table_or_display(latex: str) -> str:
    """A display: its ``array`` environment as it is written when it is a table typed in math mode
    (:func:`grader.reading.tex_tables.math_array`, read by the table reader from its nodes), else ``$$...$$``."""
    table = tex_tables.math_array(latex)
    return "\n\n" + table + "\n\n" if table else _display(latex)


_INTERTEXT = re.compile(r"\\(?:short)?intertext\s*(?=\{)")
_EDGE_BREAKS = re.compile(r"^(?:\s*\\\\)+|(?:\\\\\s*)+$")


def _math_with_text(latex: str) -> list[str]:
    """A math environment's body -> its displays, with the text of each ``\\intertext{...}`` between
    them as a paragraph of its own (``\\intertext{\\textbf{1(b)(i)}}`` labels the lines after it)."""
    out: list[str] = []
    pos = 0
    for m in _INTERTEXT.finditer(latex):
        if m.start() < pos:
            continue
        content = group(latex, m.end())
        if content is None:
            break
        out.append(latex[pos:m.start()])
        out.append(None)             # type: ignore[arg-type]
        out.append(content[0])
        pos = content[1]
    out.append(latex[pos:])
    parts: list[str] = []
    for k, piece in enumerate(out):
        if piece is None:
            continue
        if k and out[k - 1] is None:
            parts.append("\n\n" + body_to_markdown(piece) + "\n\n")
        elif _EDGE_BREAKS.sub("", piece).strip():
            piece = _EDGE_BREAKS.sub("", piece.strip()).strip()
            parts.append(_table_or_display(piece))
    return parts


def _args(node: LatexMacroNode | LatexEnvironmentNode) -> list:
    return [a for a in (node.nodeargd.argnlist if node.nodeargd is not None else []) if a is not None]


_TITLED = frozenset({"frame", "block", "alertblock", "exampleblock"})
"""Beamer's environments whose first braced group is a title (``\\begin{frame}{Q1(b)(i)}``,
``\\begin{block}{Answer}``): a slide's title is a heading, a block's a bold line."""


def _env_title(text: str, node: LatexEnvironmentNode) -> tuple[str, list]:
    """A titled environment's title (after an optional ``[fragile]``, ``<2->``) and its other nodes."""
    body = [n for n in node.nodelist if n is not None]
    k = 0
    while k < len(body) and isinstance(body[k], LatexCharsNode) and re.fullmatch(
            r"\s*(?:\[[^\]]*\]|<[^>]*>)*\s*", body[k].chars):
        k += 1
    if k < len(body) and isinstance(body[k], LatexGroupNode):
        title = text[body[k].pos + 1:body[k].pos + body[k].len - 1]
        return " ".join(title.split()), body[k + 1:]
    for j, n in enumerate(body):           # \frametitle{...} inside the slide, its group parsed as an argument or not
        if isinstance(n, LatexMacroNode) and n.macroname == "frametitle":
            group = next((a for a in _args(n) if isinstance(a, LatexGroupNode)), None)
            rest = body[j + 1:]
            if group is None:
                while rest and isinstance(rest[0], LatexCharsNode) and not rest[0].chars.strip():
                    rest = rest[1:]
                if rest and isinstance(rest[0], LatexGroupNode):
                    group, rest = rest[0], rest[1:]
            if group is not None:
                title = text[group.pos + 1:group.pos + group.len - 1]
                return " ".join(title.split()), body[:j] + rest
    return "", body


_LIST_STYLES = ((re.compile(r"\\roman\b|\\Roman\b|^\W*[iI]\W*$"), "roman"),
                (re.compile(r"\\alph\b|\\Alph\b|^\W*[aA]\W*$"), "letter"))
"""An ``enumerate``'s numbering from its option (enumitem's ``label=\\roman*.``, the enumerate
package's ``[i.]``, ``[(a)]``): Roman numerals or letters; any other numbering is the default."""


def _list_style(text: str, node: LatexEnvironmentNode) -> str:
    """"roman", "letter" or "" for a list environment, from its optional argument or leading ``[...]``."""
    option = next((text[a.pos + 1:a.pos + a.len - 1] for a in _args(node)
                   if isinstance(a, LatexGroupNode) and a.delimiters[0] == "["), None)
    if option is None:
        first = next((n for n in node.nodelist if n is not None), None)
        m = re.match(r"\s*\[([^\]]*)\]", first.chars) if isinstance(first, LatexCharsNode) else None
        option = m.group(1) if m else ""
    option = re.sub(r"^.*?label\s*=\s*", "", option.split(",")[0] if "label" not in option else
                    next(p for p in option.split(",") if "label" in p)).strip()
    return next((style for pattern, style in _LIST_STYLES if option and pattern.search(option)), "")


@dataclass
class _Writer:
    text: str
    headings: bool                      # numbered items become headings (a whole document) or lines
    out: list[str] = field(default_factory=list)
    lists: list[list] = field(default_factory=list)     # [environment, items so far, numbered]
    under_subsection: bool = False      # a subsection labelled (f), 3(f)...: its lists are the answer's
    found: list[tuple[int, str]] = field(default_factory=list)     # the headings met: (level, title)
    marks: list[str] = field(default_factory=list)     # an answer's numbered items met (``i.``, ``(b)``)

    def heading(self, level: int, title: str) -> None:
        """A heading (a section's, a numbered item's, a slide's title): a line of its own holding its
        place, turned into a section marker by :func:`outline` (never written as Markdown)."""
        self.out.append(f"\n\n{_HEADING}{len(self.found)}{_HEADING}\n\n")
        self.found.append((level, title))

    def verbatim(self, node) -> str:
        return self.text[node.pos:node.pos + node.len]

    def walk(self, nodes) -> None:
        for node in nodes:
            if node is not None:
                self.node(node)

    def node(self, node) -> None:
        if isinstance(node, LatexCommentNode):
            return
        if isinstance(node, LatexCharsNode):
            self.out.append(node.chars)
        elif isinstance(node, LatexMathNode):
            if node.displaytype == "display":
                open_, close = node.delimiters or ("", "")
                inner = self.text[node.pos + len(open_):node.pos + node.len - len(close)]
                self.out.append(_table_or_display(inner))
            else:
                self.out.append(self.verbatim(node))
        elif isinstance(node, LatexEnvironmentNode):
            self.environment(node)
        elif isinstance(node, LatexMacroNode):
            self.macro(node)
        elif isinstance(node, LatexGroupNode):
            self.out.append("{")
            self.walk(node.nodelist)
            self.out.append("}")
        else:
            self.out.append(self.verbatim(node))

    def environment(self, node: LatexEnvironmentNode) -> None:
        name = node.environmentname
        if name in _MATH_ENVS:
            self.out.extend(_math_with_text(self.text[tex_walk.begin_tag_end(self.text, node):tex_walk.end_tag(self.text, node)]))
        elif name in tex_tables.TABLE_ENVS:          # read as rows of cells from its nodes (tables.table_rows)
            self.out.append("\n\n" + self.verbatim(node) + "\n\n")
        elif name in _LIST_ENVS:
            self.lists.append([name, 0, name not in _UNNUMBERED, _list_style(self.text, node)])
            self.walk(node.nodelist)
            self.lists.pop()
            self.out.append("\n\n")
        elif name in _TITLED and self.headings:
            title, rest = _env_title(self.text, node)
            mark = "##" if name == "frame" else "**"
            if name == "frame" and title:
                self.heading(2, title)
            if name == "frame":              # a slide titled with one question (Q3(f)): its lists are the answer's
                label = parse_label(title, heading=True) if title else None
                self.under_subsection = label is not None and label.letter is not None
            self.out.append(f"\n\n** {title} **\n\n" if title and mark == "**" else "\n\n")
            self.walk(rest)
            self.out.append("\n\n")
        else:
            self.out.append("\n\n")
            self.walk(node.nodelist)
            self.out.append("\n\n")

    def macro(self, node: LatexMacroNode) -> None:
        name = node.macroname
        args = _args(node)
        if name in _LEVEL and self.headings:
            title = self.verbatim(args[-1])[1:-1] if args and isinstance(args[-1], LatexGroupNode) else ""
            self.heading(_LEVEL[name], " ".join(title.split()))
            label = parse_label(title, heading=True) if name != "section" else None
            self.under_subsection = label is not None and label.letter is not None
        elif name in _ITEM_WORDS:
            self.item(node, args)
        elif name in ("setcounter", "addtocounter"):
            self.counter(node)
        elif name in tex_tables.EMPHASIS and args and isinstance(args[-1], LatexGroupNode):
            self.out.append("**")
            self.walk(args[-1].nodelist)
            self.out.append("**")
        elif name in _BLOCKS and args and isinstance(args[-1], LatexGroupNode):
            self.out.append("\n\n")
            self.walk(args[-1].nodelist)
            self.out.append("\n\n")
        elif name in tex_tables.BREAKS:
            self.out.append("\n")
        elif name not in tex_tables.DROPPED:
            self.out.append(self.verbatim(node))

    def counter(self, node: LatexMacroNode) -> None:
        """``\\setcounter{enumi}{4}`` (the next item is (e)) or ``\\addtocounter{enumii}{1}`` on the list it names."""
        m = _COUNTER.match(self.text, node.pos)
        numbered = [frame for frame in self.lists if frame[2]]
        level = ROMANS.index(m.group(2)) + 1 if m else 0
        if m and level <= len(numbered):
            frame = numbered[level - 1]
            frame[1] = int(m.group(3)) + (frame[1] if m.group(1) == "addto" else 0)

    def item(self, node: LatexMacroNode, args: list) -> None:
        """Number an item the way the template's nested lists print it."""
        optional = [a for a in args if isinstance(a, LatexGroupNode) and a.delimiters[0] == "["]
        explicit = self.verbatim(optional[0])[1:-1].strip() if optional else ""
        if not self.lists:
            self.lists.append(["enumerate", 0, True, ""])
        frame = self.lists[-1]
        frame[1] += 1
        if frame[3] and not explicit and frame[2]:      # the list's own labels: [i.], [label=(\alph*)]
            numeral = ROMANS[(frame[1] - 1) % len(ROMANS)] if frame[3] == "roman" else LETTERS[(frame[1] - 1) % 26]
            explicit = f"({numeral})" if self.headings and not self.under_subsection else f"{numeral}."
        if not self.headings or self.under_subsection:      # a list inside one question's answer
            mark = explicit or (f"{ROMANS[(frame[1] - 1) % len(ROMANS)]}." if frame[0] == "enumerate" else "-")
            if self.headings and mark != "-":               # a numbered item of an answer: a marker of its own
                self.out.append(f"\n\n{_ITEM}{len(self.marks)}{_ITEM}")
                self.marks.append(mark)
            self.out.append(f"\n\n{mark} " if mark == "-" or not self.headings else f"{mark} ")
            return
        depth = sum(1 for f in self.lists if f[2])
        if explicit:
            label = explicit
        elif not frame[2]:
            self.out.append("\n- ")
            return
        elif depth == 1:
            label = f"({LETTERS[(frame[1] - 1) % 26]})"
        elif depth == 2:
            label = f"({ROMANS[(frame[1] - 1) % len(ROMANS)]})"
        else:
            self.out.append(f"\n{frame[1]}. ")
            return
        self.heading(min(6, 2 + depth), label)


def _tidy(text: str) -> str:
    text = re.sub(r"\n[ \t]+", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def outline(text: str) -> tuple[str, tuple[list[_Marker], set[int]]]:
    """A LaTeX writeup's body (the preamble is not read) as :func:`a2.written.sections.locate_markdown`
    takes it: its text by lines, a heading's line holding its title, and the section markers: each
    heading's labelled from its node's title and each numbered item's of an answer's list (``i.``, ``[(b)]``)
    from its number (never read back from text), the other paragraphs' (``\\textbf{(e)(ii)}``, ``3(b) ...``)
    as the Markdown reader finds them, with the lines it leaves out."""
    text = text.replace(_HEADING, " ").replace(_ITEM, " ")    # the same length: no student text holds their place
    writer = _Writer(text, headings=True)
    writer.walk(tex_walk.nodes(text))
    lines = (_tidy("".join(writer.out)) + "\n").split("\n")
    headings: list[_Marker] = []
    for k, line in enumerate(lines):
        if len(line) > 2 and line[0] == line[-1] == _HEADING and line[1:-1].isdecimal():
            level, title = writer.found[int(line[1:-1])]
            lines[k] = ""
            headings.append(_Marker(k, parse_label(title, heading=True), title, True, level))
    items: list[_Marker] = []
    for k, line in enumerate(lines):
        if line.startswith(_ITEM) and _ITEM in line[1:] and line[1:line.index(_ITEM, 1)].isdecimal():
            mark = writer.marks[int(line[1:line.index(_ITEM, 1)])]
            lines[k] = line[line.index(_ITEM, 1) + 1:]
            label = parse_label(mark, heading=False)
            if label is not None:
                items.append(_Marker(k, label, lines[k].strip(), False, 0))
    paragraphs, excluded = paragraph_markers("\n".join(lines))
    paragraphs = [m for m in paragraphs if m.line not in {i.line for i in items}] + items
    for mk in headings:
        lines[mk.line] = mk.heading
    return "\n".join(lines), (sorted([*paragraphs, *headings], key=lambda m: m.line), excluded)


def body_to_markdown(text: str) -> str:
    """The Markdown of one answer's LaTeX (no headings: lists become plain numbered lines)."""
    writer = _Writer(text, headings=False)
    writer.walk(tex_walk.fragment(text))
    return _tidy("".join(writer.out))
