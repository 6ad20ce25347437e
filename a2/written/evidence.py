"""Answer choice on evidence: never a silent zero when the writeup holds a right answer elsewhere.

The final answer is chosen as a TA's eye goes (an answer block, "Answer:", a box, the last formula
of the section) and graded. Besides it, :func:`collect` gathers every equation of the whole
writeup whose left-hand side names an item's target (∂J/∂v_c, ∂J/∂u_w, ∂J/∂U, ∂h_i/∂x_j,
∂CE/∂l_i, γ), with where it is. :func:`reconsider` then flags the item for a TA, with the texts
found, when the chosen answer scores below full and

(a) another candidate for the same target, graded by the same checker, scores more;
(b) the chosen text could not be read whole (it is unreadable, or a formula naming the target
    could not be parsed and another one was read in its place); or
(c) no section was found for the item, but an equation elsewhere names its target: those equations
    are read as the item's answer (a heading of another numbering, ``### Q3-3``), and kept only
    when that reading is right; otherwise the item is flagged.

Otherwise it never changes the score: credit for a right intermediate step under a wrong final
answer stays forbidden (a false pass is worse than a flag).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from a2.written.checker_registry import MISSING, UNREADABLE, Verdict, WrittenContext
from a2.written.scalar_answers import step_statements
from a2.written.sections import Section, is_plain_text, pretty
from a2.written.targets import _DERIVATIVE_FAMILY, STEP, lhs_target
from grader.reading import blocks
from grader.reading.answers import (
    BOXED,
    DISPLAY,
    INLINE,
    MARKED,
    MARKED_TEXT,
    PLAIN,
    Candidate,
    candidates,
    is_condition,
    lhs,
    math_spans,
    plain_equations,
)
from grader.reading.blocks import read_blocks

MAX_EVIDENCE = 8
"""Equations kept per item (the last ones of the writeup: a derivation ends with its answer)."""
MATH_KINDS = (MARKED, BOXED, DISPLAY, INLINE, PLAIN)


def _line(where: str, body: str, offset: int) -> str:
    """``file, line N`` of a section moved down to the line of ``offset`` in its body."""
    head, sep, number = where.rpartition(", line ")
    if not sep or not number.isdigit():
        return where
    return f"{head}, line {int(number) + body.count(chr(10), 0, offset) + 1}"


_CONDITION = re.compile(r"\$(?P<math>[^$\n]{1,40})\$|\\\((?P<paren>[^\n]{1,40}?)\\\)"
                        r"|(?<![A-Za-z_\\])(?P<text>[a-z](?:_\{?\w\}?)?\s*(?:=|≠|!=|\\neq?)\s*[a-z0-9](?:_\{?\w\}?)?)"
                        r"(?![A-Za-z0-9_])")
"""A case condition (``$w = o$``, ``\\(w \\neq o\\)``, ``w ≠ o``) in the words before an equation."""


def _with_condition(cand: Candidate, text: str) -> str:
    """``text`` (an equation) with the case condition its line states before it (``For $w = o$:``,
    ``w ≠ o:``) and the one written after it (``... when $w \\neq o$``): read elsewhere, an equation
    keeps the case it answers (1(d)'s two cases, written at the end of a neighbour's section)."""
    found = [m for m in _CONDITION.finditer(cand.before)
             if is_condition(m.group("math") or m.group("paren") or m.group("text"))]
    before = f"{found[-1].group(0)}: " if found else ""
    return f"{before}{text}{' ' + cand.after if cand.after else ''}"


def collect(sections: dict[str, Section], questions: set[str]) -> dict[str, list[list[str]]]:
    """For each question, ``[text, where]`` of every equation in the writeup naming its target
    (with the case condition written beside it, if any)."""
    found: dict[str, list[list[str]]] = {}
    for section in sections.values():
        seen: set[str] = set()
        for cand in sorted(candidates(section.body), key=lambda c: c.start):
            if cand.kind not in MATH_KINDS or cand.latex in seen:
                continue
            target = lhs_target(lhs(cand.latex))
            if target is None or target == STEP or target not in questions:
                continue
            seen.add(cand.latex)
            text = _with_condition(cand, cand.latex if cand.kind == PLAIN else f"$${cand.latex}$$")
            found.setdefault(target, []).append([text, _line(section.where, section.body, cand.start),
                                                 section.question])
    for q, finder in LOOSE_FINDERS.items():
        if q not in questions:
            continue
        known = {_squash(text) for text, *_ in found.get(q, [])}
        for section in sections.values():
            if section.question == q or section.question in _DERIVATIVE_FAMILY or section.question[:1] != q[:1]:
                continue
            for offset, line in finder(section.body):
                if _squash(line) not in known and not any(_squash(line) in k or k in _squash(line) for k in known):
                    known.add(_squash(line))
                    found.setdefault(q, []).append([line, _line(section.where, section.body, offset),
                                                    section.question, LOOSE])
    return {q: items[-MAX_EVIDENCE:] for q, items in found.items()}


LOOSE = "loose"
"""The mark of evidence found by a question's own reading (:data:`LOOSE_FINDERS`), not by a
left-hand side: read only for an item whose section has no answer, never held against one it has."""
LOOSE_FINDERS: dict[str, Callable[[str], list[tuple[int, str]]]] = {"3b": step_statements}
"""Per question, what finds its answer in another question's section without a left-hand side that
names it: 3(b)'s count of steps in n (``Final answer: 2n`` or ``It takes 2n steps`` at the end of
3(a)'s table), searched in the other sections of its part that are not derivations."""


def _squash(text: str) -> str:
    return "".join(text.replace("$$", "").split())


def outside_sections(files: list[tuple[str, str, bool]], sections: dict[str, Section], questions: set[str],
                     expand: Callable[[str], str]) -> dict[str, list[list[str]]]:
    """Equations naming a target in the document model of every file (``(name, text, template)``)
    that no section holds: text before the first label, a part of another numbering, a file
    without labels. Their origin is unknown (""), so they count as written elsewhere."""
    bodies = "\n".join(_squash(s.body) for s in sections.values())
    known: set[str] = set()
    found: dict[str, list[list[str]]] = {}
    for name, text, template in files:
        for block in read_blocks(name, text, template=template, plain=is_plain_text(name, text)):
            if block.kind in (blocks.DISPLAY, blocks.INLINE):
                latex = expand(block.text) if name.lower().endswith(".tex") else block.text
                equations = [(latex, f"$${latex}$$")]
            elif block.kind == blocks.PARAGRAPH and ("=" in block.text):
                equations = [(c.latex, c.latex) for c in plain_equations(block.text, math_spans(block.text))]
            else:
                continue
            for latex, shown in equations:
                target = lhs_target(lhs(latex))
                if target in questions and _squash(latex) not in known and _squash(latex) not in bodies:
                    known.add(_squash(latex))
                    found.setdefault(target, []).append([shown, block.where, ""])
    return found


def attach(sections: dict[str, Section], questions: set[str],
           elsewhere: dict[str, list[list[str]]] | None = None) -> None:
    """Give each section its evidence; an item with evidence but no section gets an empty one."""
    found = collect(sections, questions)
    for q, items in (elsewhere or {}).items():
        found[q] = (found.get(q, []) + items)[-MAX_EVIDENCE:]
    for q, items in found.items():
        section = sections.get(q)
        if section is None:
            sections[q] = Section(q, "", where=items[-1][1], evidence=items,
                                  notes=[f"No section of the writeup is labelled {pretty(q)}, but equations "
                                         f"elsewhere name its target ({items[-1][1]})."])
        else:
            section.evidence = items


def _same_text(a: str, b: str) -> bool:
    squash = (lambda s: "".join(s.replace("$$", "").split()))
    return bool(a and b) and (squash(a) in squash(b) or squash(b) in squash(a))


def reconsider(checker: Callable[[Section, WrittenContext], Verdict], section: Section, ctx: WrittenContext,
               verdict: Verdict) -> Verdict:
    """``verdict`` with a review flag when the writeup's evidence says a TA should look."""
    named = [(t, w) for t, w, *origin in section.evidence if origin and origin[0] != section.question
             and LOOSE not in origin]
    if named and verdict.passed < verdict.total and _only_steps(section, verdict):
        return _from_elsewhere(checker, section, ctx, verdict, named, "", steps=True)
    if verdict.review:
        return verdict
    if verdict.passed >= verdict.total:
        return _elsewhere_disagrees(checker, section, ctx, verdict)
    items = [(text, where) for text, where, *_ in section.evidence]
    if section.empty and items:
        texts = "  |  ".join(f"{t} ({w})" for t, w in items)
        # read as a TA would, kept only when right
        return _from_elsewhere(checker, section, ctx, verdict, items, f"no section was found for "
                               f"{pretty(section.question)}, but the writeup has equations naming its target: {texts}")
    foreign = [(t, w) for t, w, *origin in section.evidence if origin and origin[0] != section.question]
    if foreign and (verdict.status == MISSING or _nothing_read(section, verdict)):
        loose = all(LOOSE in origin for _, _, *origin in section.evidence if origin and origin[0] != section.question)
        return _from_elsewhere(checker, section, ctx, verdict, foreign, "", loose=loose)
    if verdict.status == UNREADABLE:
        return verdict          # flagged by the grader as unreadable already
    better: list[tuple[str, str]] = []
    items = [(text, where) for text, where, *origin in section.evidence if LOOSE not in origin]
    others = [(t, w) for t, w in items if not _same_text(t, verdict.raw)]
    trials = [(t, w) for t, w in others]
    if len(items) > 1:
        trials.append(("\n\n".join(t for t, _ in items), items[-1][1]))
    for text, where in trials:
        alone = Section(section.question, text, where=where)
        try:
            other = checker(alone, ctx)
        except Exception:  # a rival that cannot be judged is no evidence
            continue
        if other.passed * verdict.total > verdict.passed * other.total:
            better.append((text, where))
            break
    if not better:
        doubt = section.unread or section.doubt
        return replace(verdict, review=doubt, raw=verdict.raw or section.body or doubt) if doubt else verdict
    text, where = better[0]
    read = verdict.read or "no answer"
    shown = f"{' '.join(text.split())[:300]} ({where})"
    # The review reason is shown with the verdict: it names the rival, not which one scores more.
    return replace(verdict, review=f"the answer read ({read}) is not the only formula for {pretty(section.question)} "
                                   f"in the writeup: {shown}",
                   raw=f"{verdict.raw}  |  {text}" if verdict.raw else text,
                   why=[*verdict.why, f"Another formula in the writeup scores more than the answer read: {shown}."])


def _only_steps(section: Section, verdict: Verdict) -> bool:
    """The answer read is an equation whose left-hand side names something else than the item's
    target (``z = xW + b_1``, ``∂CE/∂ŷ_k = −y_k/ŷ_k``: a step), in a section with no marked answer
    and no equation naming the target: the section holds the derivation, its answer is elsewhere."""
    left = lhs(verdict.raw) if verdict.raw and "  |  " not in verdict.raw else ""
    if not left.strip() or lhs_target(left) == section.question:
        return False
    return not any(c.kind in (MARKED, MARKED_TEXT, BOXED) or lhs_target(lhs(c.latex)) == section.question
                   for c in candidates(section.body))


def _nothing_read(section: Section, verdict: Verdict) -> bool:
    """An unreadable verdict that read nothing from a section holding no marked answer (no
    "Answer:", no box): the section has no answer of its own ("see the end of 3(a)"), as a missing one."""
    return (verdict.status == UNREADABLE and not verdict.read and not verdict.raw
            and not any(c.kind in (MARKED, MARKED_TEXT, BOXED) for c in candidates(section.body)))


def _elsewhere_disagrees(checker: Callable[[Section, WrittenContext], Verdict], section: Section, ctx: WrittenContext,
                         verdict: Verdict) -> Verdict:
    """A full answer read in the item's section, while another section gives a different final
    answer for the same target (an answer written in a neighbouring section): a TA decides which
    one is the answer, and until then no point is given (a false pass is worse than a flag)."""
    for text, where, *origin in section.evidence:
        if not origin or origin[0] == section.question or LOOSE in origin or _same_text(text, verdict.raw):
            continue
        try:
            other = checker(Section(section.question, text, where=where), ctx)
        except Exception:  # a rival that cannot be judged is no evidence
            continue
        if other.passed < other.total and not other.status:
            return replace(verdict, passed=0,
                           review=f"two different answers for {pretty(section.question)}: {verdict.read} "
                                  f"({section.where or 'its section'}) and {' '.join(text.split())[:300]} ({where})",
                           raw=f"{verdict.raw}  |  {text}",
                           feedback=[*verdict.feedback, f"Another answer for {pretty(section.question)} ({where}) "
                                     "disagrees with it; a TA will decide which one is your answer."])
    return verdict


def _from_elsewhere(checker: Callable[[Section, WrittenContext], Verdict], section: Section, ctx: WrittenContext,
                    verdict: Verdict, foreign: list[tuple[str, str]], review: str, *, loose: bool = False,
                    steps: bool = False) -> Verdict:
    """The item's section is missing or has no formula, and equations elsewhere name its target (an
    answer written under a neighbour's "Final Answer"): read those, as a TA would. Only a right
    reading is kept; anything else scores 0 and is flagged for the TA (``review``, or the section's
    lack of a formula).

    What a student is told at once is the same either way (what was read, where, and that it was
    read outside its section: :attr:`Verdict.doubt`); the verdict, and the note that the answer was
    taken from there, come with the explanation: a reading shown only when right would tell a wrong
    answer from a right one before the due date."""
    text = "\n\n".join(t for t, _ in foreign)
    where = foreign[-1][1]
    q = pretty(section.question)
    named = f"whose content answers {q}" if loose else f"whose left-hand side names {q}"
    holds = "whose formulas are steps of a derivation" if steps else "which has no formula"
    doubt = (f"the answer was read at {where}, {named}, not in "
             + (f"its section ({section.where}), {holds}" if not section.empty else "a section labelled " + q))
    try:
        other = checker(Section(section.question, text, where=where), ctx)
    except Exception:  # the rival cannot be judged: leave the verdict to the flag
        other = None
    if other is not None and other.passed >= other.total and not other.status:
        other.feedback.append(f"Note: {doubt}; it was taken as the answer.")
        return replace(other, where=where, raw=other.raw or text, doubt=doubt)
    review = review or (f"the section of {q} ({section.where}) {'holds only steps' if steps else 'has no formula'}, and the "
                        + ("statements elsewhere that answer it" if loose else "equations elsewhere that name its target")
                        + f" were not read as right: {' '.join(text.split())[:300]} ({where})")
    if other is None or other.status:
        return replace(verdict, review=review, raw=text, where=where, doubt=doubt)
    return replace(other, passed=0, review=review, raw=other.raw or text, where=where, doubt=doubt,
                   feedback=[*other.feedback, f"Note: {doubt}; a TA decides whether it is the answer."])
