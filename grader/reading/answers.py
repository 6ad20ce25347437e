"""Find the final answer inside a section: what a TA's eye goes to first.

Candidates come in the order a reader trusts them: math after an "Answer:" marker (on the same
line or shortly after it), the text of an "Answer:" line without math, ``\\boxed{}`` contents,
then display math from the last block backwards, then inline math from the last backwards. A
derivation chain ``a = b = c`` (also over ``\\\\`` lines of ``aligned``) answers with its last
right-hand side; trailing prose inside the math (``\\quad \\text{where ...}``) is cut off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from grader.reading.answer_words import ANSWER, FINAL_ANSWER, SOLUTION, alternation, conclusion
from grader.reading.braces import group, math_groups
from grader.reading.equation_lines import equation_lines
from grader.reading.kept import per_writeup
from grader.reading.notation import dropped_case
from grader.reading.remarks import _CONDITION_WORDS, _PROSE_WORD, _remark_paren, cut_remark
from grader.reading.rows import drop_layout, result_rows
from grader.reading.sides import last_rhs, lhs

MAX_CANDIDATES = 40
"""Formulas considered per section (the rest of a long derivation is not read)."""
MARKER_REACH = 700
"""How far (characters) after an "Answer:" marker its math may start."""

MARKED = "marked"
MARKED_TEXT = "marked-text"
BOXED = "boxed"
DISPLAY = "display"
INLINE = "inline"
TEXT = "text"
PLAIN = "plain"       # an equation typed without math delimiters: "∂J/∂v_c = U(ŷ − y)"
TAIL = "tail"         # the formula a plain-text line ends with: "so it should be 1/(1 - pdrop)"


@dataclass(frozen=True)
class MathSpan:
    latex: str
    display: bool
    start: int
    end: int


@dataclass(frozen=True)
class Candidate:
    """One possible final answer: its LaTeX (whole), kind, and the text just before it."""

    latex: str
    kind: str
    start: int
    before: str
    end: int = -1
    after: str = ""       # the words right after it ("when $w = o$"), for conditions written in prose

    @property
    def rhs(self) -> str:
        return last_rhs(self.latex)

    @property
    def cut_case(self) -> str:       # the case condition cut from its end (W_ji if z_i > 0, no other case), or ""
        return dropped_case(self.latex + re.split(r"[.;\n]", self.after, maxsplit=1)[0])


_WORDS = alternation(FINAL_ANSWER, ANSWER, SOLUTION)
_MARKER = re.compile(r"(?im)(?:^|(?<=[\s>*_#(]))(?:(?:\*\*|__|\\textbf\{)?[ \t]*" + _WORDS + r"[ \t]*"
                     r"(?:\*\*|__|\})?[ \t]*[:：]|(?:\*\*|__|\*|_|\\textbf\{|\\emph\{|\\textit\{)" + _WORDS + r"\."
                     r"(?:\*\*|__|\*|_|\}))[ \t]*(?:\*\*|__)?")
_CONDITION_ONLY = re.compile(r"^\s*[a-z](?:_\{?\w\}?)?\s*(?:=|\\neq?|≠|!=|>|<|\\geq?|\\leq?)\s*[a-z0-9](?:_\{?\w\}?)?\s*$")


def opens_with_marker(line: str) -> bool:
    """Whether a line starts with an "Answer:" marker (``**Answer:**``, ``Final answer:``, or a full stop in bold: ``**Answer.**``)."""
    return _MARKER.match(line.strip()) is not None


def is_condition(latex: str) -> bool:
    """``w = o``, ``i \\neq c``, ``z_i > 0``: a case condition, never an answer."""
    return bool(_CONDITION_ONLY.match(latex))


def math_spans(text: str) -> list[MathSpan]:
    """Every math span of ``text`` in order (:func:`grader.reading.braces.math_groups`: ``$$..$$``,
    ``\\[..\\]``, display environments, ``$..$``, ``\\(..\\)``)."""
    return [MathSpan(row, display, start + k, end) for start, end, body, display in math_groups(text)
            for k, row in enumerate(result_rows(drop_layout(body)) if display else [drop_layout(body)])]


def _line_before(text: str, pos: int) -> str:
    """The text before ``pos``: its own line, or the previous non-empty line if that is empty."""
    head = text[:pos]
    line_start = head.rfind("\n") + 1
    current = head[line_start:]
    if current.strip(" *_#>$"):
        return current
    previous = [ln for ln in head[:line_start].split("\n") if ln.strip()]
    return previous[-1] if previous else ""


_BOXED = re.compile(r"(?:\\(?:boxed|fbox)|\x08oxed|(?<![A-Za-z\\])oxed)\s*(?=\{)")


def boxed_contents(text: str) -> list[tuple[int, str]]:
    """(offset, content) of every ``\\boxed{...}`` (also ``oxed{`` that lost its ``\\b`` in a paste)."""
    out = []
    for m in _BOXED.finditer(text):
        got = group(text, m.end())
        if got is not None:
            out.append((m.start(), got[0]))
    return out


def unboxed(latex: str) -> str:
    """A formula that is one box (``\\boxed{\\gamma = ...}`` after "Answer:") as the formula inside it;
    anything else as it is."""
    boxes = boxed_contents(latex)
    if len(boxes) == 1 and not latex[:boxes[0][0]].strip():
        start, inner = boxes[0]
        end = latex.find("{", start) + len(inner) + 2
        if not latex[end:].strip():
            return inner
    return latex


def candidates(text: str) -> list[Candidate]:
    """The section's possible final answers, most trusted first (read once a writeup: each checker
    and filter of a section asks again)."""
    return list(_candidates(text))


@per_writeup(maxsize=64)
def _candidates(text: str) -> tuple[Candidate, ...]:
    spans = [s for s in math_spans(text) if not is_condition(s.latex)]
    parts = prose_case_parts(text, spans)
    spans = [s for s in spans if s.start not in parts]
    found: list[Candidate] = []
    seen: set[tuple[int, bool]] = set()

    def add(c: Candidate) -> None:
        key = (c.start, c.kind in (MARKED, MARKED_TEXT))
        if key not in seen and c.latex.strip():
            seen.add(key)
            found.append(replace(c, latex=unboxed(c.latex)))

    for m in _MARKER.finditer(text):
        line_end = text.find("\n", m.end())
        line_end = line_end if line_end >= 0 else len(text)
        line_rest = text[m.end():line_end]
        reach = [s for s in spans if m.end() <= s.start <= m.end() + MARKER_REACH
                 or s.start < m.end() <= s.end]
        next_marker = _MARKER.search(text, m.end())
        if next_marker:
            reach = [s for s in reach if s.start < next_marker.start()]
        # The answer is the marker line's math if it has any, else the first display math after it
        # ("Answer:" / "The derivative of $J$ with respect to $U$ is:" / $$...$$), else inline math.
        on_line = [s for s in reach if s.start < line_end]
        after = on_line or [s for s in reach if s.display] or reach
        if after:
            span = conclusion(text, after[0], reach, lambda a, b: "".join(lhs(a).split()) == "".join(lhs(b).split()) != "")
            add(Candidate(_with_prose_cases(span.latex, text, span.end), MARKED, span.start,
                          _line_before(text, span.start), span.end))
        elif line_rest.strip(" *_"):
            line_rest, line_end = _wrapped(text, line_rest, line_end)
            add(Candidate(line_rest.strip(" *_"), MARKED_TEXT, m.end(), text[max(0, m.start() - 80):m.start()],
                          line_end))
    for line_start, line in _lines_under_markers(text, spans):
        add(Candidate(line, MARKED_TEXT, line_start, _line_before(text, line_start), line_start + len(line)))
    for start, inner in reversed(boxed_contents(text)):
        add(Candidate(inner, BOXED, start, _line_before(text, start), start + len(inner)))
    for span in reversed([s for s in spans if s.display]):
        add(Candidate(_with_prose_cases(span.latex, text, span.end), DISPLAY, span.start,
                      _line_before(text, span.start), span.end, _words_after(text, span.end)))
    for plain in reversed(plain_equations(text, spans)):
        add(plain)
    for span in reversed([s for s in spans if not s.display]):
        add(Candidate(_with_prose_cases(span.latex, text, span.end), INLINE, span.start,
                      _line_before(text, span.start), span.end, _words_after(text, span.end)))
    return tuple(found[:MAX_CANDIDATES])


_MARKER_LINE = re.compile(r"(?im)^[ \t>]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*" + alternation(FINAL_ANSWER, ANSWER) + r"s?[ \t]*(?:\*\*|__)?"
                          r"[ \t]*[:：]?[ \t]*(?:\*\*|__)?[ \t]*$")
"""A line that is only a marker (``#### Final Answer``, ``**Answer:**``, ``Final answer:``): the answer is on the next line."""


def _lines_under_markers(text: str, spans: list[MathSpan]) -> list[tuple[int, str]]:
    """(offset, line) of the formula typed without math on the first non-blank line under a line
    that is only a marker (``#### Final Answer`` then ``1/(1 - p_drop)``): the answer the marker
    names, as the line after "Answer:" is. Not a line with math (read as math), an equation (its
    left-hand side names it) or prose (a sentence, not a formula)."""
    out = []
    for m in _MARKER_LINE.finditer(text):
        rest = text[m.end():]
        skipped = len(rest) - len(rest.lstrip("\n"))
        if rest[:skipped].count("\n") > 2:
            continue
        start = m.end() + skipped
        end = text.find("\n", start)
        end = end if end >= 0 else len(text)
        line = text[start:end].strip()
        if not line or "=" in line or line.startswith(("#", "|")) or any(start <= s.start < end or s.start < start < s.end for s in spans):
            continue
        if _PROSE_WORD.search(cut_remark(line)):
            continue
        out.append((start + text[start:end].find(line), line))
    return out


_PROSE_CASES = re.compile(
    r"^[\s,;:(]*(?:if|when|where)\s+\$(?P<cond>[^$]+)\$\s*[,;]?\s*(?:and|or|,|;)?\s*"
    r"(?:(?:\$(?P<other>[^$]+)\$|(?P<zero>zero))\s*(?:otherwise|else|elsewhere|if\s+not|for\s+all\s+other"
    r"|(?:if|when)\s+\$(?P<cond2>[^$]+)\$)"
    r"|(?:otherwise|else|elsewhere)\s*[,:]?\s*(?:it\s+is\s+)?(?:\$(?P<other2>[^$]+)\$|zero))",   # ", else $0$"
    re.I)


def prose_case_parts(text: str, spans: list[MathSpan]) -> set[int]:
    """Starts of the math that belongs to another formula's cases in prose (the ``$0$`` of ``$W_{ji}$
    if $z_i > 0$ and $0$ otherwise``): a part of that answer, never an answer of its own."""
    parts: set[int] = set()
    for s in spans:
        m = _PROSE_CASES.match(text[s.end:s.end + 240])
        if m and s.start not in parts:
            parts.update(t.start for t in spans if s.end <= t.start < s.end + m.end())
    return parts


def _with_prose_cases(latex: str, text: str, end: int) -> str:
    """``$W_{ji}$ if $z_i > 0$ and $0$ otherwise`` (or ``... and $b$ if $i \\neq c$``): the formula with its cases written in prose,
    as the cases a ``\begin{cases}`` would state (the formula itself when none follow it)."""
    m = _PROSE_CASES.match(text[end:end + 240])
    rhs = last_rhs(latex)
    if m is None or not rhs or not latex.rstrip().endswith(rhs):
        return latex
    head = latex.rstrip()[:len(latex.rstrip()) - len(rhs)]
    other = m.group("other") or m.group("other2") or "0"
    if lhs(other) and "".join(lhs(other).split()) == "".join(lhs(latex).split()):
        other = last_rhs(other)      # the second case repeats the left-hand side: its value is the rest
    second = m.group("cond2") or r"\text{otherwise}"
    return rf"{head}\begin{{cases}} {rhs} & {m.group('cond')} \\ {other} & {second} \end{{cases}}"


_CONDITION_AFTER = re.compile(r"^[\s,;:(]*(?:\\text\{\s*)?(?:when|if|for|where|in\s+the\s+case|otherwise|else(?:where)?"
                              r"|in\s+(?:all\s+)?other\s+cases)\b", re.I)


def _words_after(text: str, end: int) -> str:
    """A condition written right after a formula ("... when $w \\neq o$"), up to the sentence's end."""
    rest = text[end:end + 120]
    if not _CONDITION_AFTER.match(rest):
        return ""
    stop = re.search(r"(?:\.\s|\n|;|,?\s+and\s+\$|,?\s+and\s+(?=[^$]*\$[^$]*\$\s*(?:when|if|for)))", rest)
    return rest[:stop.start()] if stop else rest


_PLAIN_EQUATION = re.compile(
    r"(?m)^[^\n∂$]{0,60}?(?<![A-Za-z])(?P<lhs>(?:∂|d)\s*[^\s/=]{0,16}\s*/\s*(?:∂|d)\s*[^\s=]{1,16}"
    r"|γ|gamma)\s*=\s*(?P<rhs>[^\n]+?)\s*$")


def plain_equations(text: str, spans: list[MathSpan]) -> list[Candidate]:
    """Equations typed as plain text (Unicode, no $): their left side names what they answer; Markdown's
    bold around one (``**γ = 1/(1 − p)**``) is not part of it."""
    masked = equation_lines(text)        # bold, inline code, a second equation on the line
    pieces, pos = [], 0
    for start, end in sorted((s.start, s.end) for s in spans):     # the math blanked, in one pass
        start = max(start, pos)
        if end > start:
            pieces += [masked[pos:start], " " * (end - start)]
            pos = end
    masked = "".join(pieces) + masked[pos:]
    out = []
    for m in _PLAIN_EQUATION.finditer(masked):
        raw, end = _wrapped(masked, m.group("rhs"), m.end("rhs"))
        rhs = cut_remark(raw).strip(" ,")
        rest = raw[len(rhs):] if raw.startswith(rhs) else ""
        condition = rest if _CONDITION_WORDS.match(rest) else ""
        if not rhs or not re.search(r"[A-Za-z0-9ŷ]", rhs):
            continue
        latex = f"{m.group('lhs')} = {rhs}"
        out.append(Candidate(latex, PLAIN, m.start("lhs"), _line_before(text, m.start("lhs")), end, condition))
    return out


WRAPPED_LINES = 2
"""Lines a plain-text equation may continue on when it was hard-wrapped (an open bracket, a trailing operator)."""


CHAIN_LINES = 6
"""Lines a plain-text derivation may go on over, each starting with ``=``."""


def _wrapped(text: str, rhs: str, end: int) -> tuple[str, int]:
    """``rhs`` with the lines it was hard-wrapped onto: while a bracket is open or the line ends with an
    operator or a comma, the next non-blank line of the paragraph continues it; so does a next line
    that starts with ``=`` (a derivation going on: its last side is the answer)."""
    wraps = 0
    for _ in range(WRAPPED_LINES + CHAIN_LINES):
        stop = text.find("\n", end + 1)
        line = text[end + 1:stop if stop >= 0 else len(text)]
        if text[end:end + 1] != "\n" or not line.strip():
            break
        if line.lstrip().startswith("=") and not line.lstrip().startswith("=>"):
            rhs, end = f"{rhs} {line.strip()}", end + 1 + len(line)
            continue
        if wraps >= WRAPPED_LINES or not (rhs.count("(") > rhs.count(")")
                                          or rhs.rstrip().endswith(("+", "-", "−", "*", "·", ",", "(", "="))):
            break
        wraps += 1
        rhs, end = f"{rhs} {line.strip()}", end + 1 + len(line)
    return rhs, end


_LINE_LABEL = re.compile(r"^[\s*_#>]*(?:\(?(?:[a-h]|[ivx]{1,4}|\d)[).:](?:\s+|(?=\()|[*_\s]*$))+")
"""A question's label at a line's start (``(a) ``, ``ii. ``), or a line that is only a label, bold or not (``**(e)(i)**``)."""
_REFERENCE = re.compile(r"(?<![A-Za-z0-9_])[1-3]?\s*\([a-h]\)\s*(?:\([ivx]{1,4}\))?$")
"""A question's label ending a line ("see the end of 3(e)(i)"): a reference, not a formula."""
_TAIL_TOKEN = re.compile(r"[A-Za-z]+|\d+(?:\.\d+)?|=>|⇒|->|→|\s+|.", re.S)
_TAIL_STOP = {",", ";", ":", "=>", "⇒", "->", "→", "?", '"', "'", "`"}


def plain_tails(text: str, known) -> list[Candidate]:
    """The formula each line of a section typed without math ends with (``i) - U(y - Yhat)``, ``so it
    should be 1/(1 - pdrop)``, ``so 2*N``): read back from the line's end over numbers, operators,
    brackets and the words ``known`` says are the question's names, to the first other word. Only for
    a section with no math delimiters and no LaTeX; latest line first."""
    if "$" in text or "\\" in text:
        return []
    out = []
    offset = 0
    for line in text.split("\n"):
        start = offset
        offset += len(line) + 1
        body = _LINE_LABEL.sub("", line)
        paren = _remark_paren(body)
        if paren > 0 and not all(known(w) for w in _TAIL_TOKEN.findall(body[paren:]) if w.isalpha()):
            body = body[:paren]          # "(since the sum of y is one)": a remark, not the formula's bracket
        tokens = _TAIL_TOKEN.findall(body.rstrip(" .;"))
        kept: list[str] = []
        for tok in reversed(tokens):
            if tok in _TAIL_STOP or tok.isalpha() and not known(tok):
                break
            kept.append(tok)
        tail = "".join(reversed(kept)).strip()
        while tail and (tail[0] in "=)]}*/^.,+" or tail.count("(") < tail.count(")") and tail[0] != "("):
            tail = tail[1:].strip()
        if tail.count("(") != tail.count(")") or not any(known(w) for w in kept if w.isalpha()) \
                or _REFERENCE.search(body.rstrip(" .;")):
            continue
        at = start + line.rfind(tail) if tail in line else start
        out.append(Candidate(tail, TAIL, at, line[:max(0, at - start)], at + len(tail)))
    return list(reversed(out))
