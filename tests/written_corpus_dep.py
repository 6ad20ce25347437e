"""3(a) and 3(f) of the generated writeups (tests/written_corpus.py): the transition table and the
four dependency errors, from seeded choices independent of the formula items' (their own random
stream, so adding them changed none of the other choices).

3(a): the table's format (a LaTeX ``tabular``, a Markdown table, a plain-text table of ``|`` rows,
or a bare transition sequence), the spelling of transitions (SHIFT / S / Shift ...), of arcs
(``→``, ``->``, ``\\to``, ``(head, dependent)``, ``dependent ← head``), of the stack and buffer,
whether the initial configuration is a row; right, or one of the catalogued wrong versions: a
word attached to the wrong head (``table-wrong-head``), a LEFT-ARC and RIGHT-ARC label swapped, the
parse stopped before its end.

3(f): a list per sentence or a table, the spelling of the error types and of arrows, "incorrect"
and "correct" written before or after the dependency; right, or wrong: one sentence's type
confused, its two dependencies swapped, or the old key of sentence iii.

The keys are written out here (the test's own text), not read from the grader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

RIGHT = "right"
SENTENCE = ("I", "presented", "my", "findings", "at", "the", "NLP", "conference")
HEADS = {"I": "presented", "presented": "ROOT", "my": "findings", "findings": "presented", "at": "conference",
         "the": "conference", "NLP": "conference", "conference": "presented"}
TABLE_FORMATS = ("tabular", "markdown", "pipes", "sequence")
TABLE_WRONG = ("table-wrong-head", "arc-labels-swapped", "parse-stopped-early")
ERRORS_FORMATS = ("list", "table")
ERRORS_WRONG = ("type-confused", "dependencies-swapped", "parse-errors-iii-old-key")
TRANSITION_SPELLINGS = ({"S": "SHIFT", "L": "LEFT-ARC", "R": "RIGHT-ARC"}, {"S": "S", "L": "LA", "R": "RA"},
                        {"S": "Shift", "L": "Left-Arc", "R": "Right-Arc"}, {"S": "SHIFT", "L": "LEFT ARC", "R": "RIGHT ARC"})
ARROWS_TEXT = ("{h} → {d}", "{h} -> {d}", "({h}, {d})", "{d} ← {h}")
ARROWS_TEX = ("{h} $\\to$ {d}", "{h} $\\rightarrow$ {d}", "({h}, {d})")
# (roman, the type's spellings, incorrect [head, dependent], correct [head, dependent])
ERRORS = (
    ("i", ("Verb Phrase Attachment Error", "VP attachment error", "verb-phrase attachment"), ("acquisition", "citing"),
     ("blocked", "citing")),
    ("ii", ("Modifier Attachment Error", "modifier attachment", "Modifier error"), ("elements", "most"), ("crucial", "most")),
    ("iii", ("Prepositional Phrase Attachment Error", "PP attachment error", "prepositional-phrase attachment"),
     ("declined", "decision"), ("reasons", "decision")),
    ("iv", ("Coordination Attachment Error", "coordination attachment", "Coordination error"), ("affects", "one"),
     ("plants", "one")),
)
OLD_KEY_III = ("declined", "reasons")


@dataclass
class DepChoices:
    table: str
    transitions: int
    arrow: int
    initial_row: bool
    bracketed: bool
    truth_3a: str
    errors: str
    type_spelling: int
    marks_first: bool
    truth_3f: str
    wrong_sentence: int


def draw(seed: int) -> DepChoices:
    r = random.Random(seed * 13 + 5)
    return DepChoices(table=r.choice(TABLE_FORMATS), transitions=r.randrange(len(TRANSITION_SPELLINGS)),
                      arrow=r.randrange(12), initial_row=r.random() < 0.6, bracketed=r.random() < 0.7,
                      truth_3a=RIGHT if r.random() < 0.65 else r.choice(TABLE_WRONG),
                      errors=r.choice(ERRORS_FORMATS), type_spelling=r.randrange(3), marks_first=r.random() < 0.5,
                      truth_3f=RIGHT if r.random() < 0.65 else r.choice(ERRORS_WRONG), wrong_sentence=r.randrange(4))


def gold_sequence(heads: dict[str, str] = HEADS) -> list[tuple[str, tuple, tuple, tuple[str, str] | None]]:
    """(transition S/L/R, stack, buffer, arc) after each step of the arc-standard oracle for ``heads``."""
    stack, buffer, attached = ["ROOT"], list(SENTENCE), set()
    out = []
    while buffer or len(stack) > 1:
        arc = None
        if len(stack) > 1 and stack[-2] != "ROOT" and heads[stack[-2]] == stack[-1]:
            arc, t = (stack[-1], stack[-2]), "L"
            attached.add(stack.pop(-2))
        elif len(stack) > 1 and heads[stack[-1]] == stack[-2] and \
                all(d in attached for d, h in heads.items() if h == stack[-1]):
            arc, t = (stack[-2], stack[-1]), "R"
            attached.add(stack.pop())
        else:
            t = "S"
            stack.append(buffer.pop(0))
        out.append((t, tuple(stack), tuple(buffer), arc))
    return out


def _steps(c: DepChoices) -> list[tuple[str, tuple, tuple, tuple[str, str] | None]]:
    if c.truth_3a == "table-wrong-head":      # "at" attached to presented: the arcs follow that tree
        return gold_sequence(HEADS | {"at": "presented"})
    steps = gold_sequence()
    if c.truth_3a == "arc-labels-swapped":
        k = next(i for i, s in enumerate(steps) if s[0] == "L")
        steps[k] = ("R",) + steps[k][1:]
    elif c.truth_3a == "parse-stopped-early":
        steps = steps[:-3]
    return steps


def transition_table(c: DepChoices, fmt: str) -> str:
    """The 3(a) answer in the writeup's format (``tex``, ``markdown`` or ``plain``)."""
    names = TRANSITION_SPELLINGS[c.transitions]
    steps = _steps(c)
    table = c.table
    if fmt == "tex" and table in ("markdown", "pipes"):
        table = "tabular"
    if fmt != "tex" and table == "tabular":
        table = "markdown" if fmt == "markdown" else "pipes"
    if table == "sequence":
        return "The transitions, in order: " + ", ".join(names[t] for t, *_ in steps) + "."
    arrows = ARROWS_TEX if table == "tabular" else ARROWS_TEXT
    arrow = arrows[c.arrow % len(arrows)]

    def words(ws: tuple) -> str:
        inner = ", ".join(ws) if c.bracketed else " ".join(ws)
        return f"[{inner}]" if c.bracketed or not ws else inner

    rows = [("Stack", "Buffer", "New dependency", "Transition")]
    if c.initial_row:
        rows.append((words(("ROOT",)), words(SENTENCE), "", "Initial Configuration"))
    rows += [(words(s), words(b), arrow.format(h=a[0], d=a[1]) if a else "", names[t]) for t, s, b, a in steps]
    if table == "tabular":
        body = "\n".join(" & ".join(row) + " \\\\" + (" \\hline" if k == 0 else "") for k, row in enumerate(rows))
        return f"\\begin{{tabular}}{{|l|l|l|l|}}\n\\hline\n{body}\n\\hline\n\\end{{tabular}}"
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    if table == "markdown":
        lines.insert(1, "|---|---|---|---|")
    return "\n".join(lines)


def _errors(c: DepChoices) -> list[tuple[str, str, tuple[str, str], tuple[str, str]]]:
    out = []
    for k, (roman, types, wrong, right) in enumerate(ERRORS):
        kind = types[c.type_spelling]
        if c.truth_3f != RIGHT and k == c.wrong_sentence % 4:
            if c.truth_3f == "type-confused":
                kind = ERRORS[(k + 1) % 4][1][c.type_spelling]
            elif c.truth_3f == "dependencies-swapped":
                wrong, right = right, wrong
        if c.truth_3f == "parse-errors-iii-old-key" and roman == "iii":
            wrong = OLD_KEY_III
        out.append((roman, kind, wrong, right))
    return out


def parser_errors(c: DepChoices, fmt: str) -> str:
    """The 3(f) answer in the writeup's format (``tex``, ``markdown`` or ``plain``)."""
    arrows = ARROWS_TEX if fmt == "tex" else ARROWS_TEXT[:3]
    arrow = arrows[c.arrow % len(arrows)]
    dep = (lambda d: arrow.format(h=d[0], d=d[1]))
    errors = _errors(c)
    if c.errors == "table" and fmt != "tex":
        lines = ["| Sentence | Error type | Incorrect dependency | Correct dependency |", "|---|---|---|---|"]
        lines += [f"| {roman} | {kind} | {dep(wrong)} | {dep(right)} |" for roman, kind, wrong, right in errors]
        return "\n".join(lines)

    def parts(kind: str, wrong: tuple[str, str], right: tuple[str, str]) -> list[str]:
        if c.marks_first:
            return [f"Error type: {kind}", f"Incorrect dependency: {dep(wrong)}", f"Correct dependency: {dep(right)}"]
        return [f"Error type: {kind}", f"{dep(wrong)} is incorrect", f"{dep(right)} is correct"]

    if fmt == "tex":
        items = "\n".join("\\item " + " \\\\\n".join(parts(kind, wrong, right)) for _r, kind, wrong, right in errors)
        return f"\\begin{{enumerate}}[label=\\roman*.]\n{items}\n\\end{{enumerate}}"
    return "\n\n".join(f"{roman}. " + "\n".join(parts(kind, wrong, right)) for roman, kind, wrong, right in errors)
