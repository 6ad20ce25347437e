"""Wiki markup (MediaWiki, what a study group's wiki exports) as the Markdown the reader reads.

A written file of any suffix (students save the page as ``.txt``) is wiki markup when it has the
markup's own headings, ``== Part 1 ==`` (a line of ``=`` runs of the same length around a title),
together with one more of its signs: ``<math>`` elements, a ``{| ... |}`` table, ``'''bold'''`` or
``''italic''``, a ``[[link]]``.
Then, line for line (places keep their line numbers):

* ``=== 1(b) ===`` is the heading ``### 1(b)``;
* ``<math>...</math>`` is ``$...$``, ``$$...$$`` when it spans lines (``<math display="block">``), and an indented ``:<math>`` line
  (the wiki's display idiom) a line of its own;
* ``'''bold'''`` and ``''italic''`` are ``**bold**`` and ``*italic*``;
* ``# item`` and ``* item`` are Markdown list items (``#`` numbered), ``<br />`` a line break;
* a table ``{| ... |}`` with ``!`` header cells, ``|-`` row marks and ``||`` / ``!!`` separators is a
  pipe table; ``__NOTOC__``-style switches and ``[[Category:...]]`` links are dropped.

Character entities (``&rarr;``, ``&minus;``) are the characters they name.
"""

from __future__ import annotations

import html
import re

_HEADING = re.compile(r"^(={1,6})[ \t]*([^=\s].*?)[ \t]*\1[ \t]*$")
"""``== Title ==``; never a line of ``=`` only (Markdown's setext underline, ``======`` under ``Part 1``)."""
_SIGNS = (re.compile(r"<math[\s>]"), re.compile(r"^\{\|", re.M), re.compile(r"''[^'\n]+''"),
          re.compile(r"\[\[[^\]\n]+\]\]"))
_MATH = re.compile(r"<math(?:\s[^>]*)?>(.*?)</math>", re.S)
_BOLD = re.compile(r"'''(.+?)'''")
_ITALIC = re.compile(r"''(.+?)''")
_BREAK = re.compile(r"<br\s*/?>", re.I)
_SWITCH = re.compile(r"^__[A-Z]+__$")
_CATEGORY = re.compile(r"\[\[Category:[^\]]*\]\]")


def is_wikitext(text: str) -> bool:
    """Whether ``text`` is wiki markup: two or more wiki headings and one more sign of the markup."""
    headings = sum(1 for line in text.split("\n") if _HEADING.match(line) and not line.startswith("=" * 7))
    return headings >= 2 and any(sign.search(text) for sign in _SIGNS)


def _inline(line: str) -> str:
    line = html.unescape(line)
    line = _MATH.sub(lambda m: "$" + " ".join(m.group(1).split()) + "$", line)
    line = _BOLD.sub(r"**\1**", line)
    line = _ITALIC.sub(r"*\1*", line)
    return _BREAK.sub("  \n   ", line)


def _cells(line: str, mark: str) -> list[str]:
    return [c.strip() for c in re.split(re.escape(mark * 2) + "|" + re.escape("||"), line[1:])]


def _table(lines: list[str], k: int, out: list[str]) -> int:
    """The table starting at ``lines[k]`` (``{|``) as pipe-table lines; the index after its ``|}``."""
    rows: list[list[str]] = []
    start = k
    k += 1
    while k < len(lines) and not lines[k].startswith("|}"):
        line = lines[k].strip()
        if line.startswith("|-"):
            rows.append([])
        elif line.startswith(("!", "|")) and not line.startswith("|+"):
            if not rows:
                rows.append([])
            rows[-1].extend(_inline(c) for c in _cells(line, line[0]))
        k += 1
    rows = [r for r in rows if r]
    width = max((len(r) for r in rows), default=0)
    body = []
    for j, row in enumerate(rows):
        body.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
        if j == 0:
            body.append("|" + "---|" * width)
    span = min(k, len(lines) - 1) - start + 1
    out.extend(body + [""] * max(0, span - len(body)))
    return k + 1


def wikitext_markdown(text: str) -> str:
    """``text`` (wiki markup, see :func:`is_wikitext`) as Markdown."""
    text = _MATH.sub(lambda m: f"$${m.group(1)}$$" if "\n" in m.group(1) else m.group(0), text)
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("{|"):
            k = _table(lines, k, out)
            continue
        head = _HEADING.match(line)
        if head:
            out.append("#" * len(head.group(1)) + " " + _inline(head.group(2)))
        elif _SWITCH.match(line.strip()):
            out.append("")
        else:
            line = _CATEGORY.sub("", line)
            bullet = re.match(r"^([#*]+)\s*", line)
            if bullet:
                depth = len(bullet.group(1)) - 1
                line = "   " * depth + ("1. " if bullet.group(1)[-1] == "#" else "- ") + line[bullet.end():]
            elif line.startswith(":"):
                line = line.lstrip(":").lstrip()
            out.append(_inline(line))
        k += 1
    return "\n".join(out)
