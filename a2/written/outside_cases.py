"""1(d): ∂J/∂u_w in two cases, w = o and w ≠ o, each judged like any formula answer.

A ``cases`` formula answers both; a formula whose condition is written next to it (``... when
$w \\neq o$``, ``\\quad (w = o)``, a ``w = o:`` lead-in) answers one; a single unified formula
((ŷ_w − y_w)v_c) answers both. Among the lines of a derivation the last one for a case wins, and
a derivative of something else than the loss (``∂/∂u_w exp(u_oᵀv_c) = 0``) is a step, never an
answer. Each case is 2 points; known mistakes per case come from the catalogue.
"""

from __future__ import annotations

import re
from dataclasses import replace

from a2.written.catalogue import CREDIT_STEPS, credit_steps
from a2.written.checker_registry import UNREADABLE, Verdict, WrittenContext, missing, written_check
from a2.written.formulas import _target_filter, derivative_lhs, judge, known_mistake, parse_answer, quote, readable
from a2.written.instances import OUTSIDE_EQ, OUTSIDE_NEQ, plain_names
from a2.written.sections import Section
from grader.reading.answers import BOXED, DISPLAY, INLINE, MARKED, PLAIN, Candidate, candidates
from grader.reading.evaluate import show
from grader.reading.mathparse import Formula, FormulaError
from grader.reading.notation import index_lookalikes
from grader.reading.sides import lhs

_NEQ = re.compile(r"\\neq?(?![A-Za-z])|≠|!=|\\not\s*=|otherwise|other\s+words?|else|all\s+other|w\s*\\ne\b"
                  r"|w\s*\?\s*o\b", re.I)
"""w ≠ o in words and symbols; ``w ? o`` is ≠ lost by an editor's save in a code page without it (Windows-1252
writes ``?`` for a character it lacks; ``=`` is ASCII and never lost)."""
_EQ = re.compile(r"w\s*=\s*o|o\s*=\s*w|\\partial\s*(?:\\mathbf\s*|\\boldsymbol\s*|\\bm\s*)?\{?\s*u\s*\}?\s*_\s*\{?\s*o\b"
                 r"|true outside word", re.I)


_VECTORS = re.compile(r"(?<![A-Za-z])[vVuU][A-Za-z]?(?![A-Za-z])")      # also as plain text spells them: vc, Vc, Uy
"""The question's vectors (v_c, u_w, U): a formula without any of them, and without ∂J/∂u_w on its left, is no
gradient (the value of an indicator, a condition), never 1(d)'s answer."""


_ROW = re.compile(r"\s*\}?\s*&([^&]{0,80}?)(?:\\\\|\\end\s*\{)")
"""The rest of a ``cases`` row after a formula boxed in it: ``} & w = o \\\\``, its condition."""
_LHS_START = re.compile(r"\\[dt]?frac\s*\{\s*\\partial|∂\s*J\s*/")


def _equations(cand: Candidate) -> list[Candidate]:
    """A display holding two equations side by side (``∂J/∂u_o = ..., \\qquad ∂J/∂u_w = ... (w ≠ o)``)
    as one candidate each: each answers the case its own left side or condition names."""
    starts = [m.start() for m in _LHS_START.finditer(cand.latex)]
    cuts = [k for k in starts[1:] if "=" in cand.latex[k:] and "=" in cand.latex[:k]
            and re.search(r"(?:[,;]|\\q?quad|\\text\s*\{\s*and\s*\}|\\[,; ]|\\\\)\s*$", cand.latex[:k])]
    if not cuts or re.search(r"\\begin\s*\{\s*[dr]?cases", cand.latex):
        return [cand]
    bounds = [0, *cuts, len(cand.latex)]
    return [replace(cand, latex=cand.latex[a:b].strip().rstrip(",;").strip(), after=cand.after if b == len(cand.latex) else "")
            for a, b in zip(bounds, bounds[1:])]


def _box_end(body: str, start: int) -> int:
    """Where the box whose content starts at ``start`` closes (its ``}``), or ``len(body)``."""
    depth, start = 0, max(start, 0)
    if re.match(r"\\(?:boxed|fbox)\s*\{", body[start:]):
        start = body.index("{", start) + 1
    for i in range(start, len(body)):
        if body[i] == "{" and body[i - 1] != "\\":
            depth += 1
        elif body[i] == "}" and body[i - 1] != "\\":
            if depth == 0:
                return i
            depth -= 1
    return len(body)


def _case_of(cand: Candidate, row: str = "") -> str:
    """Which case of 1(d) a formula answers: "eq", "neq", "both" (a cases formula) or "unified".
    ``row``: the condition of the ``cases`` row the formula is boxed in, when it is."""
    if re.search(r"\\begin\s*\{\s*[dr]?cases\s*\}", cand.rhs):
        return "both"
    rhs = cand.rhs.strip()
    trailing = cand.latex[cand.latex.rfind(rhs) + len(rhs):] if rhs and rhs in cand.latex else ""
    left = lhs(cand.latex)
    for context in (row, cand.after, trailing, cand.before + " " + left):
        neq, eq = bool(_NEQ.search(context)), bool(_EQ.search(context))
        if neq != eq:
            return "neq" if neq else "eq"
    if re.search(r"_\s*\{?\s*o\b", left):
        return "eq"
    return "unified"


@written_check("grad_outside_cases")
def grad_outside_cases(section: Section, ctx: WrittenContext) -> Verdict:
    """1(d): ∂J/∂u_w for w = o and for w ≠ o (a cases formula or one formula for both also count). A
    scan's ``ŷ_0`` and ``w = 0`` are read as ŷ_o and w = o (:func:`index_lookalikes`), with a doubt
    shown whatever the verdict, so that a TA looks at an answer so read that is below full."""
    body, digits = index_lookalikes(section.body, "wo")
    if not digits:
        return _grade(section, ctx)
    verdict = _grade(replace(section, body=body), ctx)
    verdict.doubt = verdict.doubt or (f"the index {' and '.join(digits)} was read as the letter o (ŷ_0 as ŷ_o, "
                                      "w = 0 as w = o), as a scanned or handwritten o is often read")
    if verdict.passed < verdict.total:         # a TA reads the page itself (the flag stays with the explanation)
        verdict.review = verdict.review or verdict.doubt
    return verdict


def _grade(section: Section, ctx: WrittenContext) -> Verdict:
    found = [e for c in _target_filter(candidates(section.body), "1d") for e in _equations(c)]
    if not found:
        return missing(section, "no formula")
    marked = [c for c in found if c.kind in (MARKED, BOXED)]
    rest = sorted((c for c in found if c.kind in (DISPLAY, INLINE, PLAIN)), key=lambda c: c.start)
    ordered = marked + [c for c in rest if c.start not in {m.start for m in marked}]
    chosen: dict[str, tuple[Candidate, Formula]] = {}
    implicit: dict[str, tuple[Candidate, Formula]] = {}      # the last line of a derivation wins
    unified: list[tuple[Candidate, Formula]] = []
    problems: list[str] = []
    raws: list[str] = []
    for cand in ordered:
        if not derivative_lhs(cand) and not _VECTORS.search(re.sub(r"\\[A-Za-z]+", " ", cand.rhs)):
            continue              # "($1$ if $w = o$, else $0$)": an indicator's definition, no gradient
        row = _ROW.match(section.body, _box_end(section.body, cand.start)) if cand.kind == BOXED else None
        case = _case_of(cand, row.group(1) if row else "")
        try:
            formula = parse_answer(cand, plain_names(OUTSIDE_NEQ))
        except FormulaError as exc:
            problems.append(f"could not read {quote(cand.rhs)}: {exc}")
            continue
        question = OUTSIDE_EQ if case in ("eq", "both", "unified") else OUTSIDE_NEQ
        problem = readable(formula, question)
        if problem:
            problems.append(f"read {quote(cand.rhs)}, but {problem}")
            raws.append(cand.latex)
            continue
        target = chosen if cand.kind in (MARKED, BOXED) else implicit
        if case == "both":
            chosen.setdefault("eq", (cand, formula))
            chosen.setdefault("neq", (cand, formula))
        elif case == "unified":
            unified.append((cand, formula))
        elif target is chosen:
            chosen.setdefault(case, (cand, formula))
        else:
            implicit[case] = (cand, formula)
    preferred = ([u for u in unified if u[0].kind in (MARKED, BOXED)]
                 or [u for u in unified if derivative_lhs(u[0])][-1:] or unified[-1:])
    fallback = preferred[0] if preferred else None
    for case, pick in implicit.items():
        # A bare formula of a case ("result: (ŷ_o − 1)v_c") gives way to a later one-formula answer for
        # both cases that names ∂J/∂u_w (the section's conclusion).
        if not (fallback and derivative_lhs(fallback[0]) and not derivative_lhs(pick[0])
                and fallback[0].start > pick[0].start):
            chosen.setdefault(case, pick)
    steps = 0                     # in 1/CREDIT_STEPS of a case
    lines: list[str] = []
    reads: list[str] = []
    teach: list[str] = []         # why a case is wrong: shown with the explanation only
    review = ""
    for case, question, title in (("eq", OUTSIDE_EQ, "w = o"), ("neq", OUTSIDE_NEQ, "w ≠ o")):
        found_pick = chosen.get(case) or fallback
        if found_pick is None:
            detail = f" ({problems[0]})" if problems else ""
            lines.append(f"case {title}: no formula for this case was found{detail}.")
            unused = [c for c in candidates(section.body) if derivative_lhs(c)
                      and c.start not in {pick[0].start for pick in chosen.values()} | ({fallback[0].start} if fallback else set())]
            if problems:
                review = review or f"the case {title} could not be read: {problems[0]}"
            elif unused:   # another formula of the section may be this case, in a form not read
                review = review or (f"no formula for the case {title} was read, but the section has others: "
                                    f"{quote(unused[-1].latex)}")
            continue
        cand, formula = found_pick
        raws.append(cand.latex)
        text = show(formula.tree, formula)
        reads.append(f"{title}: ∂J/∂u_w = {text}")
        ok, why = judge(formula, question, ctx.rng)
        steps += CREDIT_STEPS * int(ok)
        # What was read is shown at once; which case is right only with the explanation (the score tells
        # how many cases are right, not which one: per case, a few resubmissions would find the key).
        lines.append(f"read ({title}): ∂J/∂u_w = {text}.")
        mistake = None if ok else known_mistake(f"1d:{case}", formula, question)
        explained = [mistake.message] if mistake is not None else []
        explained += why
        teach.append(f"case {title}: {'right at every random instance' if ok else 'wrong'}.")
        teach.extend(f"  {w}" for w in explained)
        if mistake is not None:
            steps += credit_steps(mistake.credit)
    status = "" if reads else UNREADABLE
    passed, total = (steps // CREDIT_STEPS, 2) if steps % CREDIT_STEPS == 0 else (steps, 2 * CREDIT_STEPS)
    return Verdict(passed, total, lines, read="; ".join(reads), status=status, review=review,
                   raw="  |  ".join(dict.fromkeys(raws)), why=teach)
