"""3(a): replay the student's configuration table for "I presented my findings at the NLP conference".

Each row after the initial configuration is one step: it must follow from the row before it by
the transition it names (stack, buffer and the dependency it claims), and that transition must
be the one that leads to the gold tree from there (the arc-standard oracle). The student's
transitions replayed from the initial configuration must end with exactly the gold arcs. Points:
one item per step of the 16-step gold sequence (a step passes when its row is right) plus one for
the final tree; the rubric turns the fraction into points. The feedback names the first wrong
row and what it should have been.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.arcstandard import ArcStandardParse
from grader.written.catalogue import known
from grader.written.registry import Verdict, WrittenContext, missing, written_check
from grader.written.sections import Section
from grader.written.tables import Dependency, TableRow, clean, dependency, norm_word, table_rows, word_list

SENTENCE = ("I", "presented", "my", "findings", "at", "the", "NLP", "conference")
GOLD = frozenset({("ROOT", "presented"), ("presented", "I"), ("presented", "findings"), ("findings", "my"),
                  ("presented", "conference"), ("conference", "at"), ("conference", "the"),
                  ("conference", "NLP")})
STEPS = 2 * len(SENTENCE)
SHIFT, LEFT, RIGHT = "SHIFT", "LEFT-ARC", "RIGHT-ARC"
_CANON = {w.lower(): w for w in SENTENCE} | {"root": "ROOT"}


@dataclass(frozen=True)
class Config:
    stack: tuple[str, ...]
    buffer: tuple[str, ...]
    arcs: frozenset[tuple[str, str]]

    def show(self) -> str:
        return f"stack [{', '.join(self.stack)}], buffer [{', '.join(self.buffer)}]"


INITIAL = Config(("ROOT",), SENTENCE, frozenset())


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


_CODES = {SHIFT: "S", LEFT: "LA", RIGHT: "RA"}


def apply(config: Config, transition: str) -> tuple[Config, tuple[str, str] | None] | None:
    """The configuration after ``transition`` and the arc it adds; None if it is not legal.

    The step itself is the grader's arc-standard machine (grader/arcstandard.py, trusted, never
    next to student code); only the legality checks are the table's own."""
    if (not config.buffer if transition == SHIFT else
            len(config.stack) < 2 or (transition == LEFT and config.stack[-2] == "ROOT")):
        return None
    parse = ArcStandardParse([])
    parse.stack, parse.buffer = list(config.stack), list(config.buffer)
    parse.parse_step(_CODES[transition])
    arc = parse.dependencies[0] if parse.dependencies else None
    return Config(tuple(parse.stack), tuple(parse.buffer), config.arcs | ({arc} if arc else set())), arc


def oracle(config: Config) -> str | None:
    """The arc-standard transition toward the gold tree from ``config`` (None: it cannot be reached)."""
    s = config.stack
    if len(s) >= 2:
        top, second = s[-1], s[-2]
        if second != "ROOT" and (top, second) in GOLD:
            return LEFT
        if (second, top) in GOLD and all(arc in config.arcs for arc in GOLD if arc[0] == top):
            return RIGHT
    if config.buffer:
        return SHIFT
    return None


@dataclass
class Row:
    number: int
    transition: str | None
    raw_transition: str
    stack: tuple[str, ...] | None
    buffer: tuple[str, ...] | None
    dep: Dependency | None
    has_dep_column: bool


def _canon(words: list[str] | None) -> tuple[str, ...] | None:
    if words is None:
        return None
    return tuple(_CANON.get(norm_word(w), w) for w in words)


_HEADERS = {"stack": ("stack",), "buffer": ("buffer", "queue", "input"),
            "dep": ("dependen", "arc", "relation", "new", "added"),
            "transition": ("transition", "action", "operation", "move")}


def _columns(header: TableRow) -> dict[str, int] | None:
    found: dict[str, int] = {}
    for k, cell in enumerate(header.cells):
        text = clean(cell).lower()
        for key, words in _HEADERS.items():
            if key not in found and any(w in text for w in words):
                found[key] = k
                break
    return found if "stack" in found and "buffer" in found else None


def read_table(section: Section) -> tuple[list[Row], list[str]]:
    """The configuration table's step rows (the initial row dropped) and notes about reading it."""
    notes: list[str] = []
    tables = [t for t in table_rows(section.body) if len(t) >= 3]
    if not tables:
        return [], notes
    best = None
    for t in tables:
        cols = _columns(t[0])
        if cols:
            best = (t[1:], cols)
            break
    if best is None:
        t = max(tables, key=len)
        width = max(len(r.cells) for r in t)
        offset = 1 if width >= 5 else 0      # a leading step-number column
        cols = {"stack": offset, "buffer": offset + 1, "dep": offset + 2, "transition": offset + 3}
        if width - offset == 3:
            cols = {"stack": offset, "buffer": offset + 1, "transition": offset + 2}
        notes.append("The table has no header naming its columns; they were read as stack, buffer, "
                     "dependency, transition.")
        best = (t, cols)
    body, cols = best
    rows: list[Row] = []
    for r in body:
        cells = {key: r.cells[k] if k < len(r.cells) else "" for key, k in cols.items()}
        raw_t = clean(cells.get("transition", ""))
        rows.append(Row(len(rows), transition_name(cells.get("transition", "")), raw_t,
                        _canon(word_list(cells.get("stack", ""))), _canon(word_list(cells.get("buffer", ""))),
                        dependency(cells.get("dep", "")), "dep" in cols))
    if rows and (rows[0].transition == "" or (rows[0].stack == ("ROOT",) and rows[0].buffer == SENTENCE)):
        rows = rows[1:]
    rows = [row for row in rows if not (row.transition == "" and not row.stack and not row.buffer)]
    for k, row in enumerate(rows, start=1):
        row.number = k
    return rows, notes


def _dep_text(arc: tuple[str, str] | None) -> str:
    return f"{arc[0]} → {arc[1]}" if arc else "no new dependency"


def replay(rows: list[Row]) -> tuple[int, list[str], bool]:
    """Steps passed, messages (the first wrong row first), whether the final arcs are the gold tree."""
    passed = 0
    messages: list[str] = []
    prev = INITIAL
    claimed_arcs: set[tuple[str, str]] = set()
    for row in rows:
        problem = ""
        want = oracle(prev)
        if row.transition is None:
            problem = (f"its transition {row.raw_transition!r} is not SHIFT, LEFT-ARC or RIGHT-ARC "
                       "(or S, LA, RA)")
            result = None
        elif row.transition == "":
            problem = "it names no transition"
            result = None
        else:
            result = apply(prev, row.transition)
            if result is None:
                problem = f"{row.transition} cannot be applied to {prev.show()}"
        if result is not None:
            after, arc = result
            if want is not None and row.transition != want:
                good = apply(prev, want)
                should = f"{want}, giving {good[0].show()} and {_dep_text(good[1])}" if good else want
                problem = (f"from {prev.show()} the step toward the gold tree is {should}; "
                           f"your row applies {row.transition}")
            elif row.stack is not None and row.stack != after.stack or \
                    row.buffer is not None and row.buffer != after.buffer:
                problem = (f"{row.transition} from {prev.show()} gives {after.show()}, but your row shows "
                           f"stack [{', '.join(row.stack or ())}], buffer [{', '.join(row.buffer or ())}]")
            elif row.has_dep_column and (row.dep.key() if row.dep else None) != \
                    ((norm_word(arc[0]), norm_word(arc[1])) if arc else None):
                problem = (f"{row.transition} there adds {_dep_text(arc)}, but your row shows "
                           f"{row.dep or 'no dependency'}")
        if problem:
            if len(messages) < 3:
                messages.append(f"Row {row.number}: {problem}.")
        else:
            passed += 1
        # The next row is judged from this row as written, when it can be read.
        if row.stack is not None and row.buffer is not None and (row.stack or row.buffer):
            if row.dep:
                claimed_arcs.add((_CANON.get(norm_word(row.dep.head), row.dep.head),
                                  _CANON.get(norm_word(row.dep.dependent), row.dep.dependent)))
            arcs = frozenset(claimed_arcs) if any(r.has_dep_column for r in rows) else \
                (result[0].arcs if result else prev.arcs)
            prev = Config(row.stack, row.buffer, arcs)
        elif result is not None:
            prev = result[0]
            if result[1]:
                claimed_arcs.add(result[1])
    # The final tree: the student's transitions replayed from the start.
    config = INITIAL
    for row in rows:
        if not row.transition:
            break
        step = apply(config, row.transition)
        if step is None:
            break
        config = step[0]
    tree_ok = config.arcs == GOLD and config.stack == ("ROOT",) and not config.buffer
    return min(passed, STEPS), messages, tree_ok


def _sequence_only(body: str) -> list[Row]:
    """A transition sequence written without a table ("S, S, LA, ...", "Shift, Left-Arc, ..."), as rows
    without configurations."""
    tokens = re.findall(r"\b((?i:SHIFT|LEFT[- ]?ARC|RIGHT[- ]?ARC)|LA|RA|S)\b", clean(body))
    if len(tokens) < STEPS // 2:
        return []
    return [Row(k + 1, transition_name(t), t, None, None, None, False) for k, t in enumerate(tokens)]


@written_check("transition_table")
def transition_table(section: Section, ctx: WrittenContext) -> Verdict:
    """3(a): the configuration table replayed row by row against the gold tree."""
    if section.empty:
        return missing(section)
    rows, notes = read_table(section)
    if not rows:
        rows = _sequence_only(section.body)
        if not rows:
            return missing(section, "no configuration table")
        notes.append("No table was found, only a sequence of transitions: the configurations could not "
                     "be checked.")
    passed, messages, tree_ok = replay(rows)
    total = max(STEPS, len(rows)) + 1
    sequence = " ".join({SHIFT: "S", LEFT: "LA", RIGHT: "RA"}.get(r.transition or "", "?") for r in rows)
    read = f"{len(rows)} steps: {sequence if len(sequence) <= 120 else sequence[:120] + ' …'}"
    counted = f" ({len(rows)} rows after the initial one)" if len(rows) != STEPS else ""
    tree = ("the transitions build exactly the gold tree." if tree_ok else
            "the transitions do not build the gold tree (from the initial configuration).")
    lines = [f"read: {read}", f"{passed} of {STEPS} steps right{counted}; {tree}", *messages, *notes]
    if len(rows) < STEPS:
        lines.append("Steps are missing: after the last row the parse is not complete (a complete parse "
                     "ends with an empty buffer and only ROOT on the stack).")
    heads = {dep: head for head, dep in GOLD}
    claimed = [(_CANON.get(norm_word(r.dep.head), r.dep.head), _CANON.get(norm_word(r.dep.dependent), r.dep.dependent))
               for r in rows if r.dep]
    evidence = TableEvidence(any(d in heads and heads[d] != h for h, d in claimed))
    mistake = known("3a", evidence) if passed + int(tree_ok) < total else None
    if mistake is not None:
        lines.insert(2, mistake.message)
    return Verdict(passed + int(tree_ok), total, lines, read=read)


@dataclass(frozen=True)
class TableEvidence:
    """What the catalogue sees of a 3(a) table: whether a row attaches a word to the wrong head."""

    wrong_head: bool
