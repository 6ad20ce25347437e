"""Text that came from student code, made safe to show: bounded in length, and printable.

Whatever the worker sends (a returned value's repr, an optimizer's or loss's name, an import
error's name, an exception's message, printed output) may be megabytes long, hold terminal escape
codes that would act on the instructor's terminal, Rich markup (``[/]``) that would make a
console raise, or lone surrogates (``\\ud800``) that no UTF-8 stream can write. Every such
string passes :func:`printable` and :func:`cut` before a report holds it: control characters,
bidirectional overrides and surrogates become visible escapes (``\\x1b``), and what is cut
says how much (``... [cut: 83 MB more]``). Rich markup needs no escaping once text is passed
as :class:`rich.text.Text` or printed with ``markup=False`` (the reporters do).
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Iterable
from typing import Any

MAX_LINE_CHARS = 2_000
"""Longest feedback line kept."""
MAX_CHECK_OUTPUT_CHARS = 20_000
"""Longest feedback of one check (all its lines together)."""
MAX_NOTE_CHARS = 1_000
"""Longest note of a report (a note may quote a file name from the upload)."""
MAX_REPLY_STRING_CHARS = 10_000
"""Longest string kept from a worker's reply (names, messages, printed output)."""

# C0 controls but tab and newline, DEL, C1 controls, bidi overrides and isolates, lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_BRIEF = reprlib.Repr()
_BRIEF.maxlist = _BRIEF.maxtuple = _BRIEF.maxdict = _BRIEF.maxset = 8
_BRIEF.maxstring = _BRIEF.maxother = 200
_BRIEF.maxlevel = 3


def brief(value: Any) -> str:
    """A short repr of a value student code returned (a list of ten million floats is shown by
    its first few), printable; never the whole repr, whose making alone could take minutes."""
    try:
        text = _BRIEF.repr(value)
    except Exception:  # a value's repr is ours here (decoded data), but be sure
        text = f"<a {type(value).__name__}>"
    return safe(text, MAX_LINE_CHARS)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character, bidi override and lone surrogate shown as an escape
    (``\\x1b``, ``\\u202e``, ``\\ud800``); newlines and tabs are kept."""
    return _UNSAFE.sub(_escape, text)


def size_words(count: int, unit: str = "characters") -> str:
    """``83 MB`` for large counts of characters (as bytes of text), else ``120 characters``."""
    if count >= 10**6:
        return f"{count / 10**6:.0f} MB"
    if count >= 10**4:
        return f"{count / 10**3:.0f} kB"
    return f"{count} {unit}"


CUT_NOTE_CHARS = 40
"""Room kept for the note that says what was cut (so a cut text is at most its limit, and
cutting it again changes nothing)."""


def cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with what was cut."""
    if len(text) <= limit:
        return text
    keep = max(limit - CUT_NOTE_CHARS, 0)
    return text[:keep] + f" ... [cut: {size_words(len(text) - keep)} more]"


def safe(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """Printable and cut: what a report may hold of a string from student code. Cut first, so
    that the work is bounded whatever the length."""
    return printable(cut(str(text), limit))


def safe_lines(lines: Iterable[str], *, line_limit: int = MAX_LINE_CHARS,
               total_limit: int = MAX_CHECK_OUTPUT_CHARS) -> tuple[str, ...]:
    """Feedback lines, each :func:`safe`, and together at most ``total_limit`` characters; the
    last kept line says how many were left out."""
    kept: list[str] = []
    used = 0
    lines = list(lines)
    for index, line in enumerate(lines):
        shown = safe(line, line_limit)
        if used + len(shown) > total_limit:
            rest = sum(len(str(other)) for other in lines[index:])
            kept.append(f"... [cut: {len(lines) - index} more line(s), {size_words(rest)}]")
            break
        kept.append(shown)
        used += len(shown) + 1
    return tuple(kept)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:])")


def markdown_text(text: str) -> str:
    """``text`` for a Markdown report (summary.md, feedback/*.md), shown as the text it is on one
    line: HTML (``<img onerror=...>``) as characters, every Markdown mark escaped (an image link
    ``![x](http://...)`` stays text), table cells unbroken."""
    text = printable(" ".join(str(text).split()))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
