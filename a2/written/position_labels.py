"""Question labels in the words a writeup uses, rewritten to the handout's ``N(x)`` form before the
label reader (:func:`a2.written.sections.parse_label`) reads them.

Two habits give a question's letter in other words than ``(b)``:
- question words in other languages (``第三题``, ``Pregunta 3``): :func:`a2.written.targets.latin_question_word`;
- numbering by the handout's position: ``Q1.2 (i)`` is 1(b)(i) (the second part of question 1),
  ``Q3.5 (ii)`` is 3(e)(ii), and a letter after the word "part": ``Problem 1 part d``,
  ``Question 3, part (f)``. A position is read only after a question word (``Q``, ``Question``,
  ``Problem``, ``Exercise``) or alone in a heading, so that "1.5 points" in a paragraph and
  "### 3.2 Results" in a README stay text.
"""

from __future__ import annotations

import re

from a2.written.targets import latin_question_word

_WORD = r"(?:q|question|problem|exercise|part|task)\s*\.?\s*"
_POSITION = re.compile(r"^(?P<head>[\s*_]*(?P<word>" + _WORD + r")?)(?P<part>[1-3])\.(?P<pos>[1-7])(?![0-9.])", re.I)
_BARE_END = re.compile(r"\s*(?:$|[(\[:)]|(?:iv|v|i{1,3})\b)")
"""What may follow a position in a heading without a question word: nothing, a bracket or a numeral
(``### 3.2``, ``## 3.5 (ii)``), never a title (``### 3.2 Results`` is a README's section)."""
_PART_WORD = re.compile(r"^(?P<head>[\s*_]*" + _WORD + r"[1-3])\s*,?\s*part\s*\.?\s*(?P<letter>\(?[a-g]\)?)(?![A-Za-z])",
                        re.I)


def label_words(text: str, heading: bool) -> str:
    """``text`` (a heading or a paragraph's first line, its Markdown marks stripped) with its
    question words and handout positions in the handout's label form (see the module docstring)."""
    text = latin_question_word(text)
    m = _POSITION.match(text)
    if m and (m.group("word") or heading and _BARE_END.match(text, m.end())):
        return f"{m.group('head')}{m.group('part')}({'abcdefg'[int(m.group('pos')) - 1]}){text[m.end():]}"
    m = _PART_WORD.match(text)
    if m:
        return f"{m.group('head')}({m.group('letter').strip('()').lower()}){text[m.end():]}"
    return text
