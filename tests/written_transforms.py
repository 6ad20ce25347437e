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


@dataclass(frozen=True)
class Transform:
    name: str
    kinds: frozenset[str]            # "md", "txt", "tex": the files it applies to
    rewrite: Callable[[str], str]


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
    Transform("\\( \\) for inline $", frozenset({"md"}), lambda t: _INLINE_DOLLAR.sub(r"\\(\1\\)", t)),
    Transform("\\[ \\] for display $$", frozenset({"md"}), lambda t: _DISPLAY_DOLLAR.sub(r"\\[\n\1\n\\]", t)),
    Transform("deeper headings", frozenset({"md"}), lambda t: re.sub(r"(?m)^(#{1,5}) ", r"#\1 ", t)),
    Transform("blank line after every heading", frozenset({"md"}), lambda t: re.sub(r"(?m)^(#{1,6} .*)$", "\\1\n", t)),
)
"""Meaning-preserving transforms, each applied on its own."""


def apply(transform: Transform, files: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, transform.rewrite(text) if _kind(name) in transform.kinds else text) for name, text in files]
