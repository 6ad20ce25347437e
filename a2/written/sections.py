"""Find each question's section in a writeup, whatever its heading style.

A writeup is Markdown (``answers.md``), plain text or LaTeX, whose headings (``\\section``, numbered
``\\item`` s) are markers read from pylatexenc's nodes (:func:`a2.written.latex_doc.outline`). The one
Markdown tokenizer of :mod:`grader.reading.blocks` (markdown-it-py with its math plugins) gives the rest's
block structure with line numbers; labels are read from headings (``## (b)(i)``, ``### b-i``,
``### ii`` under a ``(b)`` parent, ``# Part 2``) and from paragraphs that start with one (``**(e)(ii)**``, ``3(b) ...``,
``$$3(b) ...``, ``i. "The university..."``). A label may give only some of part, letter and
roman numeral; the rest comes from the labels above it. A section runs from its label to the
next label that is not inside it, without blockquotes (the template quotes each question) and
HTML comments.

Content can overrule a label: a section headed "(d)" that is about ∂J/∂U is read as 1(e)
(:func:`section_about`), and text before the first label that is clearly one question's
answer (the 1(a) proof, say) is given to that question; both are reported in the feedback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from a2.written.part_titles import numbered_title, title_part
from a2.written.position_labels import label_words
from a2.written.targets import (
    _DERIVATIVE_FAMILY,
    pretty,
    section_about,
    swapped_numbering,
    topic_title,
)
from grader.reading.blocks import QUOTED_ANSWER, markdown_tokens, quoted_reply

MAX_FILE_CHARS = 1_000_000
"""Characters read from one written file; the rest is ignored (and said so)."""
MAX_FILES = 20
"""Written files read from one submission."""


@dataclass(frozen=True)
class Label:
    part: int | None
    letter: str | None
    roman: str | None
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class Section:
    """One question's answer as found: its text, where it came from and how it was found."""

    question: str
    body: str
    heading: str = ""
    label: str = ""
    where: str = ""
    notes: list[str] = field(default_factory=list)
    block: bool = False          # read from a LaTeX answer block (only the answer, no prompt)
    evidence: list[list[str]] = field(default_factory=list)   # [text, where] of equations naming its target
    unread: str = ""             # why part of its file was not read (an answer below full is then flagged)
    doubt: str = ""              # why its place is uncertain (found by its heading's topic): below full is flagged
    convention: bool = False     # the writeup states another layout of word2vec's arrays (U is |V|×d, row vectors)
    layout_hint: str = ""       # a sentence that may state another layout (an answer right only there: flagged)

    @property
    def empty(self) -> bool:
        return not self.body.split()


@dataclass
class Located:
    sections: dict[str, Section]
    notes: list[str]


# ---------------------------------------------------------------------------------------------
# Labels

_ROMAN = r"(?:iv|v|i{1,3})"
_LEAD = re.compile(r"^[\s#>*_$`]*(?:(?i:addendum|supplement|follow[- ]?up|continuation)\s+(?:to|of|for|on)\s+)?(?:\\\(|\\\[)?\s*")
_WORD = re.compile(r"(?:question|problem|exercise|part|task|q)\s*\.?\s*(?=[0-9(a-gA-G])", re.I)
_PART = re.compile(r"([1-3])(?![0-9])(?:\s*[.:)]\s*|\s+|-(?=[a-g](?![A-Za-z]))|(?=[(a-g])|$)")   # also Q1-b
_LETTER_PAREN = re.compile(r"[.\-\s]*\(\s*([a-gA-G])\s*\)")
_LETTER_BARE = re.compile(r"[.\-\s]*([a-g])(?=[):\-(]|\.(?![A-Za-z])|\s*$|" + _ROMAN + r"\b|[-.]" + _ROMAN + r"\b"
                          r"|\s" + _ROMAN + r"\)|\s+\(" + _ROMAN + r"\))")
_LETTER_AFTER_PART = re.compile(r"[.\-\s]*([a-g])(?:(?![A-Za-z])|(?=" + _ROMAN + r"(?![A-Za-z])))")   # 1b, 1bi.
_ROMAN_AFTER = re.compile(r"[.\-\s]*(" + _ROMAN + r")(?![A-Za-z])")
_ROMAN_PAREN = re.compile(r"[.\-\s]*\(\s*(" + _ROMAN + r")\s*\)")
_ROMAN_BARE = re.compile(r"[.\-\s]*(" + _ROMAN + r")(?=[):]|\.(?![A-Za-z])|\s*$)")
"""A bare numeral: ``ii)``, ``iii.``, ``iv`` alone; never ``i.e.``."""
_ROMAN_SPACE = re.compile(r"[.\-\s]*(" + _ROMAN + r")(?=\s+\S)")
_PART_LINE = re.compile(r"^\s*(?:part|question|problem|q)\s*[1-3]\b.{0,80}$", re.I)
_PICTURE = re.compile(r"!\[[^\]]*\]\([^)]*\)|<img\b[^>]*>")      # the question's picture above an answer in a quote
_POINTS = re.compile(r"\(\s*\d+(?:\.\d+)?\s*(?:points?|pts?|marks?)\s*\)", re.I)


def parse_label(text: str, *, heading: bool) -> Label | None:
    """The label at the start of ``text`` (a heading's or a paragraph's first line), if any."""
    s = label_words(_LEAD.sub("", text, count=1), heading)
    word = _WORD.match(s)
    if word:
        s = s[word.end():]
    part = letter = roman = None
    pos = 0
    m = _PART.match(s)
    if m:
        part, pos = int(m.group(1)), m.end()
    m = _LETTER_PAREN.match(s, pos)
    if m:
        letter, pos = m.group(1).lower(), m.end()
    else:
        m = (_LETTER_AFTER_PART if part else _LETTER_BARE).match(s, pos)
        if m and not (part and s[m.end():m.end() + 1].isalpha() and not _ROMAN_AFTER.match(s, m.end())):
            letter, pos = m.group(1), m.end()
    m = _ROMAN_PAREN.match(s, pos)
    if m:
        roman, pos = m.group(1), m.end()
    elif letter:
        m = _ROMAN_AFTER.match(s, pos)
        if m:
            roman, pos = m.group(1), m.end()
    elif part is None:
        m = _ROMAN_BARE.match(s, pos) or (_ROMAN_SPACE.match(s, pos) if heading else None)
        if m:
            roman, pos = m.group(1), m.end()
    if part is None and letter is None and roman is None:
        return None
    if part is not None and letter is None and roman is None and not heading:
        return None       # "2 steps" in a paragraph is not a label
    if letter is None and roman is None and part is not None and word is None:
        # "2. Machine Learning" is a part heading; "2 n" or "2n" is not.
        if not re.match(r"[1-3]\s*[.:)]?\s*[A-Z*_(]", s) and s[pos:].strip():
            return None
    shown = s[:pos].strip(" .:-")
    return Label(part, letter, roman, shown or text.strip())


def part_title(heading: str) -> Label | None:
    """A heading without a label that names a part ("Neural Transition-Based Dependency Parsing")."""
    part = title_part(heading)
    return Label(part, None, None, heading.strip()) if part else None


def question_for(part: int | None, letter: str | None, roman: str | None,
                 questions: set[str]) -> str | None:
    """The question id of a label, e.g. (1, "b", "i") -> "1b_i"; (3, "f", "ii") -> "3f"."""
    if part is None or letter is None:
        return None
    if roman and f"{part}{letter}_{roman}" in questions:
        return f"{part}{letter}_{roman}"
    if f"{part}{letter}" in questions:
        return f"{part}{letter}"
    return None


# ---------------------------------------------------------------------------------------------
# Blocks

@dataclass
class _Marker:
    line: int
    label: Label | None
    heading: str
    is_heading: bool
    level: int = 0          # a Markdown heading's level (0: a paragraph, or plain text; -1: a list item)


def _blocks(text: str) -> tuple[list[_Marker], set[int]]:
    """Label candidates (headings, paragraph starts) and the lines to leave out of answers."""
    tokens = markdown_tokens(text)
    lines = text.split("\n")
    markers: list[_Marker] = []
    excluded: set[int] = set()
    quote_depth = list_depth = 0
    for tok in tokens:
        if tok.type == "blockquote_open":
            quote_depth += 1
            if tok.map and not list_depth:         # a quote inside a list item is the student's own
                excluded.update(range(*tok.map))
        elif tok.type == "blockquote_close":
            quote_depth -= 1
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif tok.type == "html_block" and tok.map and tok.content.lstrip().startswith("<!--"):
            excluded.update(range(*tok.map))
        elif tok.type == "heading_open" and tok.map and not quote_depth:
            raw = " ".join(lines[tok.map[0]:tok.map[1]]).strip()
            head = re.sub(r"^#+\s*|\s*#+\s*$", "", raw)
            if tok.markup in ("=", "-"):      # setext heading: the text is the line(s) above
                head = " ".join(lines[tok.map[0]:tok.map[1] - 1]).strip()
            level = len(tok.markup) if tok.markup.startswith("#") else 1 if tok.markup == "=" else 2
            markers.append(_Marker(tok.map[0], parse_label(head, heading=True), head, True, level))
        elif tok.type in ("paragraph_open", "math_block", "math_block_label", "amsmath") and tok.map and not quote_depth:
            first = re.sub(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+", "", lines[tok.map[0]]) if list_depth else lines[tok.map[0]]
            label = parse_label(first, heading=False)
            if label is None and tok.map[1] - tok.map[0] == 1 and _PART_LINE.match(first):
                label = parse_label(first, heading=True)     # "Part 2: Machine Learning" on a line of its own
            if label is None and re.match(r"^\s*\*\*[^*]+\*\*\s*$", first):
                label = parse_label(first.strip(" *"), heading=True)
            if label is not None and (not list_depth or label.part is not None or not label.letter or label.letter > next(
                    (m.label.letter or "" for m in reversed(markers) if m.label and (m.label.letter or m.label.part)), "")):
                markers.append(_Marker(tok.map[0], label, first.strip(), False, -1 if list_depth else 0))   # "- (b)" after (a)
    return markers, excluded


_MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+(\S.*)$", re.M)


def is_plain_text(file: str, text: str) -> bool:
    """Whether a written file is read as plain text, by lines: a .txt file, unless it is Markdown
    saved under that name, which its headings show by carrying the questions' labels (``## (b)``);
    a plain-text file with a stray ``#### Final Answer`` stays plain."""
    return file.lower().endswith(".txt") and not any(
        parse_label(m.group(1), heading=True) for m in _MARKDOWN_HEADING.finditer(text))


PLAIN_LABEL_CHARS = 60
"""A plain-text line this short that starts with a label is a heading (``b i)``, ``Q3 (e)(ii)``)."""


def _lines(lines: list[str]) -> tuple[list[_Marker], set[int]]:
    """Label candidates of a plain-text file: every line, as a heading when it is short."""
    markers: list[_Marker] = []
    for k, line in enumerate(lines):
        short = len(line.strip()) <= PLAIN_LABEL_CHARS and "=" not in line
        label = parse_label(line, heading=short)
        if label is not None and label.letter is None and label.roman is None and \
                not (_PART_LINE.match(line) or re.match(r"\s*[1-3]\s*[.:)]\s", line)
                     or short and numbered_title(line, label.part)):
            label = None          # "1 SHIFT + 1 ARC per word" is not part 1
        if label is not None:
            rest = line.strip()[len(label.text):].strip(" .:)-")
            markers.append(_Marker(k, label, line.strip(), short and len(rest) < 40
                                   and not re.search(r"\d\s*n|\$|[()/^_+*]|\s-\s|^-", rest)))   # "i) - U(y - Yhat)": an answer
    return markers, set()


# ---------------------------------------------------------------------------------------------
# What a section is about

_SIGNATURES: dict[str, tuple[re.Pattern[str], ...]] = {
    # Text before the first label is given to a question only when all its patterns match.
    "1a": (re.compile(r"cross[- ]?entropy", re.I), re.compile(r"naive[- ]?softmax|\\log", re.I)),
}


_NUMBERED = re.compile(r"(?:q|question|exercise|task)\s*\.?\s*([1-7])\s*[.:)]?", re.I)
"""A heading that is only a sub-question's number (``Q5``, ``Question 5.``)."""


def _numbered_subquestions(markers: list[_Marker], questions: set[str]) -> None:
    """Sub-questions numbered inside a part (Notion's ``## Problem 1 — word2vec`` / ``### Q5``): a
    heading that is only a number, below a heading that names only a part, is that part's K-th
    letter, unless a label under that part gives letters itself."""
    groups: list[tuple[int, list[tuple[_Marker, int]], list[bool]]] = []   # (part, its numbered sub-headings, [lettered])
    parent: int | None = None                                   # the part heading's level
    for mk in markers:
        lab = mk.label or (part_title(mk.heading) if mk.is_heading else None)
        numbered = _NUMBERED.fullmatch(mk.heading.strip()) if mk.is_heading else None
        if mk.level and lab is not None and lab.part and lab.letter is None and lab.roman is None and not numbered:
            parent = mk.level
            groups.append((lab.part, [], [False]))
        elif parent is not None and mk.level and mk.level <= parent:
            parent = None
        elif parent is not None and numbered:
            groups[-1][1].append((mk, int(numbered.group(1))))
        elif parent is not None and lab is not None and lab.letter:
            groups[-1][2][0] = True                      # the part labels its letters itself
    for part, subs, lettered in groups:
        for mk, number in subs if not lettered[0] else ():
            letter = "abcdefg"[number - 1]
            if any(q.startswith(f"{part}{letter}") for q in questions):
                mk.label = Label(part, letter, None, mk.heading.strip())


# ---------------------------------------------------------------------------------------------
# Reading a whole writeup

def locate_markdown(text: str, questions: set[str], *, source: str = "answers.md", start_part: int | None = 1,
                    plain: bool = False, read: tuple[list[_Marker], set[int]] | None = None) -> Located:
    """Sections of one text by question id (``plain``: read by lines; ``read``: markers and lines left out, read already)."""
    notes: list[str] = []
    if len(text) > MAX_FILE_CHARS:
        notes.append(f"{source} is {len(text)} characters long; only the first {MAX_FILE_CHARS} were read")
        text = text[:MAX_FILE_CHARS]
    lines = text.split("\n")
    markers, excluded = read or (_lines(lines) if plain else _blocks(text))
    _numbered_subquestions(markers, questions)
    part, letter, roman = start_part, None, None
    spans: list[list] = []          # [start line, end line, question or None, marker]
    labelled = {q for m in markers if m.label is not None
                for q in [question_for(m.label.part, m.label.letter, m.label.roman, questions)] if q}
    for mk in markers:
        lab = mk.label
        topic = topic_title(mk.heading, questions, labelled) if lab is None and mk.is_heading else None
        if topic is not None or (lab is None and mk.is_heading and spans and spans[-1][4] == "topic"):
            if spans:
                spans[-1][1] = mk.line        # a section found by its topic ends at the next heading
            spans.append([mk.line, len(lines), topic, mk, "topic" if topic else False])
            continue
        lab = lab if lab is not None or not mk.is_heading else part_title(mk.heading)
        if lab is None:
            continue
        if lab.part is not None:
            part, letter, roman = lab.part, lab.letter, lab.roman
        elif lab.letter is not None:
            letter, roman = lab.letter, lab.roman
        elif lab.roman is not None:     # a list item "- (ii)" that is no question's (3(f)'s sentences) is text
            if letter is None or (mk.level < 0 and question_for(part, letter, lab.roman, questions) is None):
                continue
            roman = lab.roman
        q = question_for(part, letter, roman, questions)
        implicit = False
        if q is None and roman is None and part and letter and f"{part}{letter}_i" in questions:
            q, implicit = f"{part}{letter}_i", True   # "### (b)" then "### ii": text under (b) answers (b)(i)
        if spans and q is not None and spans[-1][2] == q and not spans[-1][4]:
            continue                # a sub-item (3(f) ii, a case of 1(d)) stays in its question
        if spans:
            spans[-1][1] = mk.line
        spans.append([mk.line, len(lines), q, mk, implicit])
    first_labelled = spans[0][0] if spans else len(lines)

    sections: dict[str, Section] = {}
    found: list[tuple[str | None, str | None, Section]] = []     # (labelled as, about, section)
    for start, end, q, mk, _implicit in spans:
        body_lines = [lines[k] for k in range(start, end)
                      if k not in excluded and not (mk.is_heading and k == start)]
        quoted = "" if _PICTURE.sub("", "".join(body_lines)).strip() else quoted_reply(lines, range(start, end), excluded)
        body = quoted or "\n".join(body_lines).strip("\n")
        heading = _POINTS.sub("", mk.heading).strip()
        target = section_about(q, heading, body) if q in _DERIVATIVE_FAMILY else None
        where = f"{source}, line {start + 1}"
        section = Section(q or "", body, heading, mk.label.text if mk.label else "", where, doubt=quoted and QUOTED_ANSWER)
        if _implicit == "topic":
            section.doubt = f"the section headed {heading!r} ({where}) was read as {pretty(q)} from its topic"
            section.notes.append(f"No section is labelled {pretty(q)}; the one headed {heading!r} ({where}) "
                                 f"was read as {pretty(q)} from its topic.")
        if target and target != q and target in questions and q and target[0] == q[0]:
            section.notes.append(f"The section headed {heading!r} ({where}) is about the question "
                                 f"{pretty(target)}, not {pretty(q)}, so it was read as {pretty(target)}.")
            section.question = target
        found.append((q, target, section))
    swapped_numbering(found, questions)
    for _, _, section in found:
        if section.question:
            merge_section(sections, section)

    preamble = "\n".join(lines[k] for k in range(0, min(first_labelled, len(lines))) if k not in excluded)
    for q, patterns in _SIGNATURES.items():
        if q in questions and (q not in sections or sections[q].empty) and \
                preamble.strip() and all(p.search(preamble) for p in patterns):
            sections[q] = Section(q, preamble.strip("\n"), "", "", f"{source}, line 1",
                                  [f"This answer has no heading of its own; it was read as {pretty(q)} "
                                   "from its content."])
    return Located(sections, notes)


def merge_section(sections: dict[str, Section], new: Section) -> None:
    """Add ``new`` to ``sections``: an answered section beats an empty one, an answer block beats
    free text, a correctly labelled section beats one moved by its content; else both are read."""
    old = sections.get(new.question)
    if old is None:
        sections[new.question] = new
        return
    if old.empty:
        new.notes = old.notes + new.notes
        sections[new.question] = new
        return
    if new.empty:
        return
    if old.block != new.block:
        keep, drop = (old, new) if old.block else (new, old)
        keep.notes.append(f"Another file ({drop.where}) also has text for {pretty(new.question)}; the "
                          "answer block was read.")
        sections[new.question] = keep
        return
    # A section whose own label is right wins over one moved here by its content.
    moved_old = any("was read as" in n for n in old.notes)
    moved_new = any("was read as" in n for n in new.notes)
    if moved_old and not moved_new:
        sections[new.question] = new
        new.notes.append(f"Another section ({old.where}) is also about {pretty(new.question)}; "
                         "the one labelled so was read.")
        return
    if moved_new and not moved_old:
        old.notes.append(f"Another section ({new.where}) is also about {pretty(new.question)}; "
                         "the one labelled so was read.")
        return
    old.body = old.body + "\n\n" + new.body
    old.notes.append(f"{pretty(new.question)} has more than one section ({old.where}; {new.where}); "
                     "they were read together.")
