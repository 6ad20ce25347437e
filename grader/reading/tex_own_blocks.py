"""Answer blocks a student declares for themselves in a LaTeX writeup.

The course template marks answers with ``\\ifans{...}``, ``\\answer{...}`` or an ``answer``
environment (:mod:`grader.reading.tex_walk`). Students who write their own preamble declare blocks
of their own, and answer in them as surely:

- a conditional of their own, ``\\newif\\ifans`` (or ``\\ifanswers``, ``\\ifsolutions``), used as
  ``\\ifans ... \\fi`` with no braces (the text up to ``\\else`` or ``\\fi`` is the answer);
- an environment of their own for the answer box: ``\\newtcolorbox{sol}{... title=My answer}``,
  ``\\newmdenv{ansbox}``, ``\\newenvironment{solution*}``, ``\\newtheorem{sol}{Solution}``; an
  environment is an answer block when its name starts with an answer word (``sol``, ``ans``,
  ``answer``, ``solution``, ``response``) or its definition in the document gives it one as its
  title.

What the reader finds here it reads as it reads ``\\ifans{}`` (:func:`a2.written.tex_exam.every_block`),
so the prompt around such a block is never taken for the answer.
"""

from __future__ import annotations

import re

from pylatexenc.latexwalker import LatexEnvironmentNode, LatexGroupNode, LatexMacroNode

from grader.reading import tex_walk
from grader.reading.answer_words import ANSWER, SOLUTION, alternation

_ANSWER_NAME = re.compile(r"(?:my)?(?:ans|answers?|sol|soln|solutions?|response)(?:box|env)?\*?", re.I)
"""An environment or conditional named as an answer (``sol``, ``ansbox``, ``mysolution``)."""
_NEWIF = re.compile(r"\\newif\s*\\if([A-Za-z]+)")
_BOX_DEF = re.compile(r"\\(?:newtcolorbox|NewTColorBox|DeclareTColorBox|newmdenv|newenvironment|renewenvironment|"
                      r"NewDocumentEnvironment|newtheorem)\*?\s*(?:\[[^\]]*\]\s*)?\{([A-Za-z*]+)\}([^\n]*)")
_TITLE_WORD = re.compile(alternation(ANSWER, SOLUTION), re.I)
_ENDS = frozenset({"part", "subpart", "subsubpart", "question", "titledquestion"})
"""A conditional block never runs past the next part: its ``\\fi`` must come first."""


def answer_environments(text: str) -> frozenset[str]:
    """The environments of ``text``'s own preamble whose definition titles them as an answer."""
    return frozenset(m.group(1) for m in _BOX_DEF.finditer(text) if _TITLE_WORD.search(m.group(2)))


def is_answer_environment(name: str, declared: frozenset[str] = frozenset()) -> bool:
    return name in declared or (name not in tex_walk.BLOCK_ENVS and bool(_ANSWER_NAME.fullmatch(name)))


def own_blocks(text: str) -> list[tuple[int, int, str]]:
    """(start, end, content) of every block ``text`` declares for itself (see the module's doc)."""
    conditionals = set(_NEWIF.findall(text))
    declared = answer_environments(text)
    out: list[tuple[int, int, str]] = []

    def conditional(node: object) -> str | None:
        if not isinstance(node, LatexMacroNode) or not node.macroname.startswith("if"):
            return None
        name = node.macroname[2:]
        if name not in conditionals and not _ANSWER_NAME.fullmatch(name):
            return None
        args = node.nodeargd.argnlist if node.nodeargd is not None else []
        braced = any(isinstance(a, LatexGroupNode) for a in args if a is not None)
        # \ifans{...} is the template's macro; it is a conditional only where the document declares it so
        return None if braced and name not in conditionals else name

    def walk(items: list | tuple) -> None:
        items = [n for n in items if n is not None]
        for k, node in enumerate(items):
            if conditional(node) is not None:
                start = node.pos + len(node.macroname) + 1
                stop = else_at = None
                for later in items[k + 1:]:
                    if isinstance(later, LatexMacroNode) and later.macroname in _ENDS:
                        break
                    if isinstance(later, LatexMacroNode) and later.macroname == "else" and else_at is None:
                        else_at = later.pos
                    if isinstance(later, LatexMacroNode) and later.macroname == "fi":
                        stop = later
                        break
                if stop is not None:
                    end = else_at if else_at is not None else stop.pos
                    tex_walk.known_range(text, start, end)
                    out.append((node.pos, stop.pos + stop.len, text[start:end]))
            elif isinstance(node, LatexEnvironmentNode):
                if is_answer_environment(node.environmentname, declared):
                    start = tex_walk.begin_tag_end(text, node)
                    end = max(start, tex_walk.end_tag(text, node))
                    tex_walk.known_range(text, start, end)
                    out.append((node.pos, node.pos + node.len, text[start:end]))
                else:
                    walk(node.nodelist)
            elif isinstance(node, LatexGroupNode):
                walk(node.nodelist)

    if conditionals or declared or "\\begin" in text or "\\if" in text:
        walk(tex_walk.nodes(text))
    return out


def merged(blocks: list[tuple[int, int, str]], own: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """``blocks`` and ``own`` together; a block of ``blocks`` that starts inside one of ``own`` (the
    template's ``\\ifans`` read as a macro with one argument, where it opens a conditional) is dropped."""
    if not own:
        return blocks
    kept = [b for b in blocks if not any(s <= b[0] < e for s, e, _ in own)]
    return sorted(kept + own)
