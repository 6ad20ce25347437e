"""The course's LaTeX template (``exam`` class): questions, parts, sub-parts and answer blocks.

``\\titledquestion{Understanding word2vec}[15]`` (or ``\\question``) opens a question; its number
comes from the title's words (word2vec -> 1, machine learning -> 2, dependency parsing -> 3),
else from the file's name (``q2.tex``), else from its position. Inside, ``\\part[6]`` and
``\\subpart[2]`` are numbered by position: the bracket is the part's POINTS, never its label. A
part whose sub-questions are written as ``\\begin{enumerate} \\item`` is split the same way.

When a part holds an answer block (``\\answer{...}``, ``\\ans{...}``, ``\\ifans{...}``,
``\\begin{answer}...\\end{answer}`` or ``solution``, often inside ``mdframed``), only the blocks'
content is its answer: an empty block is no answer, and the prompt around it is kept only as the
section's heading (to tell which question it asks). A part without a block is read whole.

The prompt also guards against other years' numbering: a part whose prompt clearly asks another
question than the one its position gives (another derivative, a sigmoid, another sentence) is
moved to the question it asks, or left out with a note; it never scores for a question it does
not answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from a2.written.latex_doc import ROMANS, body_to_markdown
from grader.reading import tex_own_blocks, tex_walk
from grader.reading.tex_macros import Macro, expand_safely
from grader.reading.tex_marked import marked_blocks

LETTERS = "abcdefghijklmnopqrstuvwxyz"
PROMPT_CHARS = 400
"""Characters of a part's prompt kept as its section's heading."""

_EXAM = re.compile(r"\\titledquestion(?![A-Za-z])|\\begin\s*\{(?:sub)?parts\}")
_QUESTION_TITLES = ((1, re.compile(r"word2vec|word\s+vectors?", re.I)),
                    (2, re.compile(r"machine\s+learning|neural\s+networks?\b(?!.*pars)", re.I)),
                    (3, re.compile(r"dependency\s+pars|transition", re.I)))

# What each auto-graded question's prompt talks about (checked on a flattened prompt). A prompt
# that says none of it asks another question (another year's numbering).
PROMPT_SIGNS: dict[str, re.Pattern[str]] = {
    "1b_i": re.compile(r"v_?c|cent(?:er|re)", re.I),
    "1d": re.compile(r"u_?w|outside", re.I),
    "1e": re.compile(r"\bU\b|matrix", re.I),
    "2b_i": re.compile(r"dropout|gamma|drop", re.I),
    "3a": re.compile(r"presented|findings", re.I),
    "3b": re.compile(r"\bn\b|steps|how\s+many", re.I),
    "3e_i": re.compile(r"relu|h_?i|hidden", re.I),
    "3e_ii": re.compile(r"softmax|\bCE\b|cross|l_?i|logit", re.I),
}


@dataclass
class Unit:
    """One part or sub-part: its place, its text, and the answer blocks found in it."""

    question: int
    part: int
    sub: int | None
    start: int
    end: int
    has_subparts: bool = False
    blocks: list[str] = field(default_factory=list)


def every_block(text: str) -> list[tuple[int, int, str]]:
    """The answer blocks of ``text`` and, outside them, the answers marked in its text
    (``\\textbf{Answer:}`` where a student deleted the template's block: :mod:`grader.reading.tex_marked`),
    and the blocks a student declares (``\\ifans ... \\fi``, an answer box of their own: :mod:`grader.reading.tex_own_blocks`)."""
    found = tex_own_blocks.merged(tex_walk.answer_blocks(text), tex_own_blocks.own_blocks(text))
    blocks = [(s, e, "" if _FORMATTING.fullmatch(c) else c) for s, e, c in found]
    return sorted(blocks + marked_blocks(text, blocks))


_FORMATTING = re.compile(r"(?:\s|[{}]|(?>\\(?:color|textcolor|colorbox|bf|bfseries|it|itshape|em|normalfont|noindent|par|"
                         r"newline|medskip|bigskip|smallskip|vspace\*?|hspace\*?|quad|qquad)(?![A-Za-z])(?:\s*\{[^{}]*\})?))*")
"""A block that holds only formatting (``\\ifans{{\\color{blue} }}``, ``\\ifans{\\vspace{2cm}}``) is empty. A macro
with its group is atomic: ``\\bf{}`` read as the macro and its group or as a macro, ``{`` and ``}`` made a
block of k of them take 2^k steps to be found not empty."""


def is_exam(text: str) -> bool:
    return bool(_EXAM.search(text))


def question_number(title: str) -> int | None:
    for number, pattern in _QUESTION_TITLES:
        if pattern.search(title):
            return number
    return None


def answer_blocks(text: str, found: list[tuple[int, int, str]] | None = None,
                  offset: int = 0) -> tuple[list[str], str]:
    """The answer blocks of a part's text (read by the LaTeX parser), and the text without them.
    ``found``: the blocks of the whole document, already read, and where ``text`` starts in it."""
    if found is None:
        blocks = every_block(text)
    else:
        blocks = [(s - offset, e - offset, c) for s, e, c in found if s >= offset and e <= offset + len(text)]
    prompt, pos = [], 0
    for start, end, _ in blocks:
        if start >= pos:
            prompt.append(text[pos:start])
            pos = end
    after = text[pos:]
    if blocks and not any(b.strip() for _, _, b in blocks) and after.strip():
        # "\ifans{}" left empty and the answer typed after it: the text after the last block is the answer
        return [after], "".join(prompt)
    prompt.append(after)
    return [b for _, _, b in blocks], "".join(prompt)


def _units(text: str, start_part: int | None) -> list[Unit]:
    units: list[Unit] = []
    question = part = 0
    sub: int | None = None
    seen_question = False
    current: Unit | None = None

    def close(at: int) -> None:
        nonlocal current
        if current is not None:
            current.end = at
            units.append(current)
            current = None

    for m in tex_walk.markers(text):
        if m.kind == "question":
            close(m.start)
            number = question_number(m.title) if m.title else None
            if number is None:
                number = (start_part or 1) if not seen_question else question + 1
            question, part, sub, seen_question = number, 0, None, True
        elif m.kind.startswith("end_"):
            close(m.start)
            if m.kind == "end_subparts":
                current = Unit(question or start_part or 1, part, None, m.end, len(text)) if part else None
            else:
                part, sub = 0, None
        else:
            close(m.start)
            if not question:
                question = start_part or 1
            if m.kind == "subpart":
                if not part:
                    continue
                for u in units:
                    if u.question == question and u.part == part and u.sub is None:
                        u.has_subparts = True
                sub = (sub or 0) + 1
                current = Unit(question, part, sub, m.end, len(text))
            else:
                part, sub = part + 1, None
                current = Unit(question, part, None, m.end, len(text))
    close(len(text))
    return units


def enumerate_items(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each top-level ``\\item`` of the first ``enumerate`` in ``text`` (from the
    LaTeX parser's nodes: an item of a nested list is its list's, not this one's)."""
    return tex_walk.list_items(text, "enumerate")


def flatten(latex: str) -> str:
    """A prompt's words and symbols, without formatting commands or braces (for the signatures)."""
    text = re.sub(r"\\(?:mathbf|boldsymbol|bm|textbf|textit|emph|text|mathrm|vec)\s*", "", latex)
    return " ".join(text.replace("{", "").replace("}", "").replace("$", " ").split())


@dataclass
class ExamPart:
    """A part as read: its question id (None when it answers none of ours), answer, prompt, place."""

    question: str | None
    label: str
    body: str
    prompt: str
    line: int
    from_block: bool
    notes: list[str] = field(default_factory=list)
    context: str = ""       # a sub-part's parent part's prompt (what a shortened sub-part prompt is about)


def read_exam(text: str, questions: set[str], macros: dict[str, Macro], *,
              start_part: int | None) -> tuple[list[ExamPart], list[str]]:
    """Every part and sub-part of an exam-class document, with its answer, and notes."""
    notes: list[str] = []
    out: list[ExamPart] = []
    units = _units(text, start_part)
    for unit in units:                 # a part's text is read from the document's parse, not parsed again
        tex_walk.known_range(text, unit.start, unit.end)
    found = every_block(text)
    shared, in_blocks = _shared_blocks(text, units, found)
    context: dict[tuple[int, int], str] = {}
    for unit in units:
        raw = text[unit.start:unit.end]
        key = (unit.question, unit.part)
        if unit.sub is None and key in shared and not unit.has_subparts and unit is not units[0] and \
                any(u.sub is not None and (u.question, u.part) == key for u in units):
            continue          # the block after \end{subparts} that answers all of them: given out below
        letter = LETTERS[(unit.part - 1) % 26]
        pieces: list[tuple[str | None, str, int]] = []
        if unit.sub is not None:
            pieces.append((ROMANS[(unit.sub - 1) % len(ROMANS)], raw, unit.start))
        elif not unit.has_subparts and f"{unit.question}{letter}_i" in questions and enumerate_items(raw):
            prompt_items = enumerate_items(raw)
            after = _blocks_after_items(raw, prompt_items, found, unit.start)
            if after is None:
                pieces += [(ROMANS[k % len(ROMANS)], item, unit.start + off)
                           for k, (off, item) in enumerate(prompt_items)]
            else:
                # the prompt's \items are the sub-questions; ONE block after them answers them all
                given, whole = after
                for k, (off, item) in enumerate(prompt_items):
                    numeral = ROMANS[k % len(ROMANS)]
                    read = _part(unit, letter, numeral, questions, given[k] if k < len(given) else "", item,
                                 macros, text, unit.start + off, True)
                    if whole:
                        read.notes.append(f"One answer block answers all the sub-parts of {unit.question}({letter}) "
                                          "without a list, so it was read whole for each of them.")
                    out.append(read)
                continue
        else:
            pieces.append((None, raw, unit.start))
        for roman, piece, offset in pieces:
            blocks, prompt = answer_blocks(piece, found, offset)
            if unit.has_subparts and roman is None and not blocks:
                context[key] = flatten(expand_safely(prompt, macros)[0])[:PROMPT_CHARS]
                continue          # a part's own prompt above its sub-parts
            label = f"{unit.question}({letter})" + (f"({roman})" if roman else "")
            qid = _question_id(unit.question, letter, roman, questions)
            answer = "\n\n".join(blocks) if blocks else piece
            if unit.sub is not None and key in shared:
                items = shared[key]
                answer, blocks = (items[unit.sub - 1] if unit.sub <= len(items) else ""), [""]
            elif unit.sub is not None and not blocks and key in in_blocks:
                answer, blocks = "", [""]     # answered in blocks elsewhere: its prompt is never an answer
            # A part that answers none of the questions is never read: its answer is not converted.
            body, problem = expand_safely(answer, macros) if qid else ("", "")
            prompt_text, _ = expand_safely(prompt, macros)
            part = ExamPart(qid, label, body_to_markdown(body).strip() if body.strip() else "",
                            flatten(prompt_text)[:PROMPT_CHARS], text.count("\n", 0, offset) + 1, bool(blocks))
            if problem:
                part.notes.append(f"The macros of this writeup could not be expanded ({problem}); "
                                  "it was read as written.")
            part.context = context.get(key, "") if unit.sub is not None else ""
            out.append(part)
    return out, notes


Blocks = list[tuple[int, int, str]]


def _blocks_after_items(raw: str, items: list[tuple[int, str]], found: Blocks,
                        offset: int) -> tuple[list[str], bool] | None:
    """When a part's sub-questions are ``\\item``s of its PROMPT and no item holds a block of its
    own, the answers given in the blocks after the list: one per sub-part when a block holds a
    list of its own (True when none does, and the blocks are then each sub-part's whole answer);
    None when the items hold their own blocks or there is no block."""
    spans = [(offset + off, offset + off + len(item)) for off, item in items]
    inside = [(s, e, c) for s, e, c in found if s >= offset and e <= offset + len(raw)]
    if not inside or any(a <= s < b for s, _, _ in inside for a, b in spans):
        return None
    for _, _, block in inside:
        listed = enumerate_items(block)
        if len(listed) >= 2:
            return [item for _, item in listed], False
    whole = "\n\n".join(c for _, _, c in inside)
    return [whole] * len(items), True


def _part(unit: Unit, letter: str, roman: str | None, questions: set[str], answer: str, prompt: str,
          macros: dict[str, Macro], text: str, offset: int, from_block: bool) -> ExamPart:
    """One part as read, its answer and prompt expanded with the document's macros."""
    qid = _question_id(unit.question, letter, roman, questions)
    body, problem = expand_safely(answer, macros) if qid else ("", "")     # never read: not converted
    prompt_text, _ = expand_safely(prompt, macros)
    part = ExamPart(qid,
                    f"{unit.question}({letter})" + (f"({roman})" if roman else ""),
                    body_to_markdown(body).strip() if body.strip() else "",
                    flatten(prompt_text)[:PROMPT_CHARS], text.count("\n", 0, offset) + 1, from_block)
    if problem:
        part.notes.append(f"The macros of this writeup could not be expanded ({problem}); it was read as written.")
    return part


def _shared_blocks(text: str, units: list[Unit],
                   found: Blocks) -> tuple[dict[tuple[int, int], list[str]], set[tuple[int, int]]]:
    """Parts whose sub-parts are answered by ONE block holding a list (one item per sub-part,
    after the last sub-part or after ``\\end{subparts}``): the items, by part; and the parts
    whose sub-parts are answered in blocks at all (a sub-part without one is then unanswered)."""
    shared: dict[tuple[int, int], list[str]] = {}
    in_blocks: set[tuple[int, int]] = set()
    subs: dict[tuple[int, int], list[Unit]] = {}
    for u in units:
        if u.sub is not None:
            subs.setdefault((u.question, u.part), []).append(u)
    for key, group in subs.items():
        last = group[-1]
        after = [u for u in units if u.sub is None and (u.question, u.part) == key and u.start >= last.end]
        own = [answer_blocks(text[u.start:u.end], found, u.start)[0] for u in group]
        if any(own) or any(answer_blocks(text[u.start:u.end], found, u.start)[0] for u in after):
            in_blocks.add(key)
        if any(own[:-1]):
            continue
        for u in [last, *after]:
            for block in answer_blocks(text[u.start:u.end], found, u.start)[0]:
                items = enumerate_items(block)
                if len(items) >= 2:
                    shared[key] = [item for _, item in items]
    return shared, in_blocks


def _question_id(question: int, letter: str, roman: str | None, questions: set[str]) -> str | None:
    if roman and f"{question}{letter}_{roman}" in questions:
        return f"{question}{letter}_{roman}"
    if f"{question}{letter}" in questions:
        return f"{question}{letter}"
    return None


def asks_something_else(question: str, prompt: str, context: str = "") -> bool:
    """Whether a part's prompt is clearly not the prompt of ``question`` (another year's numbering);
    a sub-part's shortened prompt ("Write the answer in terms of y, ŷ and U") is read with its
    parent part's (``context``: "... with respect to v_c")."""
    sign = PROMPT_SIGNS.get(question)
    return bool(sign is not None and len(prompt) > 40 and not sign.search(prompt) and not sign.search(context))
