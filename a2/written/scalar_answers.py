"""Written checkers whose answer is an expression in one variable: 2(b)(i) γ(p_drop) and 3(b) steps(n).

The expression is evaluated at random points (p in (0, 0.95), n in 3..60) and compared with the
true value; a known wrong answer (1 − p, p/(1 − p), n, 2n ± 1, ...) gets the catalogue's message.
Plain-text answers ("takes 2n steps") are read as well as math.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import sympy

from a2.written.catalogue import CREDIT_STEPS, credit_steps, known
from a2.written.checker_registry import UNREADABLE, Verdict, WrittenContext, answer_hint, missing, written_check
from a2.written.corrections import last_correction
from a2.written.formulas import EXPLICIT, TRIALS, parse_answer, quote
from a2.written.instances import one_variable
from a2.written.sections import Section
from grader.reading.answers import DISPLAY, INLINE, MARKED_TEXT, PLAIN, TAIL, TEXT, Candidate, candidates, math_spans, plain_tails
from grader.reading.evaluate import Env, EvalError, evaluate, is_scalar, show, split_name
from grader.reading.mathparse import Formula, FormulaError, parse_formula, parse_known
from grader.reading.numeric import close
from grader.reading.sides import lhs

# 2(b)(i) and 3(b): an expression in one variable ------------------------------------------

def _only(formula: Formula, names: set[str]) -> str | None:
    """None if ``formula`` is an expression in ``names`` only (and uses at least one of them)."""
    used = set()
    for s in formula.tree.atoms(sympy.Symbol):
        base, tokens = split_name(s.name)
        used.add(base + ("_" + "".join(tokens) if tokens else ""))
    if formula.placeholders:
        return "it uses a construct that does not belong in this answer"
    if not used & names:
        return f"it is not an expression in {' or '.join(sorted(names))}"
    extra = used - names
    if extra:
        return f"it uses {', '.join(sorted(extra))}, which this answer should not contain"
    return None


def unbulleted(text: str) -> str:
    """``text`` with each Markdown list bullet (``- 2n`` at a line's start) blanked: never a minus sign."""
    return re.sub(r"(?m)^([ \t>]*)[-+*](?=[ \t])", lambda m: m.group(1) + " ", text)


def _text_candidates(body: str, pattern: re.Pattern[str]) -> list[Candidate]:
    """Plain-text expressions (outside math) matching ``pattern``, e.g. ``2n`` in "takes 2n steps"; a
    Markdown list's bullet (``- 2n``) is not a minus sign."""
    masked = unbulleted(body)
    for span in math_spans(body):
        masked = masked[:span.start] + " " * (span.end - span.start) + masked[span.end:]
    out = []
    for m in pattern.finditer(masked):
        expr = m.group("expr").strip()
        if expr:
            out.append(Candidate(expr, TEXT, m.start("expr"), masked[max(0, m.start() - 60):m.start()],
                                 m.end("expr")))
    return out


_GAMMA_TEXT = re.compile(r"(?:γ|\\gamma|gamma)\s*(?:=|is|equals)\s*(?P<expr>[0-9p_{}\\a-z()/+\-−–·*\s.^]+?)"
                         r"(?=\s*(?:$|[,;\n]|\.\s|\.$|\s(?:so|which|because|since|where)\b)"
                         r"|\s+\((?=[^()\n]*=)[^\n]*\)\s*$)", re.I | re.M)
"""γ = ... in text, up to a remark: a clause, or a trailing ``(...)`` holding an equation (``(E[d_i] = 1 − p)``)."""


def _value_check(formula: Formula, var: str, points: list[float], truth: Callable[[float], float]) -> tuple[bool, str]:
    for x in points:
        try:
            got = evaluate(formula, Env({var: float(x)}))
        except EvalError as exc:
            return False, f"it could not be evaluated: {exc}"
        if not is_scalar(got):
            return False, "it is not a number"
        value = float(np.asarray(got).reshape(-1)[0])
        if not close(value, truth(x)):
            shown = f"{x:g}" if var == "n" else f"{x:.3f}"
            return False, f"at {var} = {shown} it gives {value:.6g}, but the answer is {truth(x):.6g}"
    return True, ""


@written_check("dropout_gamma")
def dropout_gamma(section: Section, ctx: WrittenContext) -> Verdict:
    """2(b)(i): γ as a function of p_drop, evaluated at random p in (0, 0.95)."""
    if section.empty:
        return missing(section)
    found = candidates(section.body)
    gamma_first = [c for c in found if c.kind in (DISPLAY, INLINE, PLAIN)
                   and re.search(r"\\gamma|γ", lhs(c.latex))]
    extra = gamma_first + _text_candidates(section.body, _GAMMA_TEXT)
    explicit = [c for c in found if c.kind in EXPLICIT]
    # "Solution: E[h_drop]_i = γ(1 − p)h_i ... so $$γ = ...$$": a γ = ... after the marked line is its conclusion
    explicit += [c for c in gamma_first if explicit and c.start > explicit[0].start]
    pool = explicit or (extra + [c for c in found if c not in gamma_first]
                        + plain_tails(section.body, one_variable("p").known))
    got = _first_in(pool, {"p"})
    if isinstance(got, Verdict) or got is None:
        return got or missing(section, "no expression in p_drop")
    cand, formula = got
    points = list((np.arange(TRIALS) + ctx.rng.uniform(0.05, 0.95, size=TRIALS)) / TRIALS * 0.95)
    keep = _KEEP.search(section.body) if "p_" not in cand.latex.replace(" ", "") and "drop" not in cand.latex else None
    if keep:         # "let p be the probability that a unit is kept": the answer's p is 1 − p_drop
        ok, why = _value_check(formula, "p", [1.0 - p for p in points], lambda k: 1.0 / k)
    else:
        ok, why = _value_check(formula, "p", points, lambda p: 1.0 / (1.0 - p))
    read = "γ = " + re.sub(r"\bp\b", "p_drop", show(formula.tree, formula))
    said = "γ: right at every random p in (0, 0.95)." if ok else "γ: wrong."
    out = _with_catalogue(Verdict(int(ok), 1, [f"read: {read}"], read=read, raw=cand.latex, why=_why(said, why)), "2b_i",
                          ScalarEvidence(formula, "p", points), cand)
    if keep:
        out.review = (f"{read} was read with p the probability of keeping a unit, as the writeup declares "
                      f"({quote(keep.group(0))}): a TA confirms the reading")
        out.feedback.append("Read with p as the probability of keeping a unit, as your writeup declares it.")
    defined = [c.latex for c in found if _defines(lhs(c.latex), ("\\gamma", "γ", "gamma"))]
    own = _in_own_names(found, points) if not ok and not out.review and defined else None
    if not ok and not out.review and defined:
        # what was read is γ as written in the writeup's own names, right or wrong (a reading shown
        # in other names only when right would tell right from wrong before the due date)
        read = _own_names_read(found) or read
        out.read, out.feedback = read, [f"read: {read}"]
    if own is not None:       # "let q = 1 − p_drop ... γ = 1/q", right with q put in
        return Verdict(1, 1, [f"read: {read}", "Read with the names your writeup defines."], read=read,
                       raw=out.raw,
                       why=[f"γ: right at every random p in (0, 0.95), with the writeup's own names put in (γ = {own})."])
    if not ok and not out.review and defined:
        # "let q = 1 − p_drop ... γ = 1/q": the writeup's own name for another quantity
        out.review = (f"{read} was read, but the writeup defines its own names ({'; '.join(quote(d) for d in defined[:3])}): "
                      "a TA reads the answer with them")
    return out


_KEEP = re.compile(r"(?<![A-Za-z\\_])\$?p\$?\s+(?:be|is|denotes?|as|for)\s+(?:the\s+)?(?:probability|prob\.?|chance)\s+"
                   r"(?:of|that)\s+(?:(?!drop)[^.;\n]){0,25}?\b(?:kept|keep(?:ing)?|retain(?:ed|ing)?|surviv\w*)\b", re.I)
"""A sentence that declares p the probability of KEEPING a unit ("let $p$ be the probability a unit is kept")."""


def _in_own_names(found: list[Candidate], points: list[float]) -> str | None:
    """γ's formula with the writeup's own names put in (``q = 1 - p_{drop}`` ... ``\\gamma = 1/q`` ->
    ``1/(1 - p_{drop})``), when that is right; else None (the caller flags it)."""
    defs = [(lhs(c.latex).strip().strip("$ "), c.rhs) for c in found
            if _defines(lhs(c.latex), ("\\gamma", "γ", "gamma")) and re.search(r"drop", c.rhs)]
    for cand in found:
        if not re.search(r"\\gamma|γ|gamma", lhs(cand.latex)):
            continue
        rhs = cand.rhs
        for name, expr in defs:
            rhs = re.sub(r"(?<![A-Za-z\\])" + re.escape(name) + r"(?![A-Za-z_])", f"({expr})".replace("\\", "\\\\"), rhs)
        try:
            formula = parse_formula(rhs)
        except FormulaError:
            continue
        if rhs != cand.rhs and not _only(formula, {"p"}) and \
                _value_check(formula, "p", points, lambda p: 1.0 / (1.0 - p))[0]:
            return rhs
    return None


def _own_names_read(found: list[Candidate]) -> str:
    """``γ = 1/q, where q = 1 - p_{drop}``: the last γ of the writeup with the names it defines, as written."""
    defs = [c.latex.strip() for c in found if _defines(lhs(c.latex), ("\\gamma", "γ", "gamma")) and re.search(r"drop", c.rhs)]
    gammas = [c for c in found if re.search(r"\\gamma|γ|gamma", lhs(c.latex))]
    return f"γ = {gammas[-1].rhs.strip()}, where {'; '.join(defs[:3])}" if gammas and defs else ""


def _defines(left: str, targets: tuple[str, ...]) -> bool:
    """Whether an equation's left side ``left`` defines a name of the writeup's own: one symbol
    (``q``, ``p``, ``p_{keep}``), not the question's target."""
    name = left.strip().strip("$ ")
    base, _, sub = name.lstrip("\\").partition("_")
    return base.isalpha() and (not sub or sub.strip("{}").replace(" ", "").isalnum()) and name not in targets


def _first_in(pool: list[Candidate], names: set[str]) -> tuple[Candidate, Formula] | Verdict | None:
    """The first candidate that is an expression in ``names``; a problem is reported only for an
    explicit answer (an "Answer:" line or a box), not for the formulas of a derivation."""
    problem = ""
    for cand in pool:
        try:
            formula = parse_answer(cand, one_variable(next(iter(names))))
        except FormulaError as exc:
            if cand.kind in EXPLICIT:
                problem = problem or f"could not read {quote(cand.rhs)}: {exc}"
            continue
        why = _only(formula, names)
        if why:
            if cand.kind in EXPLICIT:
                problem = problem or f"read {quote(cand.rhs)}, but {why}"
            continue
        return cand, formula
    if problem:
        return Verdict(0, 1, [f"No expression in {', '.join(sorted(names))} could be read: {problem}."],
                       status=UNREADABLE)
    return None


_N_TEXT = re.compile(r"(?<![A-Za-z0-9_\\^{])(?P<expr>(?:\d+\s*(?:\*|·|×|x(?=\s*n)|\\cdot|\\times)?\s*)?n"
                     r"(?:\s*(?:[+\-−–*·×]|\\cdot|\\times)\s*(?:\d+\s*(?:\*|·|×|\\cdot|\\times)?\s*)?n?)*)(?![A-Za-z0-9_])")
_NEAR_AFTER = re.compile(r"^\s*\$?\s*(?:steps?|transitions?|moves?|actions?|operations?|total|in total)\b", re.I)
_NEAR_BEFORE = re.compile(r"(?:total|takes?|requires?|needs?|exactly|so|thus|therefore|hence|=)\W*$", re.I)
_NOT_AN_ANSWER = re.compile(r"^\s*\$?\s*(?:-\s*)?(?:words?|tokens?|word\b|shift|arc|left|right|reduce|push|pop)",
                            re.I)
"""After "$n$ words" or "n shifts" / "n arcs" (one kind of transition), n is not the answer."""
_QUESTION_N = re.compile(r"(?:in\s+terms\s+of|as\s+a\s+function\s+of|containing|contains)\s*\(?\s*\$?\s*$", re.I)
"""Before the prompt's n ("how many steps (in terms of $n$)?", "a sentence containing $n$ words"): not an answer."""


def _after_correction(pool: list[Candidate], body: str) -> list[Candidate]:
    """The expressions in n below the last correction line ("First thought: $n$ ... Correction: ...
    $2n$"), when there are any: a correction replaces the draft (:mod:`a2.written.corrections`)."""
    at = last_correction(body)
    later = [c for c in pool if at is not None and c.start >= at]
    return later if later and isinstance(_first_in(later, {"n"}), tuple) else pool


_TIMES = {"twice": 2, "double": 2, "two times": 2, "2 times": 2, "thrice": 3, "triple": 3, "three times": 3,
          "3 times": 3, "four times": 4, "4 times": 4}
"""A multiple said in words ("twice the number of words"), as the factor it means."""
_IN_WORDS = re.compile(r"\b(" + "|".join(_TIMES) + r")\s+(?:the\s+(?:number|count)\s+of\s+(?:words|tokens)"
                       r"|the\s+(?:sentence(?:'s)?\s+)?length(?:\s+of\s+the\s+sentence)?"
                       r"|as\s+many\s+(?:steps|transitions)\s+as\s+(?:there\s+are\s+)?(?:words|tokens))\b", re.I)


def counts_in_words(text: str) -> str:
    """``text`` with a step count said in words written as the expression in n it means
    ("twice the number of words" -> "2n steps")."""
    return _IN_WORDS.sub(lambda m: f"{_TIMES[m.group(1).lower()]}n steps", text)


@written_check("step_count")
def step_count(section: Section, ctx: WrittenContext) -> Verdict:
    """3(b): the number of transitions for an n-word sentence, as an expression in n."""
    if section.empty:
        return missing(section)
    # a growth rate (O(n), \mathcal{O}(n)) is not a count of steps: never the answer ("O(n), exactly 2n steps")
    body = counts_in_words(unbulleted(section.body))
    found = [c for c in candidates(body) if not c.latex.replace(" ", "").startswith(("O(", "\\mathcal{O}",
                                                                                              "\\mathcal O", "\\Theta"))]
    explicit = [c for c in found if c.kind in EXPLICIT]
    if explicit:
        pool = [said for c in explicit for said in _count_in_words(c)]
    else:
        implicit = sorted((c for c in found if c.kind in (DISPLAY, INLINE, PLAIN)), key=lambda c: c.start)
        implicit += _text_candidates(body, _N_TEXT) + plain_tails(body, one_variable("n").known)
        # "$n$ words", "an n-word sentence", "(in terms of $n$)": the question's n, not an answer.
        implicit = [c for c in implicit if not (c.rhs.strip() == "n" and c.end >= 0
                                                and (_NOT_AN_ANSWER.match(body[c.end:c.end + 20])
                                                     or _QUESTION_N.search(body[max(0, c.start - 30):c.start])))]
        implicit = _after_correction(implicit, body)

        def score(c: Candidate) -> tuple[int, int, int]:
            after = body[c.end:c.end + 30] if c.end >= 0 else ""
            near = bool(_NEAR_AFTER.match(after) or _NEAR_BEFORE.search(c.before[-30:]))
            return (0 if near else 1, 0 if "=" in c.latex else 1, c.start)
        pool = sorted(implicit, key=score)
    got = _first_in(pool, {"n"})
    if got is None:
        return Verdict(0, 1, ["No expression in n found for 3(b): give the number of steps as an "
                              f"expression in n ({answer_hint(section.where)})."], status=UNREADABLE)
    if isinstance(got, Verdict):
        got.feedback = ["No expression in n found for 3(b). " + " ".join(got.feedback)]
        return got
    cand, formula = got
    points = [float(n) for n in sorted({3, 8, *map(int, ctx.rng.integers(4, 60, size=TRIALS - 2))})]
    ok, why = _value_check(formula, "n", points, lambda n: 2.0 * n)
    read = f"steps = {show(formula.tree, formula)}"
    said = "Step count: right for every n tried." if ok else "Step count: wrong."
    lines = [f"read: {read}", "The explanation is graded by a TA."]
    verdict = Verdict(int(ok), 1, lines, read=read, raw=cand.latex, why=_why(said, why))
    # "Two times $n$: the answer is $2n$": a wrong expression picked by its place alone (no "steps" by it, no
    # "="), among others, one of them right
    rival = None if ok or explicit or score(cand)[:2] != (1, 1) else _first_in(
        [c for c in pool if c is not cand and c.rhs.strip() != cand.rhs.strip() and _right_count(c, points)], {"n"})
    if isinstance(rival, tuple):
        verdict.review = f"{read} was read, but the section also has {quote(rival[0].latex)}, which may be the answer"
    return _with_catalogue(verdict, "3b", ScalarEvidence(formula, "n", points), cand)


def _right_count(cand: Candidate, points: list[float]) -> bool:
    try:
        return _value_check(parse_answer(cand, one_variable("n")), "n", points, lambda n: 2.0 * n)[0]
    except FormulaError:
        return False


_STEP_WORD = re.compile(r"\b(?:steps?|transitions?)\b", re.I)
_FINAL_LINE = re.compile(r"^[\s>*_]*final\s+answers?\b[^:\n]{0,40}:\s*(?=\S)", re.I | re.M)
_FINAL_HEADING = re.compile(r"^(?:#{1,6}[ \t]*|\*\*|__)[ \t]*final\s+answers?[ \t]*(?:\*\*|__)?[ \t:]*$", re.I)


def step_statements(body: str) -> list[tuple[int, str]]:
    """(offset, line) of the lines of another question's section that state a count of steps in n
    (``It takes 2n steps``, ``steps = 2·n``) or give an expression in n as a final answer (``Final
    answer of the next part: 2n``, the line under a ``#### Final Answer`` heading): a 3(b) written at
    the end of 3(a)'s table. Each line is one the 3(b) checker reads an expression in n from."""
    out = []
    offset, lines = 0, body.split("\n")
    marked_next = False
    for line in lines:
        start, offset = offset, offset + len(line) + 1
        if _FINAL_HEADING.match(line.strip()):
            marked_next = True
            continue
        if not line.strip():
            continue
        marked, marked_next = marked_next or bool(_FINAL_LINE.match(line)), False
        said = bool(_STEP_WORD.search(line)) and any(
            _NEAR_AFTER.match(counts_in_words(line)[c.end:c.end + 30]) or _NEAR_BEFORE.search(c.before[-30:])
            for c in _text_candidates(counts_in_words(line), _N_TEXT) + [c for c in candidates(line) if c.kind != TEXT])
        if (marked or said) and (marked or "|" not in line) and _reads_count(line):
            out.append((start, line.strip()))
    return out


def _reads_count(line: str) -> bool:
    """Whether the 3(b) checker reads an expression in n from ``line`` alone."""
    body = counts_in_words(line)
    pool = [c for c in candidates(body) if c.kind in (DISPLAY, INLINE, PLAIN)] + _text_candidates(body, _N_TEXT)
    pool = [c for c in pool if not (c.rhs.strip() == "n" and c.end >= 0 and _NOT_AN_ANSWER.match(body[c.end:c.end + 20]))]
    return isinstance(_first_in(pool, {"n"}), tuple)


def _count_in_words(cand: Candidate) -> list[Candidate]:
    """An explicit answer as read: itself, or, for an "Answer:" line in words (``Answer: it takes 2n
    steps in total``), the one expression in n it states as the count of steps (so the line is
    read whole: one count, said as one)."""
    if cand.kind != MARKED_TEXT:
        return [cand]
    try:
        if _only(parse_answer(cand, one_variable("n")), {"n"}) is None:
            return [cand]
    except FormulaError:
        pass
    text = cand.latex
    said = [c for c in _text_candidates(text, _N_TEXT)
            if _NEAR_AFTER.match(text[c.end:c.end + 30]) or _NEAR_BEFORE.search(c.before[-30:])]
    said = [c for c in said if not (c.rhs.strip() == "n" and _NOT_AN_ANSWER.match(text[c.end:c.end + 20]))]
    if len({"".join(c.latex.split()) for c in said}) != 1:
        return [cand]
    c = said[0]
    return [Candidate(c.latex, MARKED_TEXT, cand.start + c.start, cand.before + text[:c.start], cand.start + c.end)]


def _why(said: str, why: str) -> list[str]:
    """The verdict and, for a wrong one-variable answer, why ("at p = 0.3 it gives ..."): shown with the key."""
    return [said, f"Wrong: {why}."] if why else [said]


class ScalarEvidence:
    """What the catalogue's predicates see for a one-variable answer: its values at the points tried."""

    def __init__(self, formula: Formula, var: str, points: list[float]) -> None:
        self.formula, self.var, self.points = formula, var, points

    def agrees_with(self, latex: str) -> bool:
        other = parse_known(latex)
        for x in self.points:
            mine = evaluate(self.formula, Env({self.var: float(x)}))
            theirs = evaluate(other, Env({self.var: float(x)}))
            if not (is_scalar(mine) and is_scalar(theirs)) or not close(float(np.asarray(mine).reshape(-1)[0]),
                                                                       float(np.asarray(theirs).reshape(-1)[0])):
                return False
        return True


def _with_catalogue(verdict: Verdict, item: str, evidence: ScalarEvidence, cand: Candidate) -> Verdict:
    """A wrong answer that is a known mistake gets the catalogue's message (and credit, if declared);
    one read from the end of a plain-text line is flagged (nothing says it is the answer)."""
    if cand.kind == TAIL:      # said at once whatever the verdict; flagged for a TA only below full
        verdict.doubt = (f"{verdict.read} was read from the end of a line of plain text "
                         f"({quote(cand.before + cand.latex)}), not from an answer that names the question")
    if verdict.passed == verdict.total:
        return verdict
    if cand.kind == TAIL:
        verdict.review = verdict.doubt
    mistake = known(item, evidence)
    if mistake is not None:
        verdict.why.insert(1, mistake.message)
        if mistake.credit:
            verdict.passed, verdict.total = credit_steps(mistake.credit), CREDIT_STEPS
    return verdict
