"""Find the final answer inside a section: what a TA's eye goes to first.

Candidates come in the order a reader trusts them: math after an "Answer:" marker (on the same
line or shortly after it), the text of an "Answer:" line without math, ``\\boxed{}`` contents,
then display math from the last block backwards, then inline math from the last backwards. A
derivation chain ``a = b = c`` (also over ``\\\\`` lines of ``aligned``) answers with its last
right-hand side; trailing prose inside the math (``\\quad \\text{where ...}``) is cut off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.written.braces import group, scan, top_level_split

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


_MARKER = re.compile(r"(?im)(?:^|(?<=[\s>*_#(]))(?:\*\*|__|\\textbf\{)?[ \t]*(?:final[ \t]+answer|answer|result|solution)"
                     r"[ \t]*(?:\*\*|__|\})?[ \t]*[:：][ \t]*(?:\*\*|__)?")
_MATH = re.compile(
    r"\$\$(?P<dd>.+?)\$\$|\\\[(?P<br>.+?)\\\]|\\begin\{(?P<env>equation\*?|align\*?|gather\*?|multline\*?|displaymath)\}"
    r"(?P<envbody>.+?)\\end\{(?P=env)\}|(?<![\\$])\$(?P<d>[^$\n]+?)\$(?!\$)|\\\((?P<pr>.+?)\\\)",
    re.S)


_CONDITION_ONLY = re.compile(r"^\s*[a-z](?:_\{?\w\}?)?\s*(?:=|\\neq?|≠|!=|>|<|\\geq?|\\leq?)\s*[a-z0-9](?:_\{?\w\}?)?\s*$")


def is_condition(latex: str) -> bool:
    """``w = o``, ``i \\neq c``, ``z_i > 0``: a case condition, never an answer."""
    return bool(_CONDITION_ONLY.match(latex))


def math_spans(text: str) -> list[MathSpan]:
    """Every math span of ``text`` in order: ``$$..$$``, ``\\[..\\]``, environments, ``$..$``, ``\\(..\\)``."""
    spans = []
    for m in _MATH.finditer(text):
        if m.group("dd") is not None:
            spans.append(MathSpan(m.group("dd"), True, m.start(), m.end()))
        elif m.group("br") is not None:
            spans.append(MathSpan(m.group("br"), True, m.start(), m.end()))
        elif m.group("envbody") is not None:
            spans.append(MathSpan(m.group("envbody"), True, m.start(), m.end()))
        elif m.group("d") is not None:
            spans.append(MathSpan(m.group("d"), False, m.start(), m.end()))
        elif m.group("pr") is not None:
            spans.append(MathSpan(m.group("pr"), False, m.start(), m.end()))
    return spans


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


def candidates(text: str) -> list[Candidate]:
    """The section's possible final answers, most trusted first."""
    spans = [s for s in math_spans(text) if not is_condition(s.latex)]
    found: list[Candidate] = []
    seen: set[tuple[int, bool]] = set()

    def add(c: Candidate) -> None:
        key = (c.start, c.kind in (MARKED, MARKED_TEXT))
        if key not in seen and c.latex.strip():
            seen.add(key)
            found.append(c)

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
            span = after[0]
            add(Candidate(span.latex, MARKED, span.start, _line_before(text, span.start), span.end))
        elif line_rest.strip(" *_"):
            add(Candidate(line_rest.strip(" *_"), MARKED_TEXT, m.end(), text[max(0, m.start() - 80):m.start()],
                          m.end() + len(line_rest)))
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
    return found[:MAX_CANDIDATES]


_PROSE_CASES = re.compile(
    r"^[\s,;:(]*(?:if|when|where)\s+\$(?P<cond>[^$]+)\$\s*[,;]?\s*(?:and|or|,|;)?\s*"
    r"(?:\$(?P<other>[^$]+)\$|(?P<zero>zero))\s*(?:otherwise|else|elsewhere|if\s+not|for\s+all\s+other)",
    re.I)


def _with_prose_cases(latex: str, text: str, end: int) -> str:
    """``$W_{ji}$ if $z_i > 0$ and $0$ otherwise``: the formula with its cases written in prose,
    as the cases a ``\begin{cases}`` would state (the formula itself when none follow it)."""
    m = _PROSE_CASES.match(text[end:end + 240])
    rhs = last_rhs(latex)
    if m is None or not rhs or not latex.rstrip().endswith(rhs):
        return latex
    head = latex.rstrip()[:len(latex.rstrip()) - len(rhs)]
    other = m.group("other") or "0"
    return rf"{head}\begin{{cases}} {rhs} & {m.group('cond')} \\ {other} & \text{{otherwise}} \end{{cases}}"


_CONDITION_AFTER = re.compile(r"^[\s,;:(]*(?:\\text\{\s*)?(?:when|if|for|where|in\s+the\s+case)\b", re.I)


def _words_after(text: str, end: int) -> str:
    """A condition written right after a formula ("... when $w \\neq o$"), up to the sentence's end."""
    rest = text[end:end + 120]
    if not _CONDITION_AFTER.match(rest):
        return ""
    stop = re.search(r"(?:\.\s|\n|;|,?\s+and\s+\$|,?\s+and\s+(?=[^$]*\$[^$]*\$\s*(?:when|if|for)))", rest)
    return rest[:stop.start()] if stop else rest


_PLAIN_EQUATION = re.compile(
    r"(?m)^[^\n∂=$]{0,60}?(?<![A-Za-z])(?P<lhs>(?:∂|d)\s*[^\s/=]{1,16}\s*/\s*(?:∂|d)\s*[^\s=]{1,16}"
    r"|γ|gamma)\s*=\s*(?P<rhs>[^\n]+?)\s*$")
_PLAIN_PROSE = re.compile(r"\s+(?=(?:where|since|because|when|if|for|with|which|so|as)\b)|[.;]\s|[.;]$|,\s+(?=[a-z]{3,}\s)",
                          re.I)


def plain_equations(text: str, spans: list[MathSpan]) -> list[Candidate]:
    """Equations typed as plain text (Unicode, no $): their left side names what they answer."""
    masked = text
    for s in spans:
        masked = masked[:s.start] + " " * (s.end - s.start) + masked[s.end:]
    out = []
    for m in _PLAIN_EQUATION.finditer(masked):
        rhs = m.group("rhs")
        cut = _PLAIN_PROSE.search(rhs)
        condition = rhs[cut.start():] if cut else ""
        rhs = (rhs[:cut.start()] if cut else rhs).strip(" ,")
        if not rhs or not re.search(r"[A-Za-z0-9ŷ]", rhs):
            continue
        latex = f"{m.group('lhs')} = {rhs}"
        out.append(Candidate(latex, PLAIN, m.start("lhs"), _line_before(text, m.start("lhs")), m.end("rhs"),
                             condition))
    return out


# ---------------------------------------------------------------------------------------------
# The last right-hand side of a chain

_CHAIN_ENVS = re.compile(r"\\(?:begin|end)\s*\{(?:aligned|align\*?|split|gathered|gather\*?|eqnarray\*?|"
                         r"array)\}(?:\s*\{[^{}]*\})?")
_PROSE_CUT = re.compile(r"\\(?:quad|qquad|text|mbox|textrm|textit|hspace|tag)\b|\\,\s*\\text|\\;\\text")


def _top_level_splits(text: str, seps: tuple[str, ...]) -> list[str]:
    return top_level_split(text, seps)


def cut_prose(expr: str) -> str:
    """Drop trailing prose from a formula: ``\\quad \\text{where } ...``, ``, \\text{for } ...``."""
    text = expr
    for i, ch, top in scan(text):
        if top and ch == "\\" and _PROSE_CUT.match(text, i):
            m = re.match(r"\\(?:text|mbox|textrm|textit)\s*\{\s*([^{}]*)\}", text[i:])
            if m and re.fullmatch(r"[A-Za-z]|T|drop", m.group(1).strip()):
                continue      # \text{T}, \text{drop}: notation, not prose
            if text[:i].strip():
                return text[:i].rstrip(" ,;.")
    return text.strip().rstrip(" ,;.")


def last_rhs(latex: str) -> str:
    """The final right-hand side of a derivation chain (the whole formula if it has no ``=``)."""
    text = _CHAIN_ENVS.sub(" ", latex)
    lines = [ln for ln in _top_level_splits(text, ("\\\\",)) if ln.strip()]
    for line in reversed(lines):
        parts = [p for p in _top_level_splits(line, ("&=", "=", "\\approx", "\\equiv", "\\triangleq"))]
        rhs = cut_prose(parts[-1])
        if rhs.strip() and rhs.strip() not in ("\\dots", "\\cdots", "..."):
            return rhs.strip()
    return cut_prose(text).strip()


def lhs(latex: str) -> str:
    """The first left-hand side of a formula (empty if it has no ``=``)."""
    text = _CHAIN_ENVS.sub(" ", latex)
    parts = _top_level_splits(text, ("&=", "="))
    return parts[0].strip() if len(parts) > 1 else ""
