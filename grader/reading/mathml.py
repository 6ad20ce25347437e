"""MathML (``<math><mfrac><mi>..``) as the LaTeX the reader reads: a web page that shows its
formulas with MathML (pandoc's ``--mathml``, LaTeXML, an online equation editor, a page saved from
a browser) has no TeX in it, and read as text its elements run together (``<mfrac><mn>1</mn>
<mrow><mn>1</mn><mo>−</mo>..`` becomes "11 − p", a wrong formula read with confidence).

Each ``<math>`` element is rewritten, in place, as ``$...$`` (``$$...$$`` when ``display="block"``):
a TeX annotation (``<annotation encoding="application/x-tex">``) is taken as written; otherwise
the presentation elements are translated one by one (:data:`LAYOUT`: fractions, scripts, accents,
roots, fences, tables) and the characters through the Unicode table of
:mod:`grader.reading.notation`. An element the table does not know keeps its children's text.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from grader.reading.notation import UNICODE

ACCENTS = {"^": r"\hat", "\u02c6": r"\hat", "\u0302": r"\hat", "\u00af": r"\bar", "\u203e": r"\bar",
           "~": r"\tilde", "\u02dc": r"\tilde", "\u2192": r"\vec", ".": r"\dot", "\u02d9": r"\dot"}
"""An ``<mover>``'s accent -> the LaTeX accent command."""
BIG_OPERATORS = frozenset({"\u2211", "\u220f", "lim", "max", "min", "argmax", "argmin"})
"""Bases an ``<munder>``/``<munderover>`` writes its limits under and over, as subscript and superscript."""
FUNCTIONS = {"log": r"\log ", "exp": r"\exp ", "ln": r"\ln ", "max": r"\max ", "min": r"\min ",
             "softmax": r"\operatorname{softmax}", "ReLU": r"\operatorname{ReLU}", "diag": r"\operatorname{diag}"}
"""Multi-letter ``<mi>`` names that are functions."""
INVISIBLE = {"\u2061": "", "\u2062": " ", "\u2063": ",", "\u2064": "+"}
"""MathML's invisible operators (function application, times, separator, plus)."""
LAYOUT = ("mfrac", "msub", "msup", "msubsup", "mover", "munder", "munderover", "msqrt", "mroot", "mfenced",
          "mtable", "semantics")
"""The elements with a layout of their own; every other element is its children in a row."""
_SKIPPED = frozenset({"annotation", "annotation-xml", "mphantom", "none", "mprescripts"})
_VOID = frozenset({"mspace", "mglyph", "malignmark", "none", "mprescripts"})


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    children: list = field(default_factory=list)     # _Node or str


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.stack[-1].children.append(_Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for k in range(len(self.stack) - 1, 0, -1):
            if self.stack[k].tag == tag:
                del self.stack[k:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def _text(node) -> str:
    return node if isinstance(node, str) else "".join(_text(c) for c in node.children)


def _chars(text: str) -> str:
    return "".join(INVISIBLE.get(ch, UNICODE.get(ch, ch)) for ch in text.strip())


def _kids(node: _Node) -> list[_Node]:
    return [c for c in node.children if isinstance(c, _Node) and c.tag not in _SKIPPED]


def _token(node: _Node) -> str:
    text = _text(node).strip()
    if node.tag == "mi":
        variant = node.attrs.get("mathvariant", "")
        if variant == "double-struck":
            return r"\mathbb{" + _chars(text) + "}"
        if len(text) > 1 and text in FUNCTIONS:
            return FUNCTIONS[text]
        if variant.startswith("bold") and text:
            return r"\mathbf{" + _chars(text) + "}"
        return _chars(text) if len(text) <= 1 else " " + _chars(text) + " "
    if node.tag == "mtext":
        return r"\text{" + text + "}" if text else " "
    if node.tag == "mspace":
        return " "
    return _chars(text)


def _arg(node: _Node) -> str:
    return "{" + tex(node) + "}"


def _base(node: _Node) -> str:
    """A script's base: a single token or a bracketed row as it is, anything else braced."""
    out = tex(node).strip()
    return out if node.tag in ("mi", "mn", "mo", "mover") or re.search(r"[)\]}|]$", out) else "{" + out + "}"


def tex(node: _Node) -> str:
    """The LaTeX of one MathML element."""
    kids = _kids(node)
    tag = node.tag
    if tag in ("mi", "mn", "mo", "mtext", "ms", "mspace"):
        return _token(node)
    if tag == "semantics":
        note = next((c for c in node.children if isinstance(c, _Node) and c.tag == "annotation"
                     and "tex" in c.attrs.get("encoding", "")), None)
        return _text(note).strip() if note is not None else "".join(tex(k) for k in kids[:1])
    if tag == "mfrac" and len(kids) == 2:
        return r"\frac" + _arg(kids[0]) + _arg(kids[1])
    if tag == "msub" and len(kids) == 2:
        return _base(kids[0]) + "_" + _arg(kids[1])
    if tag == "msup" and len(kids) == 2:
        return _base(kids[0]) + "^" + _arg(kids[1])
    if tag in ("msubsup", "munderover") and len(kids) == 3:
        return _base(kids[0]) + "_" + _arg(kids[1]) + "^" + _arg(kids[2])
    if tag == "mover" and len(kids) == 2:
        accent = _text(kids[1]).strip()
        if accent in ACCENTS:
            return ACCENTS[accent] + _arg(kids[0])
        return r"\overset" + _arg(kids[1]) + _arg(kids[0])
    if tag == "munder" and len(kids) == 2:
        if _text(kids[0]).strip() in BIG_OPERATORS:
            return tex(kids[0]) + "_" + _arg(kids[1])
        return r"\underset" + _arg(kids[1]) + _arg(kids[0])
    if tag == "msqrt":
        return r"\sqrt{" + "".join(tex(k) for k in kids) + "}"
    if tag == "mroot" and len(kids) == 2:
        return r"\sqrt[" + tex(kids[1]) + "]" + _arg(kids[0])
    if tag == "mfenced":
        open_, close = node.attrs.get("open", "("), node.attrs.get("close", ")")
        sep = node.attrs.get("separators", ",")[:1] or ","
        return open_ + sep.join(tex(k) for k in kids) + close
    if tag == "mtable":
        rows = [" & ".join(tex(cell) for cell in _kids(row)) for row in kids]
        return r"\begin{matrix}" + r" \\ ".join(rows) + r"\end{matrix}"
    if tag in ("mtr", "mlabeledtr", "mtd"):
        return " & ".join(tex(k) for k in kids)
    return _row(kids)


def _row(kids: list[_Node]) -> str:
    """A row of elements; ``{`` followed by a table and no closing brace is a ``cases`` environment."""
    out: list[str] = []
    for k, kid in enumerate(kids):
        if kid.tag == "mo" and _text(kid).strip() == "{" and k + 1 < len(kids) and kids[k + 1].tag == "mtable" \
                and not any(_text(later).strip() == "}" for later in kids[k + 2:]):
            rows = [" & ".join(tex(cell) for cell in _kids(row)) for row in _kids(kids[k + 1])]
            return "".join(out) + r"\begin{cases}" + r" \\ ".join(rows) + r"\end{cases}" + _row(kids[k + 2:])
        out.append(tex(kid))
    return "".join(out)


def mathml_to_latex(fragment: str) -> str:
    """The LaTeX of a ``<math>`` element's source text."""
    tree = _Tree()
    tree.feed(fragment)
    tree.close()
    maths = [c for c in tree.root.children if isinstance(c, _Node)]
    text = "".join(tex(m) for m in maths)
    return " ".join(text.split())


_MATH = re.compile(r"<math\b([^>]*)>(.*?)</math\s*>", re.S | re.I)


def mathml_as_tex(page: str) -> str:
    """``page`` (HTML) with each ``<math>`` element replaced by its LaTeX in ``$``/``$$`` delimiters,
    escaped for HTML (the page's parser decodes it back)."""
    if "<math" not in page.lower():
        return page

    def one(m: re.Match[str]) -> str:
        latex = mathml_to_latex(m.group(0))
        block = re.search(r"display\s*=\s*[\"']block", m.group(1))
        return html_lib.escape(f" $${latex}$$ " if block else f"${latex}$", quote=False)
    return _MATH.sub(one, page)
