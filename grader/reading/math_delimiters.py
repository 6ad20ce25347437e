"""Math delimiters as the readers of prose around math read them.

Every reader of the words around a formula (a condition after it, a declared keep probability, a
remark) reads inline math between dollars. A student may delimit it ``\\(...\\)`` instead; this module
writes such math as ``$...$`` before those readers run, so the delimiter a student chose never
decides what is read. Which spans are math comes from :func:`grader.reading.braces.math_groups`.
"""

from __future__ import annotations

from grader.reading.braces import math_groups


def paren_math_as_dollars(text: str) -> str:
    """Inline math written ``\\(...\\)`` as the ``$...$`` every reader of prose around math reads
    (``$W_{ji}$ if \\((xW+b_1)_i > 0\\) and \\(0\\) otherwise`` is one answer with its cases, and
    ``let \\(p\\) be the keep probability`` declares what ``p`` means, whichever delimiter the
    student chose). Which spans are math comes from :func:`math_groups`; a body holding ``$`` or a
    line break stays as written."""
    if "\\(" not in text:
        return text
    out, pos = [], 0
    for start, end, body, display in math_groups(text):
        if display or not text.startswith("\\(", start) or "$" in body or "\n" in body:
            continue
        out.append(text[pos:start])
        out.append(f"${body.strip()}$")
        pos = end
    out.append(text[pos:])
    return "".join(out)
