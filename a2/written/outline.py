"""An outliner's page (Logseq, Roam, Workflowy, Dynalist exported as Markdown) as the Markdown the
section reader reads.

An outliner writes every block as a ``- `` bullet nested by tabs (or two spaces), with page
properties (``title:: ...``) on top, block properties (``answer:: ...``, ``collapsed:: true``)
inside, and a block's further lines indented under its bullet. Read as Markdown, the nesting makes
the question labels (``- (b)``, ``- (i)`` under a ``- ## Q1`` bullet) list items the section reader
does not place, and indentation turns deep blocks into code. Rewritten line for line (places keep
their line numbers): a bullet that is only a heading or a question's label becomes a heading one
level deeper than its parent; any other bullet a top-level list item; a block's further lines its
text, unindented; ``key:: value`` a ``key: value`` line (``answer:: $$...$$`` reads as an
"Answer:" line), ``collapsed::`` and other housekeeping properties left blank.
"""

from __future__ import annotations

import re

from a2.written.sections import parse_label

OUTLINE_SHARE = 0.8
"""Share of a file's text lines (not properties, not blank) that are bullets for it to be an outline."""
HOUSEKEEPING = frozenset({"collapsed", "id", "heading", "background-color", "tags", "alias", "title", "public",
                          "filters", "icon", "template", "template-including-parent"})
"""Block and page properties that are the outliner's own bookkeeping, never the student's answer."""
_BULLET = re.compile(r"^(?P<indent>[\t ]*)- (?P<text>.*)$")
_PROPERTY = re.compile(r"^[\t ]*(?:- )?(?P<key>[A-Za-z][\w-]*)::\s?(?P<value>.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


LABEL_CHARS = 60
"""A bullet this short that starts with a question's label (``(b)``, ``(i) ...``, ``Q3``) is a heading."""


def is_label(body: str) -> bool:
    """Whether a bullet's text is a question's label, a heading of the outline."""
    return len(body) <= LABEL_CHARS and "$" not in body and "=" not in body and \
        parse_label(body, heading=True) is not None


def _depth(indent: str) -> int:
    return indent.count("\t") + (len(indent.replace("\t", "")) // 2)


def is_outline(text: str) -> bool:
    """Whether ``text`` is an outliner's page: most of its lines that do not go on a block (indented under
    it) are bullets, and some bullets are nested."""
    lines = [ln for ln in text.split("\n") if ln.strip() and not _PROPERTY.match(ln)
             and (_BULLET.match(ln) or not ln[:1].isspace())]      # an indented line goes on its block
    bullets = [m for ln in lines if (m := _BULLET.match(ln))]
    return len(lines) >= 5 and len(bullets) >= OUTLINE_SHARE * len(lines) and any(m.group("indent") for m in bullets)


def outline_markdown(text: str) -> str:
    """An outliner's page (:func:`is_outline`) as Markdown, line for line; other text unchanged."""
    if not is_outline(text):
        return text
    out = []
    levels: list[tuple[int, int]] = []          # (bullet depth, heading level) of the headings above
    for line in text.split("\n"):
        prop = _PROPERTY.match(line)
        bullet = _BULLET.match(line)
        if prop and (not bullet or bullet.group("text").startswith(prop.group("key") + "::")):
            key = prop.group("key")
            out.append("" if key.lower() in HOUSEKEEPING else f"{key}: {prop.group('value')}")
            continue
        if not bullet:
            out.append(line.strip())
            continue
        depth, body = _depth(bullet.group("indent")), bullet.group("text").strip()
        while levels and levels[-1][0] >= depth:
            levels.pop()
        heading = _HEADING.match(body)
        if heading or is_label(body):
            level = len(heading.group(1)) if heading else min(6, (levels[-1][1] if levels else 1) + 1)
            title = heading.group(2) if heading else body
            levels.append((depth, level))
            out.append("#" * level + " " + title)
        else:
            out.append("- " + body)
    return "\n".join(out)
