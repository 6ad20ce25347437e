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
    LatexWalker,
    LatexWalkerError,
    get_default_latex_context_db,
)
from pylatexenc.macrospec import EnvironmentSpec, MacroSpec

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
               *(MacroSpec(name, "{") for name in BLOCK_MACROS))
EXAM_ENVS = (EnvironmentSpec("parts"), EnvironmentSpec("subparts"), EnvironmentSpec("questions"),
             EnvironmentSpec("mdframed", "["), EnvironmentSpec("enumerate", "["),
             *(EnvironmentSpec(name, "[") for name in BLOCK_ENVS))


@functools.cache
def _context() -> Any:
    db = get_default_latex_context_db()
    db.add_context_category("exam-template", prepend=True, macros=list(EXAM_MACROS),
                            environments=list(EXAM_ENVS))
    db.test_for_specials = _specials_finder(db)
    return db


def _specials_finder(db: Any) -> Any:
    """``db.test_for_specials`` answered from a table by first character: the same answer (the
    longest specials at ``pos``; of equal lengths, the one of the earliest category), without
    trying every specials of every category at every character (a third of a parse's time)."""
    table: dict[str, list[tuple[int, int, str, Any]]] = {}
    for rank, cat in enumerate(db.category_list):
        for chars, spec in db.d[cat]["specials"].items():
            table.setdefault(chars[0], []).append((-len(chars), rank, chars, spec))
    ordered = {ch: [(chars, spec) for _, _, chars, spec in sorted(found, key=lambda e: e[:2])]
               for ch, found in table.items()}

    def test_for_specials(s: str, pos: int, parsing_state: Any = None) -> Any:
        for chars, spec in ordered.get(s[pos:pos + 1], ()):
            if s.startswith(chars, pos):
                return spec
        return None
    return test_for_specials


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
    for child in getattr(node, "nodelist", None) or ():
        _shift(child, offset, seen)
    argd = getattr(node, "nodeargd", None)
    for arg in (getattr(argd, "argnlist", None) or ()) if argd is not None else ():
        _shift(arg, offset, seen)


def _parse(piece: str) -> list:
    try:
        walker = LatexWalker(piece, latex_context=_context(), tolerant_parsing=True)
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
            _shift(node, a, seen)
            out.append(node)
        if b < cuts[1]:
            return tuple(out), b      # one piece longer than the budget: read up to it
    return tuple(out), len(text)


@functools.lru_cache(maxsize=64)
def _fragment(text: str) -> tuple:
    return tuple(_parse(text))


def fragment(text: str) -> list:
    """The nodes of a short text (an answer block, a section's body), parsed whole; the last
    few are kept, since a block is read for its Markdown, its tables and its items."""
    return list(_fragment(text))


def clear_caches() -> None:
    """Forget every kept parse (the reader's benchmark, between writeups)."""
    _walk.cache_clear()
    _fragment.cache_clear()


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
                    out.append((node.pos, node.pos + node.len, content))
            elif isinstance(node, LatexEnvironmentNode):
                if node.environmentname in BLOCK_ENVS:
                    start = begin_tag_end(text, node)
                    out.append((node.pos, node.pos + node.len, text[start:max(start, end_tag(text, node))]))
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

    env = first(fragment(text))
    if env is None:
        return []
    items = [n for n in env.nodelist if isinstance(n, LatexMacroNode) and n.macroname == "item"]
    ends = [n.pos for n in items[1:]] + [end_tag(text, env)]
    return [(n.pos + n.len, text[n.pos + n.len:end]) for n, end in zip(items, ends)]


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
