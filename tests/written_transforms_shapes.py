"""Meaning-preserving rewrites that change a writeup's shape (tests/written_transforms.py):
final answers collected in a summary table, 3(f) written as prose instead of labelled fields,
and question words and labels in another language. Each leaves a writeup it does not fit as it is.

The rewrites are data (the phrasings, the words of each language); the code only places them.
The text is ours; nothing here reads the grader.
"""

from __future__ import annotations

import re
from html import escape

# ---------------------------------------------------------------------------------------------
# Final answers in a summary table

_PART_LINE = re.compile(r"^(?:#{1,2}\s*([1-3])\.\s|Part\s+([1-3])\s*:|##?\s*part\s*([1-3])\s*$)", re.I)
_SUB_LABEL = re.compile(r"^(?:#{2,6}\s*|\*\*)?(?:Q|Question\s*)?([1-3])?\s*[.(]?\s*([a-g])\s*\)?"
                        r"(?:\s*[-(]?\s*(i{1,3})\s*\)?)?\s*:?\s*(?:\*\*)?\s*$")
_FINAL = re.compile(r"^\s*(?:\*\*Answer:\*\*|Answer:|Final answer:)\s*(\S.*)$")
_ANSWERED = ("1b_i", "1e", "2b_i", "3b", "3e_i", "3e_ii")
"""Items whose answer is one line (1(d)'s two cases, 3(a)'s and 3(f)'s tables stay in their sections)."""


def _question(part: int | None, letter: str, roman: str | None) -> str | None:
    if part is None:
        return None
    q = f"{part}{letter}" + (f"_{roman}" if roman else "")
    if q in _ANSWERED:
        return q
    return f"{q}_i" if f"{q}_i" in _ANSWERED else None


def _cell(line: str) -> str | None:
    """One final answer's line as a table cell: display math made inline, ``|`` escaped."""
    m = re.fullmatch(r"\s*\$\$(.+)\$\$\s*", line) or re.fullmatch(r"\s*\\\[(.+)\\\]\s*", line)
    cell = f"${m.group(1).strip()}$" if m else line.strip()
    if "$$" in cell or "\\[" in cell:
        return None
    return cell.replace("|", "\\|")


def html_summary_table(text: str) -> str:
    """:func:`summary_table` written as an HTML table (as Typora or a notebook's HTML cell writes it)."""
    return summary_table(text, html=True)


def summary_table(text: str, *, html: bool = False) -> str:
    """Each one-line final answer ("Answer: ...", "Final answer: ...", the line under a "Final Answer"
    heading, a boxed display line, else a formula on the section's last line) moved out of its section
    into a ``| Question | Final answer |`` table at the end; the derivations stay."""
    lines = text.split("\n")
    part: int | None = None
    current: str | None = None
    found: dict[str, int] = {}
    boxed: dict[str, list[int]] = {}
    under_final = False
    last: dict[str, int] = {}
    labelled: set[str | None] = set()
    for k, line in enumerate(lines):
        if re.fullmatch(r"#{1,6}\s*Final Answer\s*", line.strip()):
            under_final = True
            continue
        if under_final and line.strip():
            under_final = False
            if current is not None and current not in found and not line.startswith("#"):
                found[current] = k
                continue
        m = _PART_LINE.match(line.strip())
        if m:
            part, current = int(next(g for g in m.groups() if g)), None
            continue
        m = _SUB_LABEL.match(line.strip())
        if m and line.strip():
            part = int(m.group(1)) if m.group(1) else part
            current = _question(part, m.group(2), m.group(3))
            if current is not None and current in labelled:
                return text     # a label met twice: the file holds more than this assignment (notes for A1-A3)
            labelled.add(current)
            continue
        if line.startswith("#") or current is None:
            continue
        if line.strip():
            last[current] = k
        if _FINAL.match(line) and current not in found:
            found[current] = k
        elif "\\boxed" in line:
            boxed.setdefault(current, []).append(k)
    for q, ks in boxed.items():
        if q not in found and len(ks) == 1:
            found[q] = ks[0]
    for q, k in last.items():       # else the section's last line, when it is a formula
        if q not in found and re.search(r"\S\s*=\s*\S", lines[k]) and not re.match(r"\s*(?:i\.e\.|\$?\w+ = \w+:)", lines[k]):
            found[q] = k
    rows = []
    for q, k in sorted(found.items(), key=lambda qk: qk[1]):
        m = _FINAL.match(lines[k])
        cell = _cell(m.group(1) if m else lines[k])
        if cell is None:
            continue
        letters = re.fullmatch(r"([1-3])([a-g])(?:_(i+))?", q)
        label = f"{letters.group(1)}({letters.group(2)})" + (f"({letters.group(3)})" if letters.group(3) else "")
        rows.append(f"| {label} | {cell} |")
        lines[k] = "(The final answer is in the summary table at the end.)"
    if len(rows) < 2:
        return text
    heading = "## Summary of final answers" if re.search(r"(?m)^#{1,6} ", text) else "Summary of final answers:"
    if html:
        cells = [re.match(r"\| (.*?) \| (.*) \|$", row).groups() for row in rows]
        body = "".join(f"<tr><td>{q}</td><td>{escape(a.replace(chr(92) + '|', '|'), quote=False)}</td></tr>\n"
                       for q, a in cells)
        return "\n".join(lines).rstrip("\n") + f"\n\n{heading}\n\n<table>\n<tr><th>Question</th><th>Final answer</th></tr>\n" \
            + body + "</table>\n"
    return "\n".join(lines).rstrip("\n") + f"\n\n{heading}\n\n| Question | Final answer |\n|---|---|\n" \
        + "\n".join(rows) + "\n"


# ---------------------------------------------------------------------------------------------
# 3(f) in prose

PROSE_3F = (
    "The error is a {kind}; the wrong arc is {wrong} and it should be {right}.",
    "This is a {kind}: the parser produced {wrong}, but the correct dependency is {right}.",
    "{kind}. The parser attached {wrong} instead of {right}.",
    "Here we have a {kind}, since {wrong} is wrong; it should have been {right}.",
    "A {kind}. It should be {right}, not {wrong}.",
    "{right} is the right dependency for this {kind}; the parser chose {wrong}.",
)
"""How students phrase one sentence's answer (kind, the incorrect arc, the correct arc)."""

_DEP = r"[^\n\\|]*?\S"
_FIELDS = re.compile(
    r"Error type:\s*(?P<kind>[^\n\\]+?)\s*(?P<br1>\\\\)?[ \t]*\n[ \t]*"
    r"(?:Incorrect dependency:\s*(?P<w1>" + _DEP + r")|(?P<w2>" + _DEP + r") is incorrect)\s*(?:\\\\)?[ \t]*\n[ \t]*"
    r"(?:Correct dependency:\s*(?P<r1>" + _DEP + r")|(?P<r2>" + _DEP + r") is correct)(?=[ \t]*$)", re.M)
_TABLE_ROW = re.compile(r"(?m)^\|\s*(i{1,3}|iv)\s*\|([^|\n]+)\|([^|\n]+)\|([^|\n]+)\|\s*$")


def _phrase(k: int, kind: str, wrong: str, right: str) -> str:
    return PROSE_3F[k % len(PROSE_3F)].format(kind=kind.strip(), wrong=wrong.strip(), right=right.strip())


def errors_in_prose(text: str) -> str:
    """3(f)'s labelled fields (``Error type: / Incorrect dependency: / Correct dependency:``, or
    ``A is incorrect / B is correct``) and its table rows, written as one sentence of prose each."""
    count = iter(range(1 << 30))
    text = _FIELDS.sub(lambda m: _phrase(next(count), m.group("kind"), m.group("w1") or m.group("w2"),
                                         m.group("r1") or m.group("r2")), text)
    header = re.search(r"(?im)^\|.*incorrect.*\|\s*$", text)
    cells = [c.strip().lower() for c in header.group(0).strip().strip("|").split("|")] if header else []
    wrong_col = next((k for k, c in enumerate(cells) if "incorrect" in c), -1)
    right_col = next((k for k, c in enumerate(cells) if "correct" in c and "incorrect" not in c), -1)
    if header and (wrong_col, right_col) == (2, 3):      # the columns as the phrase reads them; else left as written
        text = _TABLE_ROW.sub(lambda m: f"{m.group(1)}. " + _phrase(next(count), m.group(2), m.group(3), m.group(4)), text)
        text = re.sub(r"(?im)^\|[^\n]*incorrect[^\n]*\|\s*\n\|[-| :]+\|\s*$", "", text)
    return text


# ---------------------------------------------------------------------------------------------
# Question words and labels in another language

LANGUAGES: dict[str, dict[str, object]] = {
    "Chinese": {
        "part": ("第{n}题 ", "第{n}题："), "question": "问题",
        "labels": {"Final answer:": "最终答案：", "**Answer:**": "**答案：**", "Answer:": "答案：",
                   "Error type:": "错误类型：", "Incorrect dependency:": "错误的依存：",
                   "Correct dependency:": "正确的依存：", " is incorrect": " 是错误的", " is correct": " 是正确的",
                   "Final Answer": "最终答案"},
        "header": {"Stack": "栈", "Buffer": "缓冲区", "New dependency": "新依存关系", "Transition": "转移",
                   "Sentence": "句子", "Error type": "错误类型", "Incorrect dependency": "错误的依存",
                   "Correct dependency": "正确的依存"},
    },
    "Korean": {
        "part": ("문제 {n}. ", "문제 {n}: "), "question": "문제",
        "labels": {"Final answer:": "최종 답:", "**Answer:**": "**답:**", "Answer:": "답:",
                   "Error type:": "오류 유형:", "Incorrect dependency:": "잘못된 의존 관계:",
                   "Correct dependency:": "올바른 의존 관계:", " is incorrect": " 는 잘못됨", " is correct": " 가 올바름",
                   "Final Answer": "최종 답"},
        "header": {"Stack": "스택", "Buffer": "버퍼", "New dependency": "새 의존 관계", "Transition": "전이",
                   "Sentence": "문장", "Error type": "오류 유형", "Incorrect dependency": "잘못된 의존 관계",
                   "Correct dependency": "올바른 의존 관계"},
    },
    "Spanish": {
        "part": ("Pregunta {n}. ", "Pregunta {n}: "), "question": "Pregunta ",
        "labels": {"Final answer:": "Respuesta final:", "**Answer:**": "**Respuesta:**", "Answer:": "Respuesta:",
                   "Error type:": "Tipo de error:", "Incorrect dependency:": "Dependencia incorrecta:",
                   "Correct dependency:": "Dependencia correcta:", " is incorrect": " es incorrecta",
                   " is correct": " es correcta", "Final Answer": "Respuesta final"},
        "header": {"Stack": "Pila", "Buffer": "Búfer", "New dependency": "Nueva dependencia", "Transition": "Transición",
                   "Sentence": "Oración", "Error type": "Tipo de error", "Incorrect dependency": "Dependencia incorrecta",
                   "Correct dependency": "Dependencia correcta"},
    },
}
"""Each language's question word for a part heading (Markdown, plain text), for ``Question``/``Q``
before a label, its answer and 3(f) field labels (written correct dependency first, as are the columns
of a 3(f) table), and its 3(a)/3(f) table headers."""


def _in_errors_table(text: str, at: int) -> bool:
    """Whether the table row at ``at`` belongs to a 3(f) table (its header names an incorrect dependency)."""
    start = at
    while start > 0 and text[text.rfind("\n", 0, start - 1) + 1:start].lstrip().startswith("|"):
        start = text.rfind("\n", 0, start - 1) + 1
    return "Incorrect dependency" in text[start:text.find("\n", start)]


def in_language(name: str):
    words = LANGUAGES[name]

    def rewrite(text: str) -> str:
        md_part, txt_part = words["part"]
        text = re.sub(r"(?m)^#(\s*)([1-3])\.\s+", lambda m: f"#{m.group(1)}" + md_part.format(n=m.group(2)), text)
        text = re.sub(r"(?m)^##?\s*part\s*([1-3])\s*$", lambda m: "## " + md_part.format(n=m.group(1)).strip(), text,
                      flags=re.I | re.M)
        text = re.sub(r"(?m)^Part\s+([1-3])\s*:\s*", lambda m: txt_part.format(n=m.group(1)), text)
        text = re.sub(r"(?m)^(#*\s*)(?:Question\s*|Q)([1-3])(?=[ \t]*\(|[a-g])", lambda m: m.group(1) + words["question"]
                      + m.group(2), text)
        # the correct dependency first, so that only the words say which arc is which
        text = re.sub(r"(?m)^(Incorrect dependency: .*?)(\s*(?:\\\\)?\n[ \t]*)(Correct dependency: .*?)(?=[ \t]*(?:\\\\)?$)",
                      r"\3\2\1", text)
        text = re.sub(r"(?m)^(.+ is incorrect)(\s*(?:\\\\)?\n[ \t]*)(.+ is correct)(?=[ \t]*(?:\\\\)?$)", r"\3\2\1", text)
        text = re.sub(r"(?m)^(\|[^|\n]*\|[^|\n]*\|)([^|\n]*)\|([^|\n]*)\|[ \t]*$",
                      lambda m: f"{m.group(1)}{m.group(3)}|{m.group(2)}|" if _in_errors_table(text, m.start()) else m.group(0), text)
        for english, other in words["labels"].items():
            text = text.replace(english, other)

        def header(m: re.Match) -> str:
            cells = [c.strip() for c in m.group(0).strip().strip("|").split("|")]
            return "| " + " | ".join(words["header"].get(c, c) for c in cells) + " |"
        return re.sub(r"(?m)^\|\s*(?:Stack|Sentence)\s*\|.*\|\s*$", header, text)
    return rewrite


# ---------------------------------------------------------------------------------------------
# The course template's answer blocks written other ways

_ANSWER_BLOCK = re.compile(r"\\ifans\s*(?=\{)")


def _answer_blocks(text: str, rewrite) -> str:
    """Each ``\\ifans{...}`` of the course template rewritten by ``rewrite(body)``."""
    from grader.reading.braces import group
    out, pos = [], 0
    for m in _ANSWER_BLOCK.finditer(text):
        if m.start() < pos:
            continue
        found = group(text, m.end())
        if found is None:
            break
        out.append(text[pos:m.start()])
        out.append(rewrite(found[0]))
        pos = found[1]
    out.append(text[pos:])
    return "".join(out)


def answers_in_colour(text: str) -> str:
    """The answer blocks' content in blue (``\\ifans{{\\color{blue} ...}}``), as many students mark theirs."""
    return _answer_blocks(text, lambda body: "\\ifans{{\\color{blue} " + body + "}}")


def answers_marked_not_wrapped(text: str) -> str:
    """``\\ifans{...}`` replaced by its content after a bold "Answer:" (a student who deleted the
    template's macro and marked the answer in the text)."""
    return _answer_blocks(text, lambda body: "\n\\textbf{Answer:} " + body.strip() + "\n")


def _tex_displays(text: str, rewrite) -> str:
    """Each ``$$...$$`` / ``\\[...\\]`` of a .tex file (as the reader's math tokenizer finds them; not
    in a comment) rewritten by ``rewrite(body)``."""
    from grader.reading.braces import math_groups
    out, pos = [], 0
    for start, end, body, display in math_groups(text):
        line = text[text.rfind("\n", 0, start) + 1:start]
        if not display or not text.startswith(("$$", "\\["), start) or "%" in line.replace("\\%", ""):
            continue
        out.append(text[pos:start])
        out.append(rewrite(body.strip()))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def displays_as_align(text: str) -> str:
    """``$$A = B$$`` as ``\\begin{align*} A &= B \\end{align*}`` (the alignment point at the first ``=``)."""
    return _tex_displays(text, lambda body: "\\begin{align*}\n" + body.replace("=", "&=", 1) + "\n\\end{align*}"
                         if "\\\\" not in body and "&" not in body else f"$${body}$$")


def commented_drafts(text: str) -> str:
    """A commented-out wrong draft (``% $$...^\\top$$``) above each display: TeX never prints it."""
    def draft(body: str) -> str:
        lines = f"draft: $${body} + 1$$ (wrong, redone below)".split("\n")
        return "".join(f"% {line}\n" for line in lines) + f"$${body}$$"
    return _tex_displays(text, draft)


def _in_math(text: str, rewrite, *, display_only: bool = False) -> str:
    """Each math group's body (as the reader's math tokenizer finds them) rewritten by ``rewrite``,
    its delimiters kept; math in a LaTeX comment line is left as it is."""
    from grader.reading.braces import math_groups
    out, pos = [], 0
    for start, end, body, display in math_groups(text):
        line = text[text.rfind("\n", 0, start) + 1:start]
        rest = text[end:text.find("\n", end) if "\n" in text[end:] else len(text)]
        if (display_only and (not display or line.strip() or rest.strip(" \t.,;"))) or "%" in line.replace("\\%", "") \
                or not body.strip():
            continue        # display_only: a display on lines of its own (kramdown's inline $$ is not one)
        at = text.find(body, start)
        out.append(text[pos:at])
        out.append(rewrite(body))
        pos = at + len(body)
    out.append(text[pos:])
    return "".join(out)


def html_commented_drafts(text: str) -> str:
    """A wrong draft in an HTML comment above each ``$$`` display of a Markdown file (never rendered)."""
    return re.sub(r"(?m)^\$\$([^$\n]+)\$\$[ \t]*$", lambda m: f"<!-- draft: $${m.group(1)} + 1$$ (wrong) -->\n{m.group(0)}", text)


def tagged_displays(text: str) -> str:
    """An equation number ``\\tag{k}`` at the end of each display."""
    count = iter(range(1, 1 << 30))
    return _in_math(text, lambda body: f"{body.rstrip()} \\tag{{{next(count)}}}"
                    if "\\\\" not in body and "\\end" not in body else body, display_only=True)


def displays_end_with_a_period(text: str) -> str:
    """A display ending its sentence with a full stop inside the math (``$$x = y.$$``)."""
    return _in_math(text, lambda body: body.rstrip() + "." if not body.rstrip().endswith((".", ",", "\\\\"))
                    and "\\end" not in body[-12:] else body, display_only=True)


def sized_brackets(text: str) -> str:
    """Every round bracket in math sized by ``\\left(`` ... ``\\right)`` (balanced pairs only)."""
    def sized(body: str) -> str:
        if body.count("(") != body.count(")") or "\\left" in body or "\\right" in body or "\\intertext" in body:
            return body
        return re.sub(r"(?<!\\)\(", r"\\left(", re.sub(r"(?<!\\)\)", r"\\right)", body))
    return _in_math(text, sized)


def transposes_as_intercal(text: str) -> str:
    """A transpose written ``^\\intercal`` (``^T``, ``^\\top``, ``^{\\top}`` in the original)."""
    return _in_math(text, lambda body: re.sub(r"\^\s*(?:\{\s*(?:\\top|T)\s*\}|\\top(?![A-Za-z])|T(?![A-Za-z0-9]))",
                                              r"^{\\intercal}", body))

