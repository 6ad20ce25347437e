"""3(a): replay the student's configuration table for "I presented my findings at the NLP conference".

Each row after the initial configuration is one step: it must follow from the row before it by
the transition it names (stack, buffer and the dependency it claims), and that transition must
be the one that leads to the gold tree from there (the arc-standard oracle). The student's
transitions replayed from the initial configuration must end with exactly the gold arcs. Points:
one item per step of the 16-step gold sequence (a step passes when its row is right) plus one for
the final tree. Each row is judged from the configuration before it (:func:`replay`), so one
wrong row costs one row; the feedback names the first wrong rows, a reversed dependency, a word on
another head ("at is attached to findings; in the gold tree ...").
"""

from __future__ import annotations

from dataclasses import dataclass

from a2.arcstandard import ArcStandardParse
from a2.written.catalogue import every_known
from a2.written.checker_registry import Verdict, WrittenContext, missing, written_check
from a2.written.sections import Section
from a2.written.table_steps import TOP_FIRST_NOTE, missing_steps, top_first
from a2.written.tables import (
    LEFT,
    RIGHT,
    SHIFT,
    Dependency,
    clean,
    columns,
    dependency,
    dependent_first,
    listed,
    norm_word,
    step_lines,
    table_rows,
    transition_name,
    transition_words,
    word_list,
)

SENTENCE = ("I", "presented", "my", "findings", "at", "the", "NLP", "conference")
GOLD = frozenset({("ROOT", "presented"), ("presented", "I"), ("presented", "findings"), ("findings", "my"),
                  ("presented", "conference"), ("conference", "at"), ("conference", "the"),
                  ("conference", "NLP")})
STEPS = 2 * len(SENTENCE)
_CANON = {w.lower(): w for w in SENTENCE} | {"root": "ROOT"}


@dataclass(frozen=True)
class Config:
    stack: tuple[str, ...]
    buffer: tuple[str, ...]
    arcs: frozenset[tuple[str, str]]

    def show(self) -> str:
        return f"stack [{', '.join(self.stack)}], buffer [{', '.join(self.buffer)}]"


INITIAL = Config(("ROOT",), SENTENCE, frozenset())


_CODES = {SHIFT: "S", LEFT: "LA", RIGHT: "RA"}


def apply(config: Config, transition: str) -> tuple[Config, tuple[str, str] | None] | None:
    """The configuration after ``transition`` and the arc it adds; None if it is not legal.

    The step itself is the grader's arc-standard machine (a2/arcstandard.py, trusted, never
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


def read_table(section: Section) -> tuple[list[Row], list[str]]:
    """The configuration table's step rows (the initial row dropped) and notes about reading it."""
    notes: list[str] = []
    tables = [t for t in table_rows(section.body) if len(t) >= 3]
    if not tables:
        return [], notes
    best = None
    for t in tables:
        cols = columns(t[0], t[1:])
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
    if rows and rows[0].transition is None and "ROOT" not in (rows[0].stack or ()):
        rows = rows[1:]      # a header in words the reader does not know (Pila, Búfer, Transición)
    while rows and (rows[0].transition == "" or rows[0].stack == ("ROOT",) and rows[0].buffer == SENTENCE):
        rows = rows[1:]      # the initial configuration (and a rule of dashes above it)
    rows = [row for row in rows if not (row.transition == "" and not row.stack and not row.buffer)]
    for k, row in enumerate(rows, start=1):
        row.number = k
    return rows, notes


def _dep_text(arc: tuple[str, str] | None) -> str:
    return f"{arc[0]} → {arc[1]}" if arc else "no new dependency"


def _gold_path() -> tuple[Config, ...]:
    """The configurations of the gold parse: before step 1, after step 1, ..., after the last."""
    path = [INITIAL]
    while (step := oracle(path[-1])) is not None:
        nxt = apply(path[-1], step)
        if nxt is None:
            break
        path.append(nxt[0])
    return tuple(path)


GOLD_PATH = _gold_path()


def _judge(row: Row, base: Config) -> tuple[str, tuple[Config, tuple[str, str] | None] | None, bool]:
    """What is wrong with ``row`` as the step from ``base`` ("" if nothing), its step's result, and
    whether the one thing wrong is its dependency written reversed."""
    if row.transition is None:
        return (f"its transition {row.raw_transition!r} is not SHIFT, LEFT-ARC or RIGHT-ARC "
                "(or S, LA, RA)"), None, False
    if row.transition == "":
        return "it names no transition", None, False
    result = apply(base, row.transition)
    if result is None:
        return f"{row.transition} cannot be applied to {base.show()}", None, False
    after, arc = result
    want = oracle(base)
    if want is not None and row.transition != want:
        good = apply(base, want)
        should = f"{want}, giving {good[0].show()} and {_dep_text(good[1])}" if good else want
        return (f"from {base.show()} the step toward the gold tree is {should}; "
                f"your row applies {row.transition}"), result, False
    if row.stack is not None and row.stack != after.stack or row.buffer is not None and row.buffer != after.buffer:
        return (f"{row.transition} from {base.show()} gives {after.show()}, but your row shows "
                f"stack [{', '.join(row.stack or ())}], buffer [{', '.join(row.buffer or ())}]"), result, False
    shown = row.dep.key() if row.dep else None
    if row.has_dep_column and shown != ((norm_word(arc[0]), norm_word(arc[1])) if arc else None):
        problem = f"{row.transition} there adds {_dep_text(arc)}, but your row shows {row.dep or 'no dependency'}"
        reversed_ = arc is not None and shown == (norm_word(arc[1]), norm_word(arc[0]))
        if arc is not None and reversed_:
            problem += (f": the same arc reversed (an arc is written head → dependent: here {arc[0]} is the head "
                        f"and {arc[1]} its dependent)")
        return problem, result, reversed_
    return "", result, False


def _mislabelled(row: Row) -> bool:
    """A row whose stack, buffer and arc are those of the gold step from the configuration before
    it, under another transition's name (LEFT-ARC written for a RIGHT-ARC's result)."""
    k = GOLD_PATH.index(_written_config(row)) if _written_config(row) in GOLD_PATH else 0
    if k == 0 or not row.transition or row.dep is None:
        return False
    want = oracle(GOLD_PATH[k - 1])
    step = apply(GOLD_PATH[k - 1], want) if want else None
    return bool(step and step[1] and row.transition != want
                and row.dep.key() == (norm_word(step[1][0]), norm_word(step[1][1])))


def _written_config(row: Row) -> Config | None:
    """The gold configuration the row's stack and buffer show, if they show one."""
    for config in GOLD_PATH:
        if row.stack == config.stack and row.buffer == config.buffer:
            return config
    return None


@dataclass(frozen=True)
class Replayed:
    passed: int                                 # rows right, at most STEPS
    messages: list[str]                         # the first wrong rows' messages (three at most)
    tree_ok: bool                               # the transitions build exactly the gold tree
    reversed: tuple[tuple[str, str], ...]       # dependencies written reversed to the arc their step adds


def replay(rows: list[Row]) -> Replayed:
    """Steps passed, messages (the first wrong row first), whether the final arcs are the gold tree.

    Each row is judged as the step from the configuration before it: the one its previous row's
    transition leads to (the arcs as the transitions make them, whatever the dependency column
    says), or the gold configuration before it, or the one the previous row shows where that row's
    stack and buffer are a configuration of the gold parse. So one wrong row costs that row only:
    a wrong dependency, a copying slip in a stack or a skipped step is not carried into the rows
    after it."""
    passed = 0
    messages: list[str] = []
    written_reversed: list[tuple[str, str]] = []
    bases: list[Config] = [INITIAL]
    for k, row in enumerate(rows):
        verdicts = [_judge(row, base) for base in bases]
        right = next((v for v in verdicts if not v[0]), None)
        problem, result, reversed_ = right or verdicts[0]
        if problem:
            if len(messages) < 3:
                messages.append(f"Row {row.number}: {problem}.")
            if reversed_ and result and result[1]:
                written_reversed.append((result[1][1], result[1][0]))
        else:
            passed += 1
        following = [result[0]] if result else []
        following += [GOLD_PATH[k + 1]] if k + 1 < len(GOLD_PATH) else []
        shown = _written_config(row) if row.stack is not None and row.buffer is not None else None
        following += [shown] if shown is not None else []
        bases = list(dict.fromkeys(following)) or bases
    # The final tree: the student's transitions replayed from the start.
    end, _ = built(rows)
    tree_ok = end.arcs == GOLD and end.stack == ("ROOT",) and not end.buffer
    return Replayed(min(passed, STEPS), messages, tree_ok, tuple(written_reversed))


def built(rows: list[Row]) -> tuple[Config, list[tuple[str, str]]]:
    """The configuration the student's transitions reach from the initial one (up to the first
    transition that cannot be read or applied) and the arcs they add, in order."""
    config, arcs = INITIAL, []
    for row in rows:
        if not row.transition:
            break
        step = apply(config, row.transition)
        if step is None:
            break
        config = step[0]
        arcs += [step[1]] if step[1] else []
    return config, arcs


def _without_table(body: str) -> tuple[list[Row], bool]:
    """Rows of an answer without a table: steps one per line with the stack after each (checked as a
    table's rows), else a bare transition sequence (no configurations: True)."""
    steps, words = step_lines(body), transition_words(body)
    if len(steps) >= STEPS // 2:
        return [Row(k, transition_name(t), t, _canon(stack), None if buffer is None else _canon(buffer), None, False)
                for k, (t, stack, buffer) in enumerate(steps, start=1)], False
    return [Row(k, transition_name(t), t, None, None, None, False) for k, t in enumerate(words, start=1)
            if len(words) >= STEPS // 2], True


HANDOUT_GIVEN = 3
"""Steps the handout's own table already shows: a table may start after them (a TA gives full)."""


def _after_given(rows: list[Row]) -> tuple[list[Row], int]:
    """``rows`` with the handout's given steps put back in front when the table starts after them
    (its first row shows the gold configuration after step 2 .. HANDOUT_GIVEN + 1), and how many."""
    if not rows or rows[0].stack is None or rows[0].buffer is None:
        return rows, 0
    for first in range(2, min(HANDOUT_GIVEN + 2, len(GOLD_PATH))):
        if (rows[0].stack, rows[0].buffer) == (GOLD_PATH[first].stack, GOLD_PATH[first].buffer) \
                and rows[0].transition == oracle(GOLD_PATH[first - 1]):
            given = [Row(k, oracle(GOLD_PATH[k - 1]), "", GOLD_PATH[k].stack, GOLD_PATH[k].buffer, None, False)
                     for k in range(1, first)]
            for k, row in enumerate(rows, start=first):
                row.number = k
            return given + rows, first - 1
    return rows, 0


@written_check("transition_table")
def transition_table(section: Section, ctx: WrittenContext) -> Verdict:
    """3(a): the configuration table replayed row by row against the gold tree."""
    if section.empty:
        return missing(section)
    rows, notes = read_table(section)
    review = ""
    rows, bare = (rows, False) if rows else _without_table(section.body)
    if not rows:
        return missing(section, "no configuration table")
    if bare:
        notes.append("No table was found, only a sequence of transitions: the configurations could not be checked, so "
                     "this answer gets partial credit at most and a TA reads it.")
        review = (f"no configuration table was read, only a sequence of {len(rows)} transitions: the stack and "
                  "buffer of each step are unchecked (a table the reader missed, or a list of steps?)")
    rows, flipped = dependent_first(section.body, rows)      # "every arc is written dependent → head"
    rows, reversed_stacks = top_first(rows)
    notes += [TOP_FIRST_NOTE] if reversed_stacks else []
    if flipped:
        notes.append("Arcs were read dependent → head, as your writeup declares.")
        review = review or "the arcs were read dependent → head, as the writeup declares: a TA confirms the reading"
    rows, given = _after_given(rows)
    if given:
        notes.append(f"Your table starts at step {given + 1}; the handout's first {given} steps were taken as given.")
    done = replay(rows)
    passed, tree_ok = done.passed, done.tree_ok
    total = max(STEPS, len(rows)) + 1
    sequence = " ".join({SHIFT: "S", LEFT: "LA", RIGHT: "RA"}.get(r.transition or "", "?") for r in rows)
    read = f"{len(rows)} steps: {sequence if len(sequence) <= 120 else sequence[:120] + ' …'}"
    tree = ("the transitions build exactly the gold tree." if tree_ok else
            "the transitions do not build the gold tree (from the initial configuration).")
    # Shown at once, so it states no count of steps the answer should have (that is 3(b)'s answer).
    counted = (f"{passed} of the {len(rows)} rows after the initial one right; " if not review
               else f"{passed} of the {len(rows)} transitions right (no stack or buffer read); ")
    lines = [f"read: {read}", *notes]
    # the count of right rows, each wrong row and the step toward the gold tree: the explanation only
    why = [counted + tree, *done.messages]
    short, unfinished = missing_steps(rows, STEPS)
    why += short
    if passed + int(tree_ok) < total:
        evidence = TableEvidence(done.reversed, _wrong_heads(rows, done.reversed))
        why[1:1] = [mistake.text(evidence) for mistake in every_known("3a", evidence)]
    earned = passed + int(tree_ok)
    unread = [r.number for r in rows if not r.transition or r.dep is not None and r.dep.head == "?"]
    doubt = "no configuration table was read, only a sequence of transitions" if bare else \
        f"no transition or arc was read in row{'s' if len(unread) > 1 else ''} {', '.join(map(str, unread[:5]))}" if unread else ""
    if unread and not review:
        review = f"{doubt}: the table was not read whole"
    if tree_ok and not review and passed < len(rows) / 2:
        review = (f"the transitions build exactly the gold tree, yet only {passed} of the {len(rows)} rows' "
                  "stack and buffer were read as right: the cells may not have been read as written")
    if (mislabelled := [str(r.number) for r in rows if _mislabelled(r)]) and not review:
        review = (f"rows {', '.join(mislabelled[:5])}: a transition other than the one the row's own stack, buffer "
                  "and arc show, a TA decides which was meant")
    review = review or unfinished
    if bare and earned >= total:
        earned = total - 1            # the rows' configurations are part of the answer: never full without them
    return Verdict(earned, total, lines, read=read, why=why, review=review, doubt=doubt)   # doubt: said at once


_HEADS = {dep: head for head, dep in GOLD}


def _wrong_heads(rows: list[Row], written_reversed) -> tuple[tuple[str, str], ...]:
    """The arcs of the table whose dependent has another head in the gold tree, in the sentence's
    order: those its dependency column shows (a dependency written reversed to its own step's arc
    is not one: the step attaches the word right), or without that column those its transitions add."""
    if any(r.has_dep_column for r in rows):
        arcs = [(_CANON.get(norm_word(r.dep.head), r.dep.head), _CANON.get(norm_word(r.dep.dependent), r.dep.dependent))
                for r in rows if r.dep]
        arcs = [a for a in arcs if a not in written_reversed]
    else:
        arcs = built(rows)[1]
    wrong = [a for a in dict.fromkeys(arcs) if a[1] in _HEADS and _HEADS[a[1]] != a[0]]
    return tuple(sorted(wrong, key=lambda a: SENTENCE.index(a[1])))


@dataclass(frozen=True)
class TableEvidence:
    """What the catalogue sees of a 3(a) table: the dependencies written reversed to the arc their
    own step adds, and the arcs that give a word another head than the gold tree, (head, dependent)."""

    reversed: tuple[tuple[str, str], ...]
    wrong_heads: tuple[tuple[str, str], ...]

    def fields(self) -> dict[str, str]:
        """The words a catalogue message names ({reversed}, {right_way}, {attached}, {gold})."""
        attached = [f"{d} {'is attached ' if k == 0 else ''}to {h}" for k, (h, d) in enumerate(self.wrong_heads)]
        return {"reversed": listed([_dep_text(a) for a in self.reversed] or ["?"]),
                "right_way": listed([_dep_text((d, h)) for h, d in self.reversed] or ["?"]),
                "attached": listed(attached or ["?"]),
                "gold": listed([_dep_text((_HEADS[d], d)) for _, d in self.wrong_heads] or ["?"])}
