"""The one group scanner of the written-answer reader: braces, brackets and parentheses.

Every module that needs "where does this group end" asks here, so escapes and nesting mean the
same thing everywhere:

* A backslash escapes the character after it: ``\\{`` and ``\\}`` are not braces of a ``{...}``
  group, and ``\\\\`` is one (row-break) token, so ``\\\\}`` still closes a group.
* An escaped pair ``\\{ ... \\}`` (a set, an indicator's condition) is a group of its own:
  :func:`closing` at a ``\\{`` finds its ``\\}``, counting nested ones.
* :func:`scan` walks a formula and says which characters are at the top level: outside every
  ``{}``/``()``/``[]``, every ``\\{ \\}`` pair and every atomic environment (``cases``, matrices).
"""

from __future__ import annotations

from collections.abc import Iterator

PAIRS = {"{": "}", "(": ")", "[": "]"}
ATOMIC_ENVS = ("cases", "dcases", "rcases", "bmatrix", "pmatrix", "matrix", "vmatrix", "Bmatrix")
"""Environments whose inside is never split (a chain's ``=`` or ``\\\\`` inside them is theirs)."""


def closing(text: str, start: int) -> int:
    """Index of what closes the group opening at ``start`` (``{``, ``(``, ``[`` or ``\\{``), or -1.

    For ``\\{`` the index is that of the backslash of its ``\\}``."""
    if text.startswith("\\{", start):
        depth, i = 0, start
        while i < len(text) - 1:
            pair = text[i:i + 2]
            if pair == "\\{":
                depth += 1
            elif pair == "\\}":
                depth -= 1
                if depth == 0:
                    return i
            i += 2 if text[i] == "\\" else 1
        return -1
    opening = text[start]
    close = PAIRS[opening]
    depth, i = 0, start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == opening:
            depth += 1
        elif ch == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def opening(text: str, end: int) -> int:
    """Index of the bracket that the ``)`` or ``]`` at ``end`` closes, or -1."""
    close = text[end]
    opener = {")": "(", "]": "["}[close]
    depth = 0
    for k in range(end, -1, -1):
        if k and text[k - 1] == "\\":
            continue
        if text[k] == close:
            depth += 1
        elif text[k] == opener:
            depth -= 1
            if depth == 0:
                return k
    return -1


def group(text: str, start: int) -> tuple[str, int] | None:
    """The content of the ``{...}`` at ``start`` and the index after it (None if unclosed)."""
    if start >= len(text) or text[start] != "{":
        return None
    end = closing(text, start)
    return (text[start + 1:end], end + 1) if end >= 0 else None


def scan(text: str) -> Iterator[tuple[int, str, bool]]:
    """(index, character, at top level) for every character of ``text`` a split may happen at."""
    depth = env_depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and (text.startswith("begin{", i + 1) or text.startswith("end{", i + 1)):
            stop = text.find("}", i)
            name = text[text.find("{", i) + 1:stop] if stop > 0 else ""
            if name in ATOMIC_ENVS:
                env_depth += 1 if text[i + 1] == "b" else -1
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in "{}":
                depth += 1 if nxt == "{" else -1
                i += 2
                continue
            if nxt in "[]()":
                i += 2
                continue
            yield i, ch, depth == 0 and env_depth == 0
            i += 1
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
        yield i, ch, depth == 0 and env_depth == 0 and ch not in "})]"
        i += 1


def top_level_split(text: str, seps: tuple[str, ...]) -> list[str]:
    """``text`` split at separators that are at the top level (see :func:`scan`)."""
    if not any(sep in text for sep in seps):
        return [text]                     # nothing to split at (most lines): no scan
    parts: list[str] = []
    last = skip_to = 0
    for i, _ch, top in scan(text):
        if i < skip_to or not top:
            continue
        for sep in seps:
            if text.startswith(sep, i) and not (sep == "=" and i and text[i - 1] in "<>!:\\"):
                parts.append(text[last:i])
                last = skip_to = i + len(sep)
                break
    parts.append(text[last:])
    return parts


def depth(text: str) -> int:
    """The deepest nesting of brackets of any kind in ``text``."""
    level = best = 0
    for ch in text:
        if ch in "{([":
            level += 1
            best = max(best, level)
        elif ch in "})]":
            level -= 1
    return best


DISPLAY_ENVS = ("equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
                "displaymath")
"""Environments whose body is display math when they appear in a section's text."""


MAX_WRAPS = 2
"""Line breaks an inline ``$...$`` may span (a writeup hard-wrapped at 72 columns), never a blank line."""


def _math_end(text: str, i: int) -> tuple[int, int, int, bool] | None:
    """The math group opening at ``i``: (body start, body end, group end, display), or None."""
    if text.startswith("$$", i):
        stop = text.find("$$", i + 3)
        return (i + 2, stop, stop + 2, True) if stop >= 0 else None
    if text[i] == "$":
        k, wraps = i + 1, 0
        while k < len(text) and text[k] != "$":
            if text[k] == "\n":     # a hard wrap inside a formula; a blank line ends the paragraph
                wraps += 1
                if wraps > MAX_WRAPS or not text[k + 1:text.find("\n", k + 1) % (len(text) + 1)].strip():
                    return None
            k += 2 if text[k] == "\\" else 1
        if k >= len(text) or k == i + 1 or text.startswith("$$", k) or (wraps and text[i + 1].isspace()):
            return None
        return i + 1, k, k + 1, False
    if text.startswith("\\[", i) or text.startswith("\\(", i):
        close = "\\]" if text[i + 1] == "[" else "\\)"
        k = i + 2
        while k < len(text) and not text.startswith(close, k):
            k += 2 if text[k] == "\\" else 1
        return (i + 2, k, k + 2, close == "\\]") if k < len(text) else None
    if text.startswith("\\begin{", i):
        stop = text.find("}", i)
        name = text[i + 7:stop] if stop > 0 else ""
        if name in DISPLAY_ENVS:
            end = text.find(f"\\end{{{name}}}", stop + 2)
            if end >= 0:
                return stop + 1, end, end + len(name) + 6, True
    return None


def math_groups(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """(start, end, body, display) of every math group of ``text`` in order: ``$$..$$``, ``\\[..\\]``,
    the display environments, ``$..$`` (on one line, or hard-wrapped over up to
    :data:`MAX_WRAPS` line breaks) and ``\\(..\\)``. A backslash escapes the
    character after it here as in :func:`closing` (``\\$`` is a dollar, not a delimiter)."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "$" and ch != "\\":
            i += 1
            continue
        found = _math_end(text, i)
        if found is None:
            i += 2 if ch == "\\" or text.startswith("$$", i) else 1
            continue
        body_start, body_end, end, display = found
        yield i, end, text[body_start:body_end], display
        i = end
