"""Written checkers whose answer is a formula, judged by its values at random points.

1(b)(i) ∂J/∂v_c, 1(d) ∂J/∂u_w (two cases), 1(e) ∂J/∂U, 3(e)(i) ∂h_i/∂x_j, 3(e)(ii) ∂CE/∂l_i
are compared with central differences of the true loss at :data:`TRIALS` random instances
(sizes, vectors, indices drawn from the run's seed); 2(b)(i) γ is compared with the value that
makes E[h_drop] = h at random p in (0, 0.95); 3(b) with the number of transitions that parse a
random n-word sentence. An answer passes only if right at every instance (chosen to cover each
case: z_i > 0 and z_i < 0; i = c and i ≠ c), so one right by accident at one point still fails.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from a2.written.catalogue import CREDIT_STEPS, KnownMistake, credit_steps, known
from a2.written.checker_registry import UNREADABLE, Verdict, WrittenContext, answer_hint, missing, written_check
from a2.written.columns import column_breakdown, explicit_columns
from a2.written.corrections import others_standing
from a2.written.instances import (
    _CONVENTION_W2V,
    CENTER,
    COLUMN_LAYER,
    CONVENTIONS,
    MATRIX,
    OUTSIDE_EQ,
    OUTSIDE_NEQ,
    RELU,
    SOFTMAX_CE,
    ColumnLayer,
    Convention,
    Instance,
    MathQuestion,
    column_layer,
    compare,
    declares_column_layer,
    plain_names,
    probe_instances,
    under,
)
from a2.written.sections import Section
from a2.written.targets import STEP, lhs_target
from grader.reading.answers import (
    BOXED,
    MARKED,
    MARKED_TEXT,
    PLAIN,
    TAIL,
    TEXT,
    Candidate,
    candidates,
    last_rhs,
    lhs,
    plain_tails,
)
from grader.reading.evaluate import EvalError, ShapeMismatch, evaluate, show
from grader.reading.kept_values import evaluator
from grader.reading.mathparse import Cases, Formula, FormulaError, parse_formula, parse_known
from grader.reading.notation import PlainNames
from grader.reading.numeric import close

TRIALS = 4
"""Random instances an answer must be right at (a question may ask more: MathQuestion.trials)."""
EXPLICIT = (MARKED, MARKED_TEXT, BOXED)
TYPED = (PLAIN, TEXT, MARKED_TEXT, TAIL)   # typed without math delimiters: names spelled as plain text does


def parse_answer(cand: Candidate, names: PlainNames) -> Formula:
    """``cand``'s final right-hand side parsed (typed without LaTeX: the question's names as plain text spells them)."""
    if cand.kind in TYPED and "\\" not in cand.latex and "$" not in cand.latex:
        return parse_formula(last_rhs(names.respell(cand.latex)))     # before a remark is cut: pdrop is a name
    return parse_formula(cand.rhs)


def section_candidates(section: Section, names: PlainNames) -> list[Candidate]:
    """The section's candidates, then the formulas its plain-text lines end with (lowest trust), not within another question's equation."""
    found = candidates(section.body)
    return found + [t for t in plain_tails(section.body, names.known) if not any(
        c.start <= t.start < c.end and lhs_target(lhs(c.latex)) not in (None, STEP, section.question) for c in found)]


@dataclass
class Read:
    candidate: Candidate
    formula: Formula
    text: str
    skipped: str = ""      # a formula naming the question that could not be read, read past
    other_lhs: str = ""    # the left side it was read under when that names something else (J, h_i)


# ---------------------------------------------------------------------------------------------
# Reading and judging

QUOTE_CHARS = 120
"""Longest piece of a student's LaTeX quoted back in a message."""


def quote(latex: str) -> str:
    text = " ".join(latex.split())
    return repr(text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + " …")


def _probe(question: MathQuestion) -> Instance:
    return probe_instances(question)[0]


def derivative_lhs(cand: Candidate) -> bool:
    left = lhs(cand.latex)
    return "\\partial" in left or "∂" in left


def readable(formula: Formula, question: MathQuestion) -> str | None:
    """None if ``formula`` can be evaluated in the question's notation, else why not."""
    try:
        evaluate(formula, _probe(question).env)
    except ShapeMismatch:
        return None
    except EvalError as exc:
        return str(exc)
    return None


def _target_filter(found: list[Candidate], own: str) -> list[Candidate]:
    """Candidates that may answer ``own``: not a step of a derivation (∂/∂u_w of something else
    than the loss), not an answer to another question (∂CE/∂l_i under 3(e)(i)); those whose left
    side names ``own`` first."""
    mine = [c for c in found if lhs_target(lhs(c.latex)) == own]
    other = [c for c in found if lhs_target(lhs(c.latex)) is None]
    return mine + other


def read_formula(section: Section, question: MathQuestion) -> Read | Verdict:
    """The section's final answer for ``question``, parsed, or the verdict why none was read.

    An explicit answer ("Answer:", a box) is the only one read when there is one; otherwise a
    formula whose left side names the question beats a passing mention ("where $y$ is one-hot").
    """
    names = plain_names(question)
    found = _target_filter(section_candidates(section, names), section.question)
    # an explicit answer is the answer unless its left side names something else ("Answer: J = ...")
    explicit = [c for c in found if c.kind in EXPLICIT
                and (not lhs(c.latex) or lhs_target(lhs(c.latex)) in (section.question, None) and derivative_lhs(c)
                     or lhs_target(lhs(c.latex)) == section.question)]
    # a formula naming the question, then one without a left side, then one defining another name (J = ..., h_i = ...)
    implicit = sorted(found, key=lambda c: 0 if derivative_lhs(c) else 2 if lhs(c.latex).strip() else 1)
    pool = explicit or implicit
    first_problem = ""
    first_raw = ""
    for cand in pool:
        try:
            formula = parse_answer(cand, names)
        except FormulaError as exc:
            first_problem = first_problem or f"could not read {quote(cand.rhs)}: {exc}"
            first_raw = first_raw or cand.latex
            continue
        problem = readable(formula, question)
        if problem:
            first_problem = first_problem or f"read {quote(cand.rhs)}, but {problem}"
            first_raw = first_raw or cand.latex
            continue
        named = first_raw and lhs_target(lhs(first_raw)) == section.question
        other = lhs(cand.latex).strip() if not derivative_lhs(cand) and lhs_target(lhs(cand.latex)) is None else ""
        return Read(cand, formula, show(formula.tree, formula), first_problem if named else "", other)
    if not found:
        return missing(section, "no formula")
    return Verdict(0, 1, [f"An answer to {question.what} was found but could not be read: {first_problem}. "
                          f"To be graded automatically, {answer_hint(section.where)}."],
                   status=UNREADABLE, raw=first_raw)


def rivals(section: Section, chosen: Read, question: MathQuestion) -> list[Read]:
    """Other final answers the student gave for the same item: other explicit ones when the chosen
    one is explicit, else other formulas whose left side names the question (never a draft that a
    correction between it and the chosen one replaced)."""
    names = plain_names(question)
    found = _target_filter(section_candidates(section, names), section.question)
    if chosen.candidate.kind in EXPLICIT:
        pool = [c for c in found if c.kind in EXPLICIT]
    else:
        pool = [c for c in found if lhs_target(lhs(c.latex)) == section.question and c.kind not in EXPLICIT]
    out = []
    for cand in others_standing(pool, chosen.candidate.start, section.body):
        try:
            formula = parse_answer(cand, names)
        except FormulaError:
            continue
        if readable(formula, question) is None:
            out.append(Read(cand, formula, show(formula.tree, formula)))
    return out


class FormulaEvidence:
    """What the catalogue's formula predicates see: the student's formula at fixed instances."""

    def __init__(self, formula: Formula, question: MathQuestion) -> None:
        self.formula = formula
        self.question = question
        self._insts = probe_instances(question)

    def agrees_with(self, latex: str) -> bool:
        """Same values as ``latex`` wherever either is defined: at each probe instance both have
        equal values or neither can be evaluated (W_ij with i past W's rows), and at least one
        instance has values."""
        other = parse_known(latex)
        compared = 0
        for inst in self._insts:
            mine, theirs = _value(self.formula, inst), _value(other, inst)
            if mine is None and theirs is None:
                continue
            if mine is None or theirs is None or mine.size != theirs.size \
                    or not close(mine.reshape(-1), theirs.reshape(-1)):
                return False
            compared += 1
        return compared > 0

    @property
    def written_in_cases(self) -> bool:
        """Whether the answer is written as cases (``\\begin{cases}``, "a if ..., b otherwise")."""
        return any(isinstance(p, Cases) for p in self.formula.placeholders.values())

    def right_cases(self) -> set[str]:
        """The question's cases (``Instance.case``) where the answer is right at every probe instance."""
        right: dict[str, bool] = {}
        for inst in self._insts:
            try:
                ok = compare(evaluator(self.formula, inst.env).value(), inst, self.question)[0]
            except EvalError:
                ok = False
            right[inst.case] = right.get(inst.case, True) and ok
        return {case for case, ok in right.items() if ok and case}

    def one_case_right(self) -> bool:
        """An answer in cases right in some of the question's cases and wrong in the others."""
        cases = {inst.case for inst in self._insts if inst.case}
        right = self.right_cases()
        return self.written_in_cases and bool(right) and right != cases


def _value(formula: Formula, inst: Instance) -> np.ndarray | None:
    """``formula``'s value at ``inst`` (None where it cannot be evaluated there)."""
    try:
        return np.asarray(evaluator(formula, inst.env).value(), dtype=float)
    except EvalError:
        return None


def known_mistake(item: str, formula: Formula, question: MathQuestion) -> KnownMistake | None:
    return known(item, FormulaEvidence(formula, question))


def judge(formula: Formula, question: MathQuestion, rng: np.random.Generator) -> tuple[bool, list[str]]:
    """Whether ``formula`` is right at every instance; the first failure explained."""
    notes: list[str] = []
    for k in range(question.trials):
        inst = question.make(rng, k)
        try:
            value = evaluator(formula, inst.env).value()
        except ShapeMismatch as exc:
            return False, [f"Shapes do not fit: {exc}."]
        except EvalError as exc:
            return False, [f"It could not be evaluated: {exc}."]
        ok, message, note = compare(value, inst, question)
        if note and note not in notes:
            notes.append(note)
        if not ok:
            return False, [f"At a random instance ({inst.describe}) {message}.", *notes]
    return True, notes


def grade_formula(section: Section, ctx: WrittenContext, question: MathQuestion, item: str = "") -> Verdict:
    got = read_formula(section, question)
    if isinstance(got, Verdict):
        return got
    ok, lines = judge(got.formula, question, ctx.rng)
    stated: Convention | ColumnLayer | None = _stated(got.formula, question, ctx) if not ok and section.convention else None
    if not ok and stated is None and question is RELU and declares_column_layer(section.body) \
            and judge(got.formula, column_layer(question), np.random.default_rng(ctx.seed))[0]:
        stated = COLUMN_LAYER
    if stated is not None:
        ok, lines = True, [f"Read {stated.statement}: right there."]
    read = f"{question.what} = {got.text}"
    verdict = "right at every random instance" if ok else "wrong"
    # What was read is shown at once; the verdict and why only with the explanation.
    out = Verdict(int(ok), 1, [f"read: {read}"], read=read, raw=got.candidate.latex,
                  why=[f"{question.what}: {verdict}.", *lines])
    if stated is not None:
        out.feedback.append(f"Read {stated.statement}.")
    conflict = [r for r in rivals(section, got, question) if judge(r.formula, question, ctx.rng)[0] != ok]
    if conflict:
        other = conflict[0]
        out.passed = 0
        out.review = f"two different answers to {question.what}: {got.text} and {other.text}"
        out.why.append(f"Of the two answers, {got.text if ok else other.text} is right and "
                       f"{other.text if ok else got.text} is wrong.")
        out.feedback.append(f"Another answer in this section, {question.what} = {other.text}, disagrees with it; "
                            "a TA will decide which one is your answer.")
        out.raw = f"{got.candidate.latex}  |  {other.candidate.latex}"
        return out
    hinted = _stated(got.formula, question, ctx) if not ok and stated is None and section.layout_hint else None
    if hinted is not None:
        out.review = (f"{got.text} is right {hinted.statement.replace('your writeup states', 'the writeup may state')}: "
                      f"{quote(section.layout_hint)}; a TA decides which arrays it lays out")
    # how the answer was read (not whole, from another left side, from a line's end) is said at once
    # whatever the verdict; it is flagged for a TA only below full
    if got.skipped:
        out.doubt = (f"the answer that names {question.what} could not be read whole ({got.skipped}); "
                     f"{got.text} was read in its place")
    elif got.other_lhs:
        out.doubt = (f"{got.text} was read from a formula whose left side is {quote(got.other_lhs)}, not "
                     f"{question.what}: it may be a step, not the answer")
    elif (cut := got.candidate.cut_case) or got.candidate.kind == TAIL:
        out.doubt = f"{got.text} was read " + (f"without its case condition {quote(cut)}" if cut else "from the end of a plain-text line: "
                                               + quote(got.candidate.before + got.candidate.latex))
    if not ok and hinted is None and out.doubt:
        out.review = out.doubt
    if not ok:
        mistake = known_mistake(item or section.question, got.formula, question)
        if mistake is not None:
            out.why.insert(1, mistake.message)
            if mistake.credit:
                out.passed, out.total = credit_steps(mistake.credit), CREDIT_STEPS
                out.why.append(f"Partial credit for this known mistake: {mistake.credit:g} of the points.")
    return out


def _stated(formula: Formula, question: MathQuestion, ctx: WrittenContext) -> Convention | None:
    """The layout the writeup states under which ``formula`` is right (U is |V|×d, row vectors), if any:
    a TA reads an answer in the convention its writeup declares."""
    if "U" not in _probe(question).env.arrays:
        return None
    for convention in CONVENTIONS:
        if judge(formula, under(question, convention), np.random.default_rng(ctx.seed))[0]:
            return convention
    return None


# ---------------------------------------------------------------------------------------------
# The checkers

@written_check("grad_center")
def grad_center(section: Section, ctx: WrittenContext) -> Verdict:
    """1(b)(i): ∂J/∂v_c against central differences of the naive-softmax loss."""
    return grade_formula(section, ctx, CENTER)


@written_check("grad_outside_matrix")
def grad_outside_matrix(section: Section, ctx: WrittenContext) -> Verdict:
    """1(e): ∂J/∂U, as a matrix, or as the row [∂J/∂u_1 … ∂J/∂u_|V|] of its columns."""
    found = _target_filter(candidates(section.body), "1e")
    explicit = [c for c in found if c.kind in EXPLICIT]
    for cand in (explicit or found)[:1]:      # the final answer only: a breakdown in a derivation is a step
        layout = column_breakdown(cand.rhs)
        if layout == "columns":
            read = "∂J/∂U = [∂J/∂u_1, ∂J/∂u_2, …, ∂J/∂u_|V|]"
            return Verdict(1, 1, [f"read: {read}"], read=read, why=["∂J/∂U written column by column, each "
                                                                 "column the gradient for one outside vector: right."])
        if layout == "rows":
            read = "∂J/∂U = the ∂J/∂u_w stacked as rows"
            return Verdict(0, 1, [f"read: {read}"], read=read,
                           why=["∂J/∂U: wrong.", "These gradients are stacked as rows, but "
                                f"{_CONVENTION_W2V}, so ∂J/∂U (the shape of U) has them as its columns."])
        cells = explicit_columns(cand.rhs)
        judged = _judge_columns(cells, ctx) if cells else None
        if judged is not None:
            return judged
        if explicit:
            break
    return grade_formula(section, ctx, MATRIX)


def _judge_columns(cells: list[tuple[str, str]], ctx: WrittenContext) -> Verdict | None:
    """1(e) as one row of columns written out per word: each column judged as 1(d)'s ∂J/∂u_w for
    its word (o's against w = o, the others against w ≠ o); None when a column cannot be parsed."""
    wrong = []
    for role, latex in cells:
        try:
            ok = judge(parse_formula(latex), OUTSIDE_EQ if role == "o" else OUTSIDE_NEQ, ctx.rng)[0]
        except Exception:
            return None
        if not ok:
            wrong.append(latex)
    read = "∂J/∂U = [" + ", ".join(latex for _, latex in cells) + "]"
    if wrong:
        return Verdict(0, 1, [f"read: {read}"], read=read, why=[
            "∂J/∂U: wrong.", f"Its column(s) {', '.join(wrong)} are not ∂J/∂u_w for their word (see 1(d))."])
    return Verdict(1, 1, [f"read: {read}"], read=read, why=[
        "∂J/∂U written out column by column, each column ∂J/∂u_w for its word: right."])


@written_check("relu_jacobian")
def relu_jacobian(section: Section, ctx: WrittenContext) -> Verdict:
    """3(e)(i): ∂h_i/∂x_j for h = ReLU(xW + b_1), at instances with z_i > 0 and z_i < 0."""
    return grade_formula(section, ctx, RELU)


@written_check("softmax_ce_grad")
def softmax_ce_grad(section: Section, ctx: WrittenContext) -> Verdict:
    """3(e)(ii): ∂CE(y, ŷ)/∂l_i with ŷ = softmax(l), at instances with i = c and i ≠ c."""
    return grade_formula(section, ctx, SOFTMAX_CE)
