"""Tables and the small pieces of parser notation inside them: words, word lists, dependencies.

Tables come as Markdown pipe rows (``| [ROOT, I] | [presented, ...] | | SHIFT |``), rows aligned
with spaces, or LaTeX ``tabular``/``array`` environments (``[ROOT] & [I, presented] & & SHIFT \\\\``),
whose rows of cells are read from pylatexenc's nodes (:mod:`grader.reading.tex_tables`): all meet
as :class:`TableRow` s, never as one another's text. Cells are cleaned of math and formatting (``$[\\text{ROOT}, \\text{I}]$``,
``\\texttt{SHIFT}``, ``**LA**``), and dependencies are read from any arrow spelling
(``→``, ``->``, ``\\rightarrow``, ``\\to``; ``←`` for dependent ← head) or a ``(head, dependent)`` pair.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace

from grader.reading import tex_tables
from grader.reading.latex_tables import DROPPED, SIZING

MAX_ROWS = 200
"""Table rows read per section."""

_FORMAT = re.compile(r"\\(?:text|textrm|texttt|textsf|textsc|textbf|textit|mathrm|mathtt|mathsf|mathbf|"
                     r"mathit|operatorname|emph|mbox)\s*\{([^{}]*)\}")
_LABELLED = r"\s*(?:\[[^\]]*\])?\s*\{(?:[^{}]|\{[^{}]*\})*\}"   # an arrow's label: \xrightarrow{\text{nsubj}}
_RIGHT = re.compile(r"\\xrightarrow" + _LABELLED + r"|\\(?:rightarrow|to|longrightarrow|Rightarrow|mapsto)(?![A-Za-z])"
                    r"|→|⟶|⇒|-+>|=>")
_LEFT = re.compile(r"\\xleftarrow" + _LABELLED + r"|\\(?:leftarrow|gets|longleftarrow|Leftarrow)(?![A-Za-z])|←|⟵|⇐|<-+")
_SPACING = re.compile(r"\\[()]|\\(?:" + "|".join(sorted((n for n in DROPPED | SIZING if n.isalpha()), key=len, reverse=True))
                      + r")(?![A-Za-z])|\\[" + re.escape("".join(n for n in DROPPED if not n.isalpha())) + "]")
"""Math delimiters, spacing, math styles and delimiter sizes in a cell (latex_tables' declared
:data:`DROPPED` and :data:`SIZING`): ``$\\displaystyle \\rightarrow$`` is an arrow, ``\\;`` a space."""
ARROWS = f"(?:{_RIGHT.pattern}|{_LEFT.pattern})"
"""Any arrow spelling of a dependency (either direction), as a regular expression's text."""
_ESCAPED = re.compile(r"\\([\[\]*#_{}<>])")
EMPTY_CELL = re.compile(r"^\s*(?:|-+|—|–|∅|\\emptyset|\\varnothing|empty|none|n/?a|\[\s*\]|\\\{\s*\\\}|\{\s*\})\s*$", re.I)


@dataclass(frozen=True)
class TableRow:
    cells: tuple[str, ...]
    line: int


def clean(cell: str) -> str:
    """A cell's text without math delimiters, formatting commands, markdown emphasis and escapes."""
    text = cell
    for _ in range(3):
        text = _FORMAT.sub(r"\1", text)
    text = text.replace("$", " ").replace("`", " ").replace("**", " ").replace("__", " ")
    text = re.sub(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])", r"\2", text)     # *acquisition*, _citing_
    text = _SPACING.sub(" ", text)
    text = _ESCAPED.sub(r"\1", text)       # Markdown escapes (pandoc writes \[ROOT\], \_, \*)
    text = text.replace("\\langle", "[").replace("\\rangle", "]").replace("⟨", "[").replace("⟩", "]")
    return " ".join(text.split())


_GAP = re.compile(r"\t+| {2,}")
_DASHES = re.compile(r"-{3,}")


def _chunks(line: str) -> list[tuple[int, str]]:
    """The pieces of a line between runs of two or more spaces (or tabs), with their columns."""
    out, at = [], 0
    for piece in _GAP.split(line):
        start = line.find(piece, at) if piece else at
        if piece.strip():
            out.append((start, piece.strip()))
        at = start + len(piece)
    return out


def aligned_tables(text: str) -> str:
    """Tables aligned with spaces or tabs (pandoc's simple and multiline tables, a spreadsheet
    pasted as text) as pipe rows: the columns start where the dashes under the header start
    (``-----  ------``), else where the header's cells start; each piece of a row goes to the
    column it starts in, so an empty cell stays empty. Pipe rows and other lines are unchanged."""
    lines = text.split("\n")

    def row(line: str, starts: list[int]) -> str:
        if not line.replace("-", "").strip():
            return "|" + " --- |" * len(starts)
        if tabs:                             # tab-separated (a spreadsheet pasted): one tab, one cell
            return "| " + " | ".join(cell.strip() for cell in line.split("\t")) + " |"
        cells = [""] * len(starts)
        at = 0
        for col, piece in _chunks(line):     # the nearest column to its right of the last one filled
            at = min(range(at, len(starts)), key=lambda n: abs(starts[n] - col), default=len(starts) - 1)
            cells[at] = f"{cells[at]} {piece}".strip()
        return "| " + " | ".join(cells) + " |"

    k = 0
    while k < len(lines):
        line, first = lines[k], k
        tabs = line.count("\t") >= 2
        if "|" in line:
            k += 1
            continue
        dashes = [m.start() for m in _DASHES.finditer(line)]
        if len(dashes) >= 2 and not line.replace("-", "").strip():
            starts = dashes
            if k > 0 and lines[k - 1].strip() and "|" not in lines[k - 1]:
                first = k - 1                        # the header above the dashes
        elif len(_chunks(line)) >= 3 and k + 1 < len(lines) and len(_chunks(lines[k + 1])) >= 2 \
                and "|" not in lines[k + 1]:
            starts = [c for c, _ in _chunks(line)]
        else:
            k += 1
            continue
        k = first
        while k < len(lines) and lines[k].strip() and "|" not in lines[k]:
            lines[k] = row(lines[k], starts)
            k += 1
    return "\n".join(lines)


BOX_DRAWING = str.maketrans({**{ch: "-" for ch in "═─━╌┄"}, **{ch: "|" for ch in "║│┃╎┆╔╗╚╝╤╧╪╟╢╠╣╦╩╬┌┐└┘┬┴┼├┤╞╡╒╕╘╛╓╖╙╜"}})
"""A table drawn with box-drawing characters (python's tabulate, a terminal's output) as pipes and dashes."""


def table_rows(body: str) -> list[list[TableRow]]:
    """Every table of ``body`` as rows of cells (separator rows dropped), tables in order: LaTeX
    tables from their nodes (a row's line is where it starts), the rest of the text (those tables
    blanked, lines kept) as Markdown pipe rows or rows aligned with spaces."""
    text = body.translate(BOX_DRAWING)
    found: list[tuple[int, list[TableRow]]] = []
    blanked, pos = [], 0
    for table in tex_tables.tables(text):
        rows = [TableRow(cells, text.count("\n", 0, at)) for cells, at in table.rows][:MAX_ROWS]
        if rows:
            found.append((text.count("\n", 0, table.start), rows))
        blanked.append(text[pos:table.start] + "\n" * text.count("\n", table.start, table.end))
        pos = table.end
    text = aligned_tables("".join(blanked) + text[pos:])
    current: list[TableRow] = []
    for k, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if stripped.count("|") >= 2 and not stripped.startswith("$$"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", stripped)]
            if cells and not cells[0]:
                cells = cells[1:]
            if cells and not cells[-1]:
                cells = cells[:-1]
            if all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in cells if c) and any(cells):
                continue
            current.append(TableRow(tuple(cells), k))
            if len(current) >= MAX_ROWS:
                break
        elif current:
            found.append((current[0].line, current))
            current = []
    if current:
        found.append((current[0].line, current))
    return continued([_empty_cells_kept(rows) for _, rows in sorted(found, key=lambda f: f[0])])


def _empty_cells_kept(rows: list[TableRow]) -> list[TableRow]:
    """A table whose transitions are its last column, with rows that leave out an empty cell before
    it (``[ROOT, I] | [presented, ...] | SHIFT`` under a four-column header): the cells left out are
    the empty ones before the transition, put back so that every cell is read in its column."""
    width = len(rows[0].cells) if rows else 0
    full = [r for r in rows[1:] if len(r.cells) == width]
    if width < 3 or not full or sum(bool(transition_name(r.cells[-1])) for r in full) * 2 < len(full):
        return rows
    return [replace(r, cells=r.cells[:-1] + ("",) * (width - len(r.cells)) + r.cells[-1:])
            if 2 <= len(r.cells) < width and transition_name(r.cells[-1]) else r for r in rows]


def continued(tables: list[list[TableRow]]) -> list[list[TableRow]]:
    """Tables where a table split over slides or pages (``Q3(a) (cont.)``) is one: a table whose header
    repeats the previous table's, and whose first row is not that table's first row again (a second
    attempt starts over; a continuation goes on), is appended to it without its header."""
    out: list[list[TableRow]] = []
    for table in tables:
        last = out[-1] if out else None
        if last and len(table) >= 2 and len(last) >= 2 and [clean(c).lower() for c in table[0].cells] == [
                clean(c).lower() for c in last[0].cells] and table[1].cells != last[1].cells:
            out[-1] = last + table[1:]
        else:
            out.append(table)
    return out


def word_list(cell: str) -> list[str] | None:
    """``[ROOT, I, presented]`` / ``ROOT I presented`` / ``∅`` -> the words; None if not a list."""
    text = clean(cell)
    if EMPTY_CELL.match(text):
        return []
    text = re.sub(r"[\[\]{}()]", " ", text)
    words = [w.strip(" '\"“”‘’.;:") for w in re.split(r"[,\s]+", text)]
    words = [w for w in words if w]
    return words or []


@dataclass(frozen=True)
class Dependency:
    head: str
    dependent: str

    def key(self) -> tuple[str, str]:
        return (norm_word(self.head), norm_word(self.dependent))

    def __str__(self) -> str:
        return f"{self.head} → {self.dependent}"


def norm_word(word: str) -> str:
    w = word.strip(" '\"“”‘’.,;:*_`$")
    return "ROOT" if w.lower() == "root" else w.lower()


_WORD = r"[A-Za-z][A-Za-z'\-]*|ROOT|root|Root"


def dependency(cell: str) -> Dependency | None:
    """The dependency written in ``cell`` (``presented → I``, ``I <- presented``, ``(presented, I)``)."""
    text = clean(cell)
    if EMPTY_CELL.match(text):
        return None
    m = re.search(rf"({_WORD})\s*(?:{_RIGHT.pattern})\s*({_WORD})", text)
    if m:
        return Dependency(m.group(1), m.group(2))
    m = re.search(rf"({_WORD})\s*(?:{_LEFT.pattern})\s*({_WORD})", text)
    if m:
        return Dependency(m.group(2), m.group(1))
    m = re.search(rf"\(\s*({_WORD})\s*,\s*({_WORD})\s*\)", text)
    if m:
        return Dependency(m.group(1), m.group(2))
    m = re.search(rf"({_WORD})\s*(\\[A-Za-z]+|[^\w\s,()\[\]]+)\s*({_WORD})", text)
    way = arrow_direction(m.group(2)) if m else None
    if m and way:
        return Dependency(m.group(1), m.group(3)) if way == "right" else Dependency(m.group(3), m.group(1))
    return UNREAD_ARC if m or re.fullmatch(rf"\s*({_WORD})\s*,\s*({_WORD})\s*", text) else None


UNREAD_ARC = Dependency("?", "?")
"""A dependency cell of two words joined by a symbol no arrow spelling reads (``presented ↔ I``, ``a, b``): a wrong arc to
the replay, and a row the 3(a) checker names as not read whole, so that its score is flagged."""


RIGHT_COMMANDS = frozenset({"to", "implies", "mapsto", "longmapsto", "leadsto", "rightsquigarrow"})
LEFT_COMMANDS = frozenset({"gets", "impliedby", "mapsfrom", "longmapsfrom", "leftsquigarrow"})
"""LaTeX arrows whose name does not say their direction (any other command names it: ``\\Longrightarrow``,
``\\hookleftarrow``)."""


def arrow_direction(token: str) -> str | None:
    """"right" or "left" for an arrow the tables above do not list: a LaTeX command whose name says so
    (``\\Longrightarrow``, ``\\longmapsto``), a Unicode arrow whose character name does (``⟹`` LONG
    RIGHTWARDS DOUBLE ARROW, ``➝``, ``↦``), an ASCII one by its head (``~>``, ``==>``); None for
    anything else (a two-headed arrow, a symbol that is no arrow), which leaves the cell unread."""
    if token.startswith("\\"):
        name = token[1:].lower()
        right = name in RIGHT_COMMANDS or "right" in name and "left" not in name
        left = name in LEFT_COMMANDS or "left" in name and "right" not in name
    elif token.isascii():
        right, left = token.endswith(">") and not token.startswith("<"), token.startswith("<") and not token.endswith(">")
    else:
        names = [unicodedata.name(ch, "") for ch in token]
        arrows = [n for n in names if "ARROW" in n or "HARPOON" in n]
        right = bool(arrows) and all(("RIGHT" in n) and "LEFT" not in n for n in arrows)
        left = bool(arrows) and all(("LEFT" in n) and "RIGHT" not in n for n in arrows)
    return "right" if right and not left else "left" if left and not right else None


def dependencies_in(text: str) -> list[tuple[re.Match[str], Dependency]]:
    """Every dependency written in ``text`` (already cleaned), with its match, in order."""
    found: list[tuple[re.Match[str], Dependency]] = []
    for pattern, flip in ((rf"({_WORD})\s*(?:{_RIGHT.pattern})\s*({_WORD})", False),
                          (rf"({_WORD})\s*(?:{_LEFT.pattern})\s*({_WORD})", True),
                          (rf"\(\s*({_WORD})\s*,\s*({_WORD})\s*\)", False)):
        for m in re.finditer(pattern, text):
            a, b = m.group(1), m.group(2)
            found.append((m, Dependency(b, a) if flip else Dependency(a, b)))
    found.sort(key=lambda item: item[0].start())
    return found


_STACK_OR_BUFFER = re.compile(r"\b(S|B|stack|buffer)\s*[=:]\s*(\[[^\]\n]*\])", re.I)
_TRANSITION = re.compile(r"\b((?i:SHIFT|LEFT[- ]?ARC|RIGHT[- ]?ARC)|LA|RA|S)\b(?!\s*[=:])")    # not "S = [ROOT]"


def step_lines(body: str) -> list[tuple[str, list[str], list[str] | None]]:
    """Steps written one per line with the configuration after them (``4. SHIFT → S=[ROOT, presented,
    my]``, ``B=[...]`` optional): (transition, stack, buffer or None) of each line that shows both."""
    out = []
    for line in map(clean, body.split("\n")):
        step = _TRANSITION.search(line)
        shown = {m.group(1)[0].upper(): m.group(2) for m in _STACK_OR_BUFFER.finditer(line)}
        if step is not None and "S" in shown:
            out.append((step.group(0), word_list(shown["S"]) or [], word_list(shown["B"]) if "B" in shown else None))
    return out


def transition_words(body: str) -> list[str]:
    """The transitions of a sequence written without a table ("S, S, LA, ...", "Shift, Left-Arc, ...")."""
    return _TRANSITION.findall(clean(body))


def listed(items: list[str], most: int = 3) -> str:
    """``a``, ``a and b``, ``a, b and 2 more``."""
    if len(items) > most:
        items = [*items[:most - 1], f"{len(items) - most + 1} more"]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


SHIFT, LEFT, RIGHT = "SHIFT", "LEFT-ARC", "RIGHT-ARC"


def transition_name(cell: str) -> str | None:
    """SHIFT / LEFT-ARC / RIGHT-ARC from any spelling, "" for an initial row, None if unknown."""
    t = re.sub(r"[^A-Z]", "", clean(cell).upper())
    if not t or "INIT" in t or t.startswith("START") or t in ("NONE", "NA"):
        return ""
    if t in ("S", "SH", "SHIFT") or t.startswith("SHIFT"):
        return SHIFT
    if t in ("LA", "L") or t.startswith("LEFT") or t.startswith("LARC"):
        return LEFT
    if t in ("RA", "R") or t.startswith("RIGHT") or t.startswith("RARC"):
        return RIGHT
    return None


HEADERS = {"stack": ("stack",), "buffer": ("buffer", "queue", "input"),
            "dep": ("dep", "arc", "relation", "new", "added"),
            "transition": ("transition", "action", "operation", "move")}


def columns(header: TableRow, body: list[TableRow]) -> dict[str, int] | None:
    """The columns a 3(a) table's header names (stack and buffer at least), the transition column by content when unnamed."""
    found: dict[str, int] = {}
    for k, cell in enumerate(header.cells):
        text = clean(cell).lower()
        for key, words in HEADERS.items():
            if key not in found and any(w in text for w in words):
                found[key] = k
                break
    return _by_content(body, found) if "stack" in found and "buffer" in found else None


def _by_content(body: list[TableRow], cols: dict[str, int]) -> dict[str, int]:
    """``cols`` with a transition column the header does not name (``t``, ``op``) found by its cells:
    the unnamed column most of whose cells are transitions."""
    if "transition" in cols or not body:
        return cols
    width = max(len(r.cells) for r in body)
    counts = {k: sum(bool(transition_name(r.cells[k])) for r in body if k < len(r.cells))
              for k in range(width) if k not in cols.values()}
    best = max(counts, key=lambda k: counts[k], default=None)
    if best is not None and counts[best] * 2 >= len(body):
        cols = {**cols, "transition": best}
        rest = [k for k in counts if k != best]
        if "dep" not in cols and len(rest) == 1:
            cols["dep"] = rest[0]
    return cols


_DEPENDENT_FIRST = re.compile(r"dependent\s*(?:→|->|\\to|\\rightarrow|to)\s*head|arrow\s+points\s+to\s+the\s+head", re.I)


def dependent_first(body: str, rows: list) -> tuple[list, bool]:
    """``rows`` with each arc turned head → dependent when ``body`` declares its arcs written dependent →
    head ("the arrow points to the head"), and whether it does."""
    if not _DEPENDENT_FIRST.search(body):
        return rows, False
    return [replace(r, dep=Dependency(r.dep.dependent, r.dep.head) if r.dep else None) for r in rows], True
