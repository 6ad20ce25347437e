"""A submission's written files, read together: which file answers what, with whose macros.

Every uploaded ``answers.md`` and ``.tex`` file is read (subfolders included, by their path in
the upload). For LaTeX:

* Macro definitions are collected from every ``.tex`` file first (a main ``a2.tex`` defines what
  its ``q1.tex`` uses), then the template's bold shorthands fill in (:mod:`tex_macros`).
* ``\\input{q1}`` / ``\\include`` / ``\\subfile`` are resolved among the uploaded files only (by
  path or file name, ``.tex`` optional), never outside the upload: an included question file is
  read once, as its own file, with the question number its place in the main file gives when its
  name and title do not. An included file that is not in the upload (``dep_parses.tex``, the
  figures of 3(f)) is skipped.
* A document in the course's ``exam``-class template is read by :mod:`tex_exam` (answer blocks,
  numbering by position); any other ``.tex`` through the same parser by :mod:`latex_doc` (its
  headings as the section reader's markers, from the nodes).

Several files answering the same question are merged: an answered one beats an empty one, an
answer block beats free text, and two different answers are both kept (the checker then sees
both and flags a conflict for review).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePosixPath

from a2.written.code_answers import DOUBT as CODE_DOUBT
from a2.written.code_answers import FORMULA_QUESTIONS, code_answer, literal_rows, without_code
from a2.written.csv_tables import is_table_file, place_tables
from a2.written.evidence import attach, outside_sections
from a2.written.instances import row_layout_hint, stated_convention
from a2.written.latex_doc import outline
from a2.written.outline import outline_markdown
from a2.written.sections import (
    _DERIVATIVE_FAMILY,
    MAX_FILES,
    Located,
    Section,
    is_plain_text,
    locate_markdown,
    merge_section,
    parse_label,
    part_title,
    pretty,
)
from a2.written.summary_table import with_summary
from a2.written.targets import derivative_target, split_foreign_tail
from a2.written.tex_exam import asks_something_else, is_exam, read_exam
from a2.written.unlabelled import flag_unlabelled, is_unlabelled
from a2.written.word_math import DOUBT as WORDS_DOUBT
from a2.written.word_math import spoken
from grader.reading.answers import DISPLAY, INLINE, PLAIN, candidates
from grader.reading.ascii_art import ascii_fractions
from grader.reading.blocks import (
    callouts_opened,
    github_math,
    markdown_tokens,
    pandoc_unescaped,
    site_unescaped,
    struck_out,
)
from grader.reading.markup import as_markdown, html_tables
from grader.reading.math_delimiters import paren_math_as_dollars
from grader.reading.notation import MATH_LETTERS, html_scripts
from grader.reading.sides import lhs
from grader.reading.tex_macros import Macro, definitions, expand_safely
from grader.reading.tex_packages import package_macros
from grader.reading.tex_walk import inputs, read_to

MAX_EXPANDED_CHARS = 200_000
"""A non-template .tex file longer than this is read without macro expansion."""
_COMMENT = re.compile(r"(?<!\\)%.*$", re.M)
_NAME_HINT = re.compile(r"(?:part|p|q)[_\- ]?([1-3])(?!\d)", re.I)


TEMPLATE_SHORTHANDS = {"byt": r"\hat{\mathbf{y}}", "smx": r"\mathrm{softmax}", "relu": r"\mathrm{ReLU}",
                       "R": r"\mathbb{R}"}
"""Macros the course's template preamble defines and its prompts use (``\\byt`` is ŷ), which students
use in answers without uploading the preamble (bold ``\\bX`` is read as X in bold by the reader)."""

_INVISIBLE = str.maketrans({"\u200b": None, "\u200c": None, "\u200d": None, "\u2060": None, "\ufeff": None,
                            "\u00a0": " ", "\u202f": " ", "\u2009": " "})
"""Characters that do not change what a writeup says (zero-width and non-breaking spaces, a byte
order mark, CR): removed or made plain spaces before anything is read."""
LIGATURES = {cp: unicodedata.normalize("NFKC", chr(cp)) for cp in range(0xFB00, 0xFB07)}
"""Typographic ligatures a copy from a PDF keeps ("Modiﬁer", "aﬀects"): read as their letters."""
_READ_AS = {**_INVISIBLE, **MATH_LETTERS, **LIGATURES}
"""What a writeup's characters are read as: the invisible ones removed, mathematical letters (𝐽, 𝑣) as letters.
Applied before any reader that counts columns (an ASCII-art fraction's bar lines up with its numerator
only once a zero-width space typed before the bar is gone)."""


def _key(path: str) -> str:
    p = PurePosixPath(path.replace("\\", "/").lstrip("./"))
    return str(p.with_suffix("")) if p.suffix == ".tex" else str(p)


def resolve_inputs(tex: dict[str, str]) -> tuple[dict[str, int], set[str], list[str]]:
    """For each included file, the position (1, 2, ...) it is included at; the included files;
    notes on inputs that are not in the upload."""
    by_key: dict[str, str] = {}
    for name in tex:
        by_key.setdefault(_key(name), name)
        by_key.setdefault(PurePosixPath(_key(name)).name, name)
    order: dict[str, int] = {}
    included: set[str] = set()
    notes: list[str] = []
    for name, text in tex.items():
        k = 0
        for included_name in inputs(text):
            target = by_key.get(_key(included_name)) or by_key.get(PurePosixPath(_key(included_name)).name)
            if target is None or target == name:
                continue
            k += 1
            included.add(target)
            order.setdefault(target, k)
    return order, included, notes


_SUB_LABEL = re.compile(r"\((iv|iii|ii|i|v|vi)\)$")


def _numbered(label: str, body: str) -> str:
    """``body`` opened by its sub-part numeral ("(ii)") on a line of its own, once."""
    sub = _SUB_LABEL.search(label)
    if sub is None or not body.strip() or body.lstrip().startswith(f"({sub.group(1)})"):
        return body
    return f"({sub.group(1)})\n{body}"


def _exam_sections(name: str, text: str, questions: set[str], macros: dict[str, Macro],
                   start_part: int | None) -> Located:
    parts, notes = read_exam(text, questions, macros, start_part=start_part)
    found: dict[str, Section] = {}
    for p in parts:
        where = f"{name}, line {p.line}"
        qid = p.question
        notes_here = list(p.notes)
        if qid in _DERIVATIVE_FAMILY:
            target = derivative_target(p.prompt, p.body if not p.from_block else "")
            if target and target != qid and target in questions and target[0] == qid[0]:
                notes_here.append(f"The part at {where} (numbered {p.label}) asks for {pretty(target)}, "
                                  f"so it was read as {pretty(target)}.")
                qid = target
        if qid and asks_something_else(qid, p.prompt, p.context):
            notes.append(f"The part at {where} (numbered {p.label}) asks something else than {pretty(qid)} "
                         f"(another year's numbering?), so it was not read as {pretty(qid)}.")
            qid = None
        if not qid:
            continue
        section = Section(qid, p.body, p.prompt, p.label, where, notes_here, block=p.from_block)
        old = found.get(qid)
        if old is not None and old.where.startswith(name) and not old.notes and not notes_here:
            # Sub-parts of one item (3(f)'s four sentences): each keeps its numeral, so that what
            # belongs to which sub-part is still known after the merge.
            old.body = "\n\n".join(b for b in (_numbered(old.label, old.body), _numbered(p.label, section.body))
                                     if b.strip())
            continue
        merge_section(found, section)
    return Located(found, notes)


def locate(files: list[tuple[str, str]], questions: set[str]) -> Located:
    """Sections of every written file (answers.md first, then .tex files by name)."""
    notes: list[str] = []
    merged: dict[str, Section] = {}
    tables = [(name, text) for name, text in files if is_table_file(name)]
    files = [(name, text.translate(_READ_AS) if name.lower().endswith(".tex") else paren_math_as_dollars(pandoc_unescaped(
              struck_out(html_tables(callouts_opened(site_unescaped(github_math(
                  ascii_fractions(outline_markdown(html_scripts(as_markdown(name, text).translate(_READ_AS))))))))))))
             for name, text in files if not is_table_file(name)]
    if len(files) > MAX_FILES:
        notes.append(f"{len(files)} written files were uploaded; only the first {MAX_FILES} were read")
        files = files[:MAX_FILES]
    tex = {n: _COMMENT.sub("", t) for n, t in files if n.lower().endswith(".tex")}
    macros: dict[str, Macro] = {}
    for text in tex.values():
        defs, _ = definitions(text)
        for key, macro in defs.items():
            macros.setdefault(key, macro)
    for key, body in TEMPLATE_SHORTHANDS.items():       # the course template's, unless the writeup defines them
        macros.setdefault(key, Macro(key, 0, body))
    for key, macro in package_macros(list(tex.values())).items():   # \usepackage{physics}: \pdv, \vb, \qty
        macros.setdefault(key, macro)
    order, _included, input_notes = resolve_inputs(tex)
    unread: dict[str, str] = {}
    parsed: dict[str, str] = {}
    unlabelled: list[str] = []          # files with text but no question label (a2/written/unlabelled.py)
    notes += input_notes
    for name, text in files:
        base = PurePosixPath(name).name
        if name in tex:
            hint = _NAME_HINT.search(base)
            start_part = int(hint.group(1)) if hint else order.get(name)
            body = tex[name]
            if is_exam(body):
                found = _exam_sections(name, body, questions, macros, start_part)
            else:
                if len(body) <= MAX_EXPANDED_CHARS:
                    body = expand_safely(definitions(body)[1], macros)[0]
                text_lines, markers = outline(body)
                found = locate_markdown(text_lines, questions, source=name, start_part=start_part or 1, read=markers)
            parsed[name] = body         # the document model reads the text the sections came from (one parse)
            if read_to(body) < len(body):
                unread[name] = (f"{name} is {len(body)} characters long; its structure was read up to line "
                                f"{body.count(chr(10), 0, read_to(body)) + 1} only (the reader's time bound), "
                                "so an answer after that line was not read")
                notes.append(unread[name])
                for section in found.sections.values():
                    section.unread = unread[name]
        else:
            hint = _NAME_HINT.search(base)        # p3.txt: its unlabelled "b)" is 3(b)
            found = locate_markdown(text, questions, source=name, plain=is_plain_text(name, text),
                                    start_part=int(hint.group(1)) if hint else 1)
            with_summary(found.sections, text, questions, name)
            unlabelled += [name] if is_unlabelled(text, found.sections) else []
        notes += found.notes
        for section in found.sections.values():
            merge_section(merged, section)
    _move_foreign_tails(merged, questions)
    for q in {"3a", "3f"} & set(merged):                   # a table or the 3(f) answers as a Python literal
        rows = literal_rows(merged[q].body, q)
        if rows is not None:
            merged[q].body = without_code(merged[q].body) + "\n\n" + rows
    for q in (FORMULA_QUESTIONS - {"3b"}) & set(merged):  # a formula spoken in words (3(b)'s words: its own reader)
        words = spoken(merged[q].body)
        if words is not None:
            merged[q].body, merged[q].doubt = words, merged[q].doubt or WORDS_DOUBT
    for q in FORMULA_QUESTIONS & set(merged):            # an answer given only as code (numpy lines)
        code = code_answer(merged[q].body)
        if code is not None:
            merged[q].body, merged[q].doubt = without_code(merged[q].body) + "\n\n" + code, merged[q].doubt or CODE_DOUBT
    notes += place_tables(merged, tables, questions)
    unplaced = [h for name, text in files if not name.lower().endswith(".tex") and not is_plain_text(name, text)
                for h in unplaced_headings(name, text)]
    for q in questions - set(merged) if unplaced else ():
        merged[q] = Section(q, "", where=unplaced[0][1], doubt=(
            f"no section was found for {pretty(q)}, but the writeup has numbered headings the reader could not "
            "place: " + "; ".join(f"{head!r} ({where})" for head, where in unplaced[:4])))
    for name, why in unread.items():
        for q in questions - set(merged):
            merged[q] = Section(q, "", where=name, unread=why)
    if any(stated_convention(text) for _, text in files):
        for section in merged.values():
            section.convention = True
    layout = next((h for _, text in files for h in [row_layout_hint(text)] if h), "")
    for section in merged.values() if layout else ():
        section.layout_hint = layout
    model = [(name, parsed.get(name, text), name in tex and is_exam(tex[name])) for name, text in files]
    attach(merged, questions, outside_sections(model, merged, questions,
                                               lambda latex: expand_safely(latex, macros)[0]))
    flag_unlabelled(merged, questions, unlabelled)
    return Located(merged, notes)


_NUMBERED = re.compile(r"(?<![A-Za-z0-9])[Qq]?[0-9](?![0-9A-Za-z])|[一二三四五六七八九十]|(?<![A-Za-z])[IVX]{1,4}(?![A-Za-z])|\([a-g]\)")
"""A heading that looks numbered (a number of its own, not ``L2``; a CJK numeral, a Roman numeral, a letter in brackets)."""


def unplaced_headings(name: str, text: str) -> list[tuple[str, str]]:
    """(heading, where) of the Markdown headings of ``text`` that look numbered (:data:`_NUMBERED`) but
    name no question or part the reader knows (``## 第三题``, ``### III-(a)``), below the first it does: an item not found
    in such a writeup may be under one of them, so its zero is flagged, never silent."""
    lines = text.split("\n")
    out = []
    placed = False                 # headings above the first one the reader places are the title's
    for tok in markdown_tokens(text):
        if tok.type == "heading_open" and tok.map and tok.markup.startswith("#"):
            head = lines[tok.map[0]].strip().lstrip("#").strip()
            if parse_label(head, heading=True) is not None or part_title(head) is not None:
                placed = True
            elif placed and _NUMBERED.search(head):
                out.append((head[:80], f"{name}, line {tok.map[0] + 1}"))
    return out


def _move_foreign_tails(sections: dict[str, Section], questions: set[str]) -> None:
    """A section that ends with the answer to a sibling question without an answer of its own
    (``## e-i`` ending with ∂CE/∂l_i) gives that tail to the sibling, with a note."""
    for q in [q for q in sections if q in _DERIVATIVE_FAMILY]:
        section = sections[q]
        spans = [(c.start, lhs(c.latex)) for c in candidates(section.body) if c.kind in (DISPLAY, INLINE, PLAIN)]
        split = split_foreign_tail(section.body, q, sorted(spans), questions)
        if split is None:
            continue
        own, tail, target = split
        if target in sections and not sections[target].empty:
            continue
        section.body = own
        sections[target] = Section(target, tail, section.heading, section.label, section.where,
                                   [f"The answer to {pretty(target)} was found at the end of the section of "
                                    f"{pretty(q)} ({section.where}), from the left-hand side of its formula."])
