"""Meaning-preserving transforms of a writeup: what students vary without changing an answer.

Each transform is (name, the files it applies to, the rewrite). A rewrite never changes what an
answer says: line endings, spaces, Unicode spellings of the same symbol, LaTeX that renders the
same, another heading level or math delimiter. tests/test_written_transforms.py applies each to the
generated corpus and to the real writeups and asserts the verdicts do not move.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import written_transforms_shapes as shapes


@dataclass(frozen=True)
class Transform:
    name: str
    kinds: frozenset[str]            # "md", "txt", "tex": the files it applies to
    rewrite: Callable[[str], str]
    rename: Callable[[str], str] | None = None     # the file's new name (None: kept)


def _kind(name: str) -> str:
    low = name.lower()
    return "tex" if low.endswith(".tex") else "txt" if low.endswith(".txt") else "md"


_INLINE_DOLLAR = re.compile(r"(?<![$\\])\$(?!\$)([^$\n]+?)(?<!\\)\$(?!\$)")
_DISPLAY_DOLLAR = re.compile(r"^\$\$\s*\n(.+?)\n\s*\$\$\s*$", re.S | re.M)


def _spaced_equals(text: str, space: str) -> str:
    return re.sub(r"(?<=\S) = (?=\S)", f"{space}={space}", text)


def _display_opening(text: str) -> str:
    """``\\displaystyle`` after each display-math opener (``$$``, ``\\[``): it renders the same."""
    text = re.sub(r"\$\$(?=[^$])", r"$$\\displaystyle ", text, count=0)
    return re.sub(r"\$\$\\displaystyle ([^$]*)\$\$\\displaystyle ", r"$$\\displaystyle \1$$", text)


def _outside_math_and_code(text: str, rewrite: Callable[[str], str]) -> str:
    """``rewrite`` applied to the text outside math spans, fenced code and tables' word lists only."""
    from grader.reading.braces import math_groups
    pieces = _FENCED.split(text)          # odd pieces are fenced blocks (code, or GitHub's ```math)
    if len(pieces) > 1:
        return "".join(p if k % 2 else _outside_math_and_code(p, rewrite) for k, p in enumerate(pieces))
    out, pos = [], 0
    for start, end, _body, _display in math_groups(text):
        out.append(rewrite(text[pos:start]))
        out.append(text[start:end])
        pos = end
    out.append(rewrite(text[pos:]))
    return "".join(out)


_FENCED = re.compile(r"(^[ \t]*(?:```|~~~).*?^[ \t]*(?:```|~~~)[ \t]*$)", re.M | re.S)


def _pandoc_escapes(text: str) -> str:
    """What pandoc writes for literal characters of text: ``\\_``, ``\\*`` inside words, ``\\[`` ``\\]``."""
    def escape(chunk: str) -> str:
        chunk = re.sub(r"(?<=\w)_(?=\w)", r"\\_", chunk)
        return re.sub(r"(?<![\\\]])\[([^\[\]\n$]*)\](?![(:])", r"\\[\1\\]", chunk)
    return _outside_math_and_code(text, escape)


def _github_math(text: str) -> str:
    """GitHub's math: ``$$`` blocks on their own lines as ```` ```math ```` fences, ``$x$`` as ``$`x`$``."""
    text = re.sub(r"(?m)^\$\$[ \t]*\n(.+?)\n[ \t]*\$\$[ \t]*$", lambda m: f"```math\n{m.group(1)}\n```", text, flags=re.S)
    return _INLINE_DOLLAR.sub(lambda m: f"$`{m.group(1)}`$" if "`" not in m.group(1) else m.group(0), text)


_NOT_PROSE = re.compile(r"^\s*(?:#|\||\$\$|```|>|-{3,}|\\\[|\\\]|\d+\.\s|[-*+]\s|\s{4})")


def _hard_wrap(text: str, width: int = 72) -> str:
    """Paragraph lines longer than ``width`` broken at spaces (inside inline math too), as an editor's
    hard wrap does; headings, tables, list items, display math and code are left as they are."""
    out: list[str] = []
    in_block = False
    for line in text.split("\n"):
        if line.strip().startswith(("$$", "```")) and line.strip().count("$$") != 2:
            in_block = not in_block
        if in_block or len(line) <= width or _NOT_PROSE.match(line) or "\\begin" in line:
            out.append(line)
            continue
        current = ""
        for word in line.split(" "):
            if current and len(current) + 1 + len(word) > width and not re.match(r"[-+*#>|]|\d+[.)]", word):
                out.append(current)
                current = word
            else:
                current = f"{current} {word}" if current else word
        out.append(current)
    return "\n".join(out)


def _by_line(text: str, rewrite: Callable[[str], str]) -> str:
    return "\n".join(rewrite(line) for line in text.split("\n"))


def _paren_inline(line: str) -> str:
    """``$x$`` as ``\\(x\\)`` on a line whose dollars pair up (a formula hard-wrapped over two lines
    or GitHub's `` $`x`$ `` is left as it is: rewriting half of one is not the same answer)."""
    if line.count("$") % 2 or "$`" in line:
        return line
    return _INLINE_DOLLAR.sub(r"\\(\1\\)", line)


def _renamed(name: str) -> str:
    """The file names students choose: ``a2_answer.md``, ``p1.txt`` -> ``p1 answers.txt``."""
    path = name.rsplit("/", 1)
    base = path[-1]
    new = "a2_answer.md" if base == "answers.md" else base.replace(".txt", " answers.txt")
    return "/".join([*path[:-1], new])


def _notebook(text: str) -> str:
    """The Markdown as the one Markdown cell of a Jupyter notebook (saved as .ipynb)."""
    import json
    return json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": text.splitlines(True)},
                                 {"cell_type": "code", "metadata": {}, "source": ["import numpy as np\n"],
                                  "outputs": [], "execution_count": 1}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)


_FORMULA_LINE = re.compile(r"(?m)^(?![#|>\s-]|\d+\.|\$\$|```)(.*(?:=|∂|\\partial).*)$")


def _in_callouts(text: str) -> str:
    """Each line of a formula (outside headings, tables, lists, display blocks, code) in an Obsidian callout."""
    out, inside = [], False
    for line in text.split("\n"):
        opens = line.count("$$") % 2 == 1 or line.strip().startswith(("```", "\\[", "\\]"))
        if not (inside or opens) and _FORMULA_LINE.fullmatch(line) and "$" not in line.replace("$$", ""):
            line = f"> [!answer]\n> {line}\n"
        out.append(line)
        inside = inside != opens
    return "\n".join(out)


def _struck_draft(text: str) -> str:
    """A struck-through draft (``~~...~~``) after every heading: deleted text, never an answer."""
    return re.sub(r"(?m)^(#{1,6} .*)$", "\\1\n\n~~draft: y = 0, to redo~~\n", text)


TRANSFORMS: tuple[Transform, ...] = (
    Transform("CRLF line endings", frozenset({"md", "txt", "tex"}), lambda t: t.replace("\n", "\r\n")),
    Transform("trailing spaces and tabs", frozenset({"md", "txt", "tex"}),
              lambda t: re.sub(r"(?m)(\S)$", "\\1 \t", t)),
    Transform("non-breaking spaces around =", frozenset({"md", "txt", "tex"}), lambda t: _spaced_equals(t, "\u00a0")),
    Transform("zero-width spaces", frozenset({"md", "txt", "tex"}), lambda t: t.replace(" = ", " =\u200b ")),
    Transform("byte order mark", frozenset({"md", "txt", "tex"}), lambda t: "\ufeff" + t),
    Transform("smart quotes in prose", frozenset({"md", "txt", "tex"}),
              lambda t: re.sub(r"(?<=[a-z])'(?=[a-z])", "\u2019", re.sub(r"\"([A-Za-z][^\"\n$]*)\"", "\u201c\\1\u201d", t))),
    Transform("Unicode minus in formulas", frozenset({"md", "txt", "tex"}),
              lambda t: re.sub(r"(?<=[\w})]) - (?=[\w\\({])", " \u2212 ", t)),
    Transform("\\dfrac for \\frac", frozenset({"md", "tex"}), lambda t: re.sub(r"\\frac(?![A-Za-z])", r"\\dfrac", t)),
    Transform("extra braces around a hat", frozenset({"md", "tex"}),
              lambda t: re.sub(r"\\hat\{([^{}]+)\}", r"{\\hat{\1}}", t)),
    Transform("\\displaystyle in display math", frozenset({"md"}), _display_opening),
    Transform("\\( \\) for inline $", frozenset({"md"}), lambda t: _by_line(t, _paren_inline)),
    Transform("\\[ \\] for display $$", frozenset({"md"}), lambda t: _DISPLAY_DOLLAR.sub(r"\\[\n\1\n\\]", t)),
    Transform("deeper headings", frozenset({"md"}), lambda t: re.sub(r"(?m)^(#{1,5}) ", r"#\1 ", t)),
    Transform("blank line after every heading", frozenset({"md"}), lambda t: re.sub(r"(?m)^(#{1,6} .*)$", "\\1\n", t)),
    Transform("GitHub math (```math fences, $`...`$)", frozenset({"md"}), _github_math),
    Transform("pandoc escapes in text (\\_, \\[ \\])", frozenset({"md"}), _pandoc_escapes),
    Transform("hard wraps at 72 columns", frozenset({"md"}), _hard_wrap),
    Transform("a bracket's index without _ ((xW + b_1)i)", frozenset({"md", "txt", "tex"}),
              lambda t: re.sub(r"([)\]])_([ijk])(?![A-Za-z0-9_{])", r"\1\2", t)),
    Transform("a Jupyter notebook's Markdown cell", frozenset({"md"}), _notebook,
              rename=lambda n: n.rsplit(".", 1)[0] + ".ipynb"),
    Transform("formula lines inside > [!answer] callouts", frozenset({"md"}), _in_callouts),
    Transform("a struck-through draft after each heading", frozenset({"md"}), _struck_draft),
    Transform("cases as \\left\\{\\begin{array} ... \\right.", frozenset({"md", "tex"}),
              lambda t: re.sub(r"\\end\{cases\}", r"\\end{array}\\right.",
                               re.sub(r"\\begin\{cases\}", r"\\left\\{\\begin{array}{ll}", t))),
    Transform("the student's own file names", frozenset({"md", "txt"}), lambda t: t, rename=_renamed),
    Transform("final answers moved to a summary table", frozenset({"md", "txt"}), shapes.summary_table),
    Transform("final answers moved to an HTML summary table", frozenset({"md"}), shapes.html_summary_table),
    Transform("3(f) in prose, not labelled fields", frozenset({"md", "txt", "tex"}), shapes.errors_in_prose),
    Transform("a wrong draft in an HTML comment above each display", frozenset({"md"}), shapes.html_commented_drafts),
    Transform("\\tag{k} on every display", frozenset({"md", "tex"}), shapes.tagged_displays),
    Transform("a full stop inside each display", frozenset({"md", "tex"}), shapes.displays_end_with_a_period),
    Transform("\\left( \\right) brackets in math", frozenset({"md", "tex", "txt"}), shapes.sized_brackets),
    Transform("transposes as ^{\\intercal}", frozenset({"md", "tex", "txt"}), shapes.transposes_as_intercal),
    Transform("the template's answers in blue", frozenset({"tex"}), shapes.answers_in_colour),
    Transform("LaTeX displays as align* with &=", frozenset({"tex"}), shapes.displays_as_align),
    Transform("a commented-out wrong draft above each LaTeX display", frozenset({"tex"}), shapes.commented_drafts),
    Transform("the template's \\ifans{} replaced by a bold Answer:", frozenset({"tex"}), shapes.answers_marked_not_wrapped),
    *(Transform(f"question words and labels in {name}", frozenset({"md", "txt", "tex"}), shapes.in_language(name))
      for name in shapes.LANGUAGES),
)
"""Meaning-preserving transforms, each applied on its own."""


def apply(transform: Transform, files: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for name, text in files:
        if _kind(name) in transform.kinds:
            name, text = (transform.rename or (lambda n: n))(name), transform.rewrite(text)
        out.append((name, text))
    return out
