"""LaTeX structure through a real LaTeX parser: pylatexenc's ``LatexWalker``, in tolerant mode.

The course's ``exam`` template is read from the parser's nodes, with macro specs for its commands
(:data:`EXAM_MACROS`): ``\\titledquestion{title}[points]``, ``\\question[points]``,
``\\part[points]``, ``\\subpart[points]``, the answer blocks ``\\answer{}``, ``\\ans{}``,
``\\ifans{}``, ``\\solution{}`` and the environments ``parts``, ``subparts``, ``answer``,
``solution``. Arguments, groups and nesting are the parser's, not a regular expression's, so an
answer block spanning many lines with nested braces, or an environment inside ``mdframed``, is
found as TeX would see it. A text the parser cannot read at all yields no structure (tolerant
mode makes that rare); nothing is ever run through TeX.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from pylatexenc.latexwalker import (
    LatexEnvironmentNode,
    LatexGroupNode,
    LatexMacroNode,
    LatexWalkerError,
    get_default_latex_context_db,
)
from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

from grader.reading.tex_walker import Walker, specials_finder

WALK_BUDGET_CHARS = 60_000
"""Characters of one LaTeX file whose structure is parsed (the time bound: pylatexenc reads dense
markup at a few microseconds a character, and a whole writeup must be read well under 0.5 s). The
preamble is never parsed (macro definitions are read by :mod:`tex_macros`); a longer body is
parsed piece by piece up to this budget, and what lies beyond is reported by :func:`read_to`, so
that the answers there are flagged for a TA instead of read as absent."""
CHUNK_CHARS = 20_000
"""A body longer than this is parsed in pieces cut before a question or section command, so that
an unclosed group in one piece (tolerant mode's costly recovery) cannot slow the others down."""
_BEGIN = re.compile(r"\\begin\s*\{[^}]*\}(?:\s*\[[^\]]*\])?")
_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_CUT = re.compile(r"(?m)^[ \t]*\\(?:titledquestion|question|section|subsection)(?![A-Za-z])")
BLOCK_MACROS = ("answer", "ans", "ifans", "solution")
BLOCK_ENVS = ("answer", "solution", "ans")
EXAM_MACROS = (MacroSpec("titledquestion", "{["), MacroSpec("question", "["), MacroSpec("part", "["),
               MacroSpec("subpart", "["), MacroSpec("subsubpart", "["), MacroSpec("subfile", "{"),
               MacroSpec("paragraph", "*[{"),      # pylatexenc's default reads \paragraph without its title
               *(MacroSpec(name, "{") for name in BLOCK_MACROS))
EXAM_ENVS = (EnvironmentSpec("parts"), EnvironmentSpec("subparts"), EnvironmentSpec("questions"),
             EnvironmentSpec("mdframed", "["), EnvironmentSpec("enumerate", "["),
             *(EnvironmentSpec(name, "[") for name in BLOCK_ENVS))


@functools.cache
def _context() -> Any:
    db = get_default_latex_context_db()
    db.add_context_category("exam-template", prepend=True, macros=list(EXAM_MACROS),
                            environments=list(EXAM_ENVS))
    db.test_for_specials = specials_finder(db)
    return db


def _cuts(text: str, start: int) -> list[int]:
    """Where the body from ``start`` is cut into pieces of at least :data:`CHUNK_CHARS`: only
    before a line's question or section command (a template's ``parts`` never spans one)."""
    cuts = [start]
    while len(text) - cuts[-1] > CHUNK_CHARS:
        found = _CUT.search(text, cuts[-1] + CHUNK_CHARS)
        if found is None:
            break
        cuts.append(found.start())
    return cuts + [len(text)]


def _shift(node: Any, offset: int, seen: set[int]) -> None:
    """Move ``node`` and everything under it by ``offset`` characters (a piece's nodes -> the file's)."""
    if node is None or id(node) in seen:
        return
    seen.add(id(node))
    node.pos += offset
    for children in _children(node):
        for child in children:
            _shift(child, offset, seen)


def _parse(piece: str) -> list:
    try:
        walker = Walker(piece, latex_context=_context(), tolerant_parsing=True)
        found, _, _ = walker.get_latex_nodes(pos=0)
    except (LatexWalkerError, RecursionError, IndexError, ValueError):
        return []
    return [n for n in found if n is not None]


@functools.lru_cache(maxsize=8)
def _walk(text: str) -> tuple[tuple, int]:
    begin = _DOCUMENT.search(text)
    start = begin.start() if begin else 0
    out: list = []
    cuts = _cuts(text, start)
    for a, b in zip(cuts, cuts[1:]):
        if b - start > WALK_BUDGET_CHARS:
            if a > start:
                return tuple(out), a
            b = text.rfind("\n", a, start + WALK_BUDGET_CHARS) + 1 or start + WALK_BUDGET_CHARS
        seen: set[int] = set()
        for node in _parse(text[a:b]):
            if a:                     # a piece from the file's first character is where it is
                _shift(node, a, seen)
            out.append(node)
        if b < cuts[1]:
            return tuple(out), b      # one piece longer than the budget: read up to it
    return tuple(out), len(text)


@functools.lru_cache(maxsize=64)
def _fragment(text: str) -> tuple:
    return tuple(_parse(text))


def fragment(text: str) -> list:
    """The nodes of a short text (an answer block, a part, an item), positions in ``text``: the
    document's own nodes when ``text`` is a range of a parsed document that they tile exactly
    (:func:`known_range`), else ``text`` parsed whole (the last few kept, since a block is read for
    its Markdown, its tables and its items)."""
    found, source, start = _view(text)
    return list(found) if source is None else [_moved(node, start) for node in found]


def _view(text: str) -> tuple[list | tuple, str | None, int]:
    """The nodes :func:`fragment` gives ``text``, uncopied: the document's own nodes (not to be
    changed), the document and where ``text`` starts in it; else ``text``'s own parse, None, 0.
    For readers that only look (:func:`list_items`)."""
    known = _RANGES.get(text)
    if known is not None:
        doc, start = known
        found = _tiling(nodes(doc), start, start + len(text))
        if found is not None:
            return found, doc, start
    return _fragment(text), None, 0


MAX_RANGES = 512
_RANGES: dict[str, tuple[str, int]] = {}
"""Texts known to be a range of a document (``doc[start:start + len(text)]``), by text."""


def known_range(doc: str, start: int, end: int) -> None:
    """Note that ``doc[start:end]`` is that range of ``doc``: :func:`fragment` then reads it from the
    document's parse instead of parsing it again."""
    if 0 <= start < end <= len(doc):
        piece = doc[start:end]
        _RANGES.pop(piece, None)          # the latest document's (kept parsed), not an older one's
        if len(_RANGES) >= MAX_RANGES:
            _RANGES.pop(next(iter(_RANGES)))
        _RANGES[piece] = (doc, start)


def _children(node: Any) -> list[list]:
    """The lists of nodes under ``node``: its own list, and each argument (a list of one)."""
    lists = [node.nodelist] if getattr(node, "nodelist", None) else []
    argd = getattr(node, "nodeargd", None)
    return lists + [[arg] for arg in (getattr(argd, "argnlist", None) or ()) if arg is not None]


def _tiling(items: list | tuple, start: int, end: int) -> list | None:
    """The nodes, in ``items`` or under one of them, that tile ``[start, end)`` exactly (end to end,
    nothing left out); None when no list of nodes does."""
    inside = [n for n in items if n is not None and start <= n.pos and n.pos + n.len <= end]
    if inside and inside[0].pos == start and inside[-1].pos + inside[-1].len == end and \
            all(a.pos + a.len == b.pos for a, b in zip(inside, inside[1:])):
        return inside
    taken = {id(n) for n in inside}
    for node in items:
        if node is not None and node.pos <= start and end <= node.pos + node.len and id(node) not in taken:
            for child in _children(node):
                found = _tiling(child, start, end)
                if found is not None:
                    return found
    return None


def _moved(node: Any, offset: int) -> Any:
    """A copy of ``node`` and everything under it, ``offset`` characters earlier."""
    if node is None:
        return None
    moved = _copy(node)
    moved.pos = node.pos - offset
    if getattr(node, "nodelist", None):
        moved.nodelist = [_moved(child, offset) for child in node.nodelist]
    argd = getattr(node, "nodeargd", None)
    if argd is not None and getattr(argd, "argnlist", None):
        moved.nodeargd = _copy(argd)
        moved.nodeargd.argnlist = [_moved(arg, offset) for arg in argd.argnlist]
    return moved


def _copy(obj: Any) -> Any:
    """A shallow copy of a pylatexenc node or of its parsed arguments: what ``copy.copy`` makes of
    these plain objects (a new instance, the same attributes), without its generic machinery."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def clear_caches() -> None:
    """Forget every kept parse (the reader's benchmark, between writeups)."""
    _walk.cache_clear()
    _fragment.cache_clear()
    _RANGES.clear()


def nodes(text: str) -> tuple:
    """The top-level nodes of ``text``'s body (none when the parser gives up); a document's
    structure and its answer blocks are read from one parse."""
    return _walk(text)[0]


def read_to(text: str) -> int:
    """Where the structure read of ``text`` ends (``len(text)`` when the whole file was read)."""
    return _walk(text)[1]


@dataclass(frozen=True)
class Marker:
    """One structural command of the template: what (``question``, ``part``, ``subpart``,
    ``end_parts``, ``end_subparts``), where it starts and ends, and a question's title."""

    kind: str
    start: int
    end: int
    title: str = ""


def _arg_text(text: str, node: LatexMacroNode, k: int) -> str | None:
    args = node.nodeargd.argnlist if node.nodeargd is not None else []
    arg = args[k] if k < len(args) else None
    if arg is None:
        return None
    inner = text[arg.pos:arg.pos + arg.len]
    return inner[1:-1] if isinstance(arg, LatexGroupNode) else inner


def end_tag(text: str, node: LatexEnvironmentNode) -> int:
    """Where an environment's ``\\end{...}`` starts."""
    return text.rfind("\\end", node.pos, node.pos + node.len)


def begin_tag_end(text: str, node: LatexEnvironmentNode) -> int:
    """Where an environment's body starts: after ``\\begin{name}`` and its optional ``[...]``."""
    begin = _BEGIN.match(text, node.pos)
    return begin.end() if begin else node.pos


def markers(text: str) -> list[Marker]:
    """The template's structure in document order (answer blocks are not entered)."""
    out: list[Marker] = []

    def walk(items: list | tuple) -> None:
        for node in items:
            if node is None:
                continue
            if isinstance(node, LatexMacroNode):
                name = node.macroname
                if name == "titledquestion":
                    out.append(Marker("question", node.pos, node.pos + node.len, _arg_text(text, node, 0) or ""))
                elif name == "question":
                    out.append(Marker("question", node.pos, node.pos + node.len))
                elif name in ("part", "subpart"):
                    out.append(Marker(name, node.pos, node.pos + node.len))
            elif isinstance(node, LatexEnvironmentNode):
                walk(node.nodelist)
                if node.environmentname in ("parts", "subparts"):
                    out.append(Marker(f"end_{node.environmentname}", end_tag(text, node), node.pos + node.len))
            elif isinstance(node, LatexGroupNode):
                walk(node.nodelist)

    walk(nodes(text))
    return sorted(out, key=lambda m: m.start)


def answer_blocks(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every answer block of ``text``: the macros' braced argument, the
    environments' body (also inside ``mdframed`` or any other environment or group)."""
    out: list[tuple[int, int, str]] = []

    def walk(items: list | tuple) -> None:
        for node in items:
            if node is None:
                continue
            if isinstance(node, LatexMacroNode) and node.macroname in BLOCK_MACROS:
                content = _arg_text(text, node, 0)
                if content is not None:
                    arg = node.nodeargd.argnlist[0]
                    start = arg.pos + (1 if isinstance(arg, LatexGroupNode) else 0)
                    known_range(text, start, start + len(content))
                    out.append((node.pos, node.pos + node.len, content))
            elif isinstance(node, LatexEnvironmentNode):
                if node.environmentname in BLOCK_ENVS:
                    start = begin_tag_end(text, node)
                    end = max(start, end_tag(text, node))
                    known_range(text, start, end)
                    out.append((node.pos, node.pos + node.len, text[start:end]))
                else:
                    walk(node.nodelist)
            elif isinstance(node, LatexGroupNode):
                walk(node.nodelist)

    walk(nodes(text))
    return sorted(out)


def list_items(text: str, environment: str) -> list[tuple[int, str]]:
    """(offset, text) of each top-level ``\\item`` of the first ``environment`` list in ``text``
    (the text after the item's command and label, up to the next item or the list's end)."""
    def first(items: list | tuple) -> LatexEnvironmentNode | None:
        for node in items:
            if isinstance(node, LatexEnvironmentNode) and node.environmentname == environment:
                return node
            if isinstance(node, (LatexEnvironmentNode, LatexGroupNode)):
                found = first(node.nodelist)
                if found is not None:
                    return found
        return None

    found_nodes, source, shift = _view(text)
    env = first(found_nodes)
    if env is None:
        return []
    items = [n for n in env.nodelist if isinstance(n, LatexMacroNode) and n.macroname == "item"]
    ends = [n.pos - shift for n in items[1:]] + [end_tag(source or text, env) - shift]
    found = [(n.pos + n.len - shift, text[n.pos + n.len - shift:end]) for n, end in zip(items, ends)]
    known = _RANGES.get(text)
    if known is not None:
        doc, start = known
        for offset, item in found:
            known_range(doc, start + offset, start + offset + len(item))
    return found


INCLUDES = ("input", "include", "subfile")


def inputs(text: str) -> list[str]:
    """The files ``text``'s body includes (``\\input{q1}``, ``\\include``, ``\\subfile``), in order."""
    out: list[str] = []

    def walk(items: list | tuple) -> None:
        for node in items:
            if isinstance(node, LatexMacroNode) and node.macroname in INCLUDES:
                name = (_arg_text(text, node, 0) or "").strip()
                if name and not any(ch.isspace() or ch in "{}" for ch in name):
                    out.append(name)
            elif isinstance(node, (LatexEnvironmentNode, LatexGroupNode)):
                walk(node.nodelist)

    if any(f"\\{word}" in text for word in INCLUDES):
        walk(nodes(text))
    return out
