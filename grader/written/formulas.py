"""Written checkers whose answer is a formula, judged by its values at random points.

1(b)(i) ∂J/∂v_c, 1(d) ∂J/∂u_w (two cases), 1(e) ∂J/∂U, 3(e)(i) ∂h_i/∂x_j, 3(e)(ii) ∂CE/∂l_i
are compared with central differences of the true loss at :data:`TRIALS` random instances
(sizes, vectors, indices drawn from the run's seed); 2(b)(i) γ is compared with the value that
makes E[h_drop] = h at random p in (0, 0.95); 3(b) with the number of transitions that parse a
random n-word sentence. An answer passes an item only if it is right at every instance, so a
formula that is right by accident at one point (a missing indicator when z_i > 0) still fails:
instances are chosen to cover each case (z_i > 0 and z_i < 0; i = c and i ≠ c).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy

from grader.written.answers import (
    BOXED,
    DISPLAY,
    INLINE,
    MARKED,
    MARKED_TEXT,
    TEXT,
    Candidate,
    candidates,
    lhs,
    math_spans,
)
from grader.written.evaluate import Env, EvalError, Evaluator, ShapeMismatch, evaluate, is_scalar, show, split_name
from grader.written.mathparse import Formula, FormulaError, parse_formula
from grader.written.numeric import central_difference, close, difference, softmax
from grader.written.registry import UNREADABLE, Verdict, WrittenContext, missing, written_check
from grader.written.sections import Section

TRIALS = 4
"""Random instances an answer must be right at."""
PROBE_SEED = 20240
"""Seed of the instance used only to tell whether a candidate can be evaluated at all."""
EXPLICIT = (MARKED, MARKED_TEXT, BOXED)


@dataclass
class Instance:
    env: Env
    expected: float | np.ndarray
    describe: str


@dataclass
class MathQuestion:
    """One formula to judge: how to draw instances and how to talk about the result."""

    what: str                                     # "∂J/∂v_c"
    make: Callable[[np.random.Generator, int], Instance]
    shape_words: str                              # "a d-vector, like v_c"
    vector_orientation_free: bool = True          # a row where a column is expected is tolerated
    full_gradient: Callable[[Instance], np.ndarray] | None = None   # a vector answer to a per-entry question


@dataclass
class Read:
    candidate: Candidate
    formula: Formula
    text: str


# ---------------------------------------------------------------------------------------------
# Instances

_CONVENTION_W2V = ("under this assignment's convention U's columns are the outside vectors "
                   "(U is d×|V|; v_c, u_w are d-vectors; y, ŷ are |V|-vectors)")
_ALLOWED_W2V = "U, u_o, u_w, v_c, y, ŷ, y_o, ŷ_o, y_w, ŷ_w"


def _w2v_point(rng: np.random.Generator) -> tuple[int, int, np.ndarray, np.ndarray, int]:
    d = int(rng.integers(3, 7))
    vocab = int(rng.integers(d + 3, d + 9))
    U = rng.normal(size=(d, vocab))
    v = rng.normal(size=(d, 1))
    o = int(rng.integers(vocab))
    return d, vocab, U, v, o


def _loss(U: np.ndarray, v: np.ndarray, o: int) -> float:
    scores = (U.T @ v).reshape(-1)
    m = scores.max()
    return float(-(scores[o] - m - np.log(np.exp(scores - m).sum())))


def _w2v_env(d: int, vocab: int, U: np.ndarray, v: np.ndarray, o: int, w: int | None = None) -> Env:
    yhat = softmax((U.T @ v).reshape(-1)).reshape(-1, 1)
    y = np.zeros((vocab, 1))
    y[o] = 1.0
    arrays = {"U": U, "v_c": v, "y": y, "yhat": yhat, "u_o": U[:, o:o + 1]}
    indices = {"o": o}
    if w is not None:
        arrays["u_w"] = U[:, w:w + 1]
        indices["w"] = w
    return Env(arrays, indices, families={"u": lambda k: U[:, k:k + 1]}, sum_range=vocab,
               dims={d: "d", vocab: "|V|"}, convention=_CONVENTION_W2V, allowed=_ALLOWED_W2V)


def make_center(rng: np.random.Generator, k: int) -> Instance:
    d, vocab, U, v, o = _w2v_point(rng)
    expected = central_difference(lambda x: _loss(U, x, o), v)
    return Instance(_w2v_env(d, vocab, U, v, o), expected, f"d = {d}, |V| = {vocab}, o = {o + 1}")


def make_outside(case_equal: bool) -> Callable[[np.random.Generator, int], Instance]:
    def make(rng: np.random.Generator, k: int) -> Instance:
        d, vocab, U, v, o = _w2v_point(rng)
        w = o if case_equal else int((o + rng.integers(1, vocab)) % vocab)

        def loss_of_column(col: np.ndarray) -> float:
            V = U.copy()
            V[:, w:w + 1] = col
            return _loss(V, v, o)

        expected = central_difference(loss_of_column, U[:, w:w + 1])
        return Instance(_w2v_env(d, vocab, U, v, o, w), expected,
                        f"d = {d}, |V| = {vocab}, o = {o + 1}, w = {w + 1}")
    return make


def make_matrix(rng: np.random.Generator, k: int) -> Instance:
    d, vocab, U, v, o = _w2v_point(rng)
    expected = central_difference(lambda X: _loss(X, v, o), U)
    return Instance(_w2v_env(d, vocab, U, v, o), expected, f"d = {d}, |V| = {vocab}, o = {o + 1}")


def make_relu(rng: np.random.Generator, k: int) -> Instance:
    n_in = int(rng.integers(4, 8))
    hidden = int(rng.integers(n_in + 2, n_in + 7))
    x = rng.normal(size=(1, n_in))
    W = rng.normal(size=(n_in, hidden))
    b = rng.normal(size=(1, hidden))
    i = int(rng.integers(hidden))
    j = int(rng.integers(n_in))
    # Half the instances have z_i > 0 and half z_i < 0, well away from the kink at 0.
    sign = 1.0 if k % 2 == 0 else -1.0
    target = sign * float(rng.uniform(0.5, 2.0))
    b[0, i] += target - float((x @ W + b)[0, i])
    z = x @ W + b
    h = np.maximum(z, 0.0)

    def h_i(xx: np.ndarray) -> float:
        return float(np.maximum(xx @ W + b, 0.0)[0, i])

    expected = float(central_difference(h_i, x)[0, j])
    env = Env({"x": x, "W": W, "b_1": b, "b": b, "z": z, "h": h}, {"i": i, "j": j},
              dims={n_in: "D_x", hidden: "D_h"},
              convention="here x is a row vector (1×D_x), W is D_x×D_h and h = ReLU(xW + b_1)",
              allowed="x_j, W_ji, b_1, z_i = (xW + b_1)_i, h_i, and indicators such as 1{z_i > 0}")
    return Instance(env, expected, f"D_x = {n_in}, D_h = {hidden}, i = {i + 1}, j = {j + 1}, "
                                   f"z_i {'>' if sign > 0 else '<'} 0")


def make_softmax_ce(rng: np.random.Generator, k: int) -> Instance:
    logits = rng.normal(size=(3, 1)) * 1.5
    c = int(rng.integers(3))
    i = c if k % 2 == 0 else int((c + rng.integers(1, 3)) % 3)
    y = np.zeros((3, 1))
    y[c] = 1.0

    def ce(scores: np.ndarray) -> float:
        s = scores.reshape(-1)
        m = s.max()
        return float(-(s[c] - m - np.log(np.exp(s - m).sum())))

    grad = central_difference(ce, logits)
    env = Env({"l": logits, "yhat": softmax(logits.reshape(-1)).reshape(-1, 1), "y": y, "theta": logits},
              {"i": i, "c": c}, sum_range=3, dims={3: "3"},
              convention="l, y and ŷ are 3-vectors and ∂CE/∂l_i is a number",
              allowed="ŷ_i, y_i, ŷ_c, y_c, l_i, and indicators such as 1{i = c} or δ_ic")
    inst = Instance(env, float(grad[i, 0]), f"c = {c + 1}, i = {i + 1}")
    inst.env.arrays["__full_gradient__"] = grad
    return inst


CENTER = MathQuestion("∂J/∂v_c", make_center, "a d-vector, like v_c")
OUTSIDE_EQ = MathQuestion("∂J/∂u_w (w = o)", make_outside(True), "a d-vector, like u_w")
OUTSIDE_NEQ = MathQuestion("∂J/∂u_w (w ≠ o)", make_outside(False), "a d-vector, like u_w")
MATRIX = MathQuestion("∂J/∂U", make_matrix, "d×|V|, the shape of U", vector_orientation_free=False)
RELU = MathQuestion("∂h_i/∂x_j", make_relu, "a number")
SOFTMAX_CE = MathQuestion("∂CE/∂l_i", make_softmax_ce, "a number",
                          full_gradient=lambda inst: inst.env.arrays["__full_gradient__"])


# ---------------------------------------------------------------------------------------------
# Reading and judging

QUOTE_CHARS = 120
"""Longest piece of a student's LaTeX quoted back in a message."""


def quote(latex: str) -> str:
    text = " ".join(latex.split())
    return repr(text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + " …")


def _shape(value: np.ndarray | float, env: Env) -> str:
    if is_scalar(value):
        return "a number"
    rows, cols = np.shape(value)
    return f"{env.dims.get(rows, rows)}×{env.dims.get(cols, cols)}"


def _probe(question: MathQuestion) -> Instance:
    return question.make(np.random.default_rng(PROBE_SEED), 0)


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


def read_formula(section: Section, question: MathQuestion) -> Read | Verdict:
    """The section's final answer for ``question``, parsed, or the verdict why none was read.

    An explicit answer ("Answer:", a box) is the only one read when there is one; otherwise a
    formula whose left side is a derivative beats a passing mention ("where $y$ is one-hot").
    """
    found = candidates(section.body)
    explicit = [c for c in found if c.kind in EXPLICIT]
    implicit = [c for c in found if derivative_lhs(c)] + [c for c in found if not derivative_lhs(c)]
    pool = explicit or implicit
    first_problem = ""
    for cand in pool:
        try:
            formula = parse_formula(cand.rhs)
        except FormulaError as exc:
            first_problem = first_problem or f"could not read {quote(cand.rhs)}: {exc}"
            continue
        problem = readable(formula, question)
        if problem:
            first_problem = first_problem or f"read {quote(cand.rhs)}, but {problem}"
            continue
        return Read(cand, formula, show(formula.tree, formula))
    if not found:
        return missing(section, "no formula")
    return Verdict(0, 1, [f"An answer to {question.what} was found but could not be read: {first_problem}. "
                          "Write the final result in LaTeX math on a line starting with 'Answer:'."],
                   status=UNREADABLE)


def judge(formula: Formula, question: MathQuestion, rng: np.random.Generator) -> tuple[bool, list[str]]:
    """Whether ``formula`` is right at every instance; the first failure explained."""
    notes: list[str] = []
    for k in range(TRIALS):
        inst = question.make(rng, k)
        try:
            value = Evaluator(formula, inst.env).value()
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


def compare(value: np.ndarray | float, inst: Instance, question: MathQuestion) -> tuple[bool, str, str]:
    expected = inst.expected
    env = inst.env
    if is_scalar(expected):
        if is_scalar(value):
            v = float(np.asarray(value).reshape(-1)[0])
            if close(v, expected):
                return True, "", ""
            hint = " (the opposite sign)" if close(-v, expected) else ""
            return False, f"your expression is {v:.4g} but the true {question.what} is {float(expected):.4g}{hint}", ""
        full = question.full_gradient(inst) if question.full_gradient else None
        if full is not None and np.size(value) == full.size and close(np.reshape(value, full.shape), full):
            return True, "", (f"your answer is the whole gradient vector; {question.what} is its "
                              "i-th entry, which is right")
        return False, f"your expression is {_shape(value, env)}, but {question.what} is {question.shape_words}", ""
    if is_scalar(value):
        return False, f"your expression is a number, but {question.what} is {question.shape_words}", ""
    value, expected = np.asarray(value), np.asarray(expected)  # both matrices from here on
    if value.shape == expected.shape:
        if close(value, expected):
            return True, "", ""
        if close(value, -expected):
            return False, f"your expression is the negative of the true {question.what} (check the sign)", ""
        return False, f"your expression differs from the true {question.what}: {difference(value, expected)}", ""
    if value.shape == expected.T.shape:
        if question.vector_orientation_free and 1 in expected.shape:
            if close(value.T, expected):
                return True, "", (f"your answer is a {'row' if value.shape[0] == 1 else 'column'} vector; "
                                  f"{question.what} is {question.shape_words} (values are right)")
            return False, f"your expression differs from the true {question.what}: {difference(value.T, expected)}", ""
        hint = " (it is the transpose of the right answer)" if close(value.T, expected) else ""
        return False, (f"your expression is {_shape(value, env)}, but {question.what} is "
                       f"{question.shape_words}{hint}; {env.convention}"), ""
    return False, f"your expression is {_shape(value, env)}, but {question.what} is {question.shape_words}", ""


def grade_formula(section: Section, ctx: WrittenContext, question: MathQuestion) -> Verdict:
    got = read_formula(section, question)
    if isinstance(got, Verdict):
        return got
    ok, lines = judge(got.formula, question, ctx.rng)
    read = f"{question.what} = {got.text}"
    verdict = "right at every random instance" if ok else "wrong"
    return Verdict(int(ok), 1, [f"read: {read}", f"{question.what}: {verdict}.", *lines], read=read)


# ---------------------------------------------------------------------------------------------
# The checkers

@written_check("grad_center")
def grad_center(section: Section, ctx: WrittenContext) -> Verdict:
    """1(b)(i): ∂J/∂v_c against central differences of the naive-softmax loss."""
    return grade_formula(section, ctx, CENTER)


@written_check("grad_outside_matrix")
def grad_outside_matrix(section: Section, ctx: WrittenContext) -> Verdict:
    """1(e): ∂J/∂U, as a matrix, or as the row [∂J/∂u_1 … ∂J/∂u_|V|] of its columns."""
    found = candidates(section.body)
    explicit = [c for c in found if c.kind in EXPLICIT]
    for cand in (explicit or found):
        layout = column_breakdown(cand.rhs)
        if layout == "columns":
            read = "∂J/∂U = [∂J/∂u_1, ∂J/∂u_2, …, ∂J/∂u_|V|]"
            return Verdict(1, 1, [f"read: {read}", "∂J/∂U written column by column, each column the "
                                  "gradient for one outside vector: right."], read=read)
        if layout == "rows":
            read = "∂J/∂U = the ∂J/∂u_w stacked as rows"
            return Verdict(0, 1, [f"read: {read}", "These gradients are stacked as rows, but "
                                  f"{_CONVENTION_W2V}, so ∂J/∂U (the shape of U) has them as its columns."],
                           read=read)
        if explicit:
            break
    return grade_formula(section, ctx, MATRIX)


_PARTIAL_U = (r"\\frac\s*\{\s*\\partial\s*J[^{}]*(?:\{[^{}]*\}[^{}]*)*\}\s*\{\s*\\partial\s*"
              r"(?:\\mathbf\s*|\\boldsymbol\s*|\\bm\s*|\\vec\s*)?\{?\s*u\s*\}?\s*_\s*"
              r"(?:\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|\w)\s*\}")
_DOTS = r"\\(?:dots|ldots|cdots|vdots|ddots)|\.\.\.|…"


def column_breakdown(rhs: str) -> str | None:
    """"columns" for ``[∂J/∂u_1 … ∂J/∂u_|V|]``, "rows" for the same stacked with ``\\\\``, else None."""
    text = re.sub(r"\\(?:left|right|big|Big)\s*", "", rhs)
    text = re.sub(r"\\begin\s*\{[pbvBV]?matrix\}|\\end\s*\{[pbvBV]?matrix\}", "", text)
    if not re.search(_PARTIAL_U, text):
        return None
    rest = re.sub(_PARTIAL_U, " ", text)
    rest = re.sub(_DOTS, " ", rest)
    rest = re.sub(r"\\(?:quad|qquad|,|;|:|!)|[\[\](),;&|\s]", " ", rest)
    stacked = "\\\\" in rest
    rest = rest.replace("\\\\", " ")
    if rest.strip():
        return None
    return "rows" if stacked else "columns"


# 1(d): two cases ------------------------------------------------------------------------------

_NEQ = re.compile(r"\\neq?(?![A-Za-z])|≠|!=|\\not\s*=|otherwise|other\s+words?|else|all\s+other|w\s*\\ne\b", re.I)
_EQ = re.compile(r"w\s*=\s*o|o\s*=\s*w|\\partial\s*(?:\\mathbf\s*|\\boldsymbol\s*|\\bm\s*)?\{?\s*u\s*\}?\s*_\s*\{?\s*o\b"
                 r"|true outside word", re.I)


def _case_of(cand: Candidate) -> str:
    """Which case of 1(d) a formula answers: "eq", "neq", "both" (a cases formula) or "unified"."""
    if re.search(r"\\begin\s*\{\s*[dr]?cases\s*\}", cand.rhs):
        return "both"
    rhs = cand.rhs.strip()
    trailing = cand.latex[cand.latex.rfind(rhs) + len(rhs):] if rhs and rhs in cand.latex else ""
    left = lhs(cand.latex)
    for context in (trailing, cand.before + " " + left):
        neq, eq = bool(_NEQ.search(context)), bool(_EQ.search(context))
        if neq != eq:
            return "neq" if neq else "eq"
    if re.search(r"_\s*\{?\s*o\b", left):
        return "eq"
    return "unified"


@written_check("grad_outside_cases")
def grad_outside_cases(section: Section, ctx: WrittenContext) -> Verdict:
    """1(d): ∂J/∂u_w for w = o and for w ≠ o (a cases formula or one formula for both also count)."""
    found = candidates(section.body)
    if not found:
        return missing(section, "no formula")
    marked = [c for c in found if c.kind in (MARKED, BOXED)]
    rest = sorted((c for c in found if c.kind in (DISPLAY, INLINE)), key=lambda c: c.start)
    ordered = marked + [c for c in rest if c.start not in {m.start for m in marked}]
    chosen: dict[str, tuple[Candidate, Formula]] = {}
    unified: list[tuple[Candidate, Formula]] = []
    problems: list[str] = []
    for cand in ordered:
        case = _case_of(cand)
        try:
            formula = parse_formula(cand.rhs)
        except FormulaError as exc:
            problems.append(f"could not read {quote(cand.rhs)}: {exc}")
            continue
        question = OUTSIDE_EQ if case in ("eq", "both", "unified") else OUTSIDE_NEQ
        problem = readable(formula, question)
        if problem:
            problems.append(f"read {quote(cand.rhs)}, but {problem}")
            continue
        if case == "both":
            chosen.setdefault("eq", (cand, formula))
            chosen.setdefault("neq", (cand, formula))
        elif case == "unified":
            unified.append((cand, formula))
        else:
            chosen.setdefault(case, (cand, formula))
    preferred = ([u for u in unified if u[0].kind in (MARKED, BOXED)]
                 or [u for u in unified if derivative_lhs(u[0])][-1:] or unified[-1:])
    fallback = preferred[0] if preferred else None
    passed = 0
    lines: list[str] = []
    reads: list[str] = []
    for case, question, title in (("eq", OUTSIDE_EQ, "w = o"), ("neq", OUTSIDE_NEQ, "w ≠ o")):
        pick = chosen.get(case) or fallback
        if pick is None:
            detail = f" ({problems[0]})" if problems else ""
            lines.append(f"case {title}: no formula for this case was found{detail}.")
            continue
        cand, formula = pick
        text = show(formula.tree, formula)
        reads.append(f"{title}: ∂J/∂u_w = {text}")
        ok, why = judge(formula, question, ctx.rng)
        passed += int(ok)
        lines.append(f"read ({title}): ∂J/∂u_w = {text}: {'right at every random instance' if ok else 'wrong'}.")
        lines.extend(f"  {w}" for w in why)
    status = "" if reads else UNREADABLE
    return Verdict(passed, 2, lines, read="; ".join(reads), status=status)


@written_check("relu_jacobian")
def relu_jacobian(section: Section, ctx: WrittenContext) -> Verdict:
    """3(e)(i): ∂h_i/∂x_j for h = ReLU(xW + b_1), at instances with z_i > 0 and z_i < 0."""
    return grade_formula(section, ctx, RELU)


@written_check("softmax_ce_grad")
def softmax_ce_grad(section: Section, ctx: WrittenContext) -> Verdict:
    """3(e)(ii): ∂CE(y, ŷ)/∂l_i with ŷ = softmax(l), at instances with i = c and i ≠ c."""
    return grade_formula(section, ctx, SOFTMAX_CE)


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


def _text_candidates(body: str, pattern: re.Pattern[str]) -> list[Candidate]:
    """Plain-text expressions (outside math) matching ``pattern``, e.g. ``2n`` in "takes 2n steps"."""
    masked = body
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
                         r"(?=\s*(?:$|[,;\n]|\.\s|\.$|\s(?:so|which|because|since|where)\b))", re.I | re.M)


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
    gamma_first = [c for c in found if c.kind in (DISPLAY, INLINE)
                   and re.search(r"\\gamma|γ", lhs(c.latex))]
    extra = gamma_first + _text_candidates(section.body, _GAMMA_TEXT)
    explicit = [c for c in found if c.kind in EXPLICIT]
    pool = explicit or (extra + [c for c in found if c not in gamma_first])
    got = _first_in(pool, {"p"})
    if isinstance(got, Verdict) or got is None:
        return got or missing(section, "no expression in p_drop")
    cand, formula = got
    points = list((np.arange(TRIALS) + ctx.rng.uniform(0.05, 0.95, size=TRIALS)) / TRIALS * 0.95)
    ok, why = _value_check(formula, "p", points, lambda p: 1.0 / (1.0 - p))
    read = "γ = " + re.sub(r"\bp\b", "p_drop", show(formula.tree, formula))
    lines = [f"read: {read}", "γ: right at every random p in (0, 0.95)." if ok else f"γ: wrong: {why}."]
    return Verdict(int(ok), 1, lines, read=read)


def _first_in(pool: list[Candidate], names: set[str]) -> tuple[Candidate, Formula] | Verdict | None:
    """The first candidate that is an expression in ``names``; a problem is reported only for an
    explicit answer (an "Answer:" line or a box), not for the formulas of a derivation."""
    problem = ""
    for cand in pool:
        try:
            formula = parse_formula(cand.rhs)
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
                     r"(?:\s*(?:[+\-*·×]|\\cdot|\\times)\s*(?:\d+\s*(?:\*|·|×|\\cdot|\\times)?\s*)?n?)*)(?![A-Za-z0-9_])")
_NEAR_AFTER = re.compile(r"^\s*\$?\s*(?:steps?|transitions?|moves?|actions?|operations?|total|in total)\b", re.I)
_NEAR_BEFORE = re.compile(r"(?:total|takes?|requires?|needs?|exactly|so|thus|therefore|hence|=)\W*$", re.I)


@written_check("step_count")
def step_count(section: Section, ctx: WrittenContext) -> Verdict:
    """3(b): the number of transitions for an n-word sentence, as an expression in n."""
    if section.empty:
        return missing(section)
    found = candidates(section.body)
    explicit = [c for c in found if c.kind in EXPLICIT]
    if explicit:
        pool = explicit
    else:
        implicit = sorted((c for c in found if c.kind in (DISPLAY, INLINE)), key=lambda c: c.start)
        implicit += _text_candidates(section.body, _N_TEXT)

        def score(c: Candidate) -> tuple[int, int]:
            after = section.body[c.end:c.end + 30] if c.end >= 0 else ""
            near = bool(_NEAR_AFTER.match(after) or _NEAR_BEFORE.search(c.before[-30:]))
            return (0 if near else 1, c.start)
        pool = sorted(implicit, key=score)
    got = _first_in(pool, {"n"})
    if got is None:
        return Verdict(0, 1, ["No expression in n found for 3(b): give the number of steps as an "
                              "expression in n (e.g. on a line 'Answer: ...')."], status=UNREADABLE)
    if isinstance(got, Verdict):
        got.feedback = ["No expression in n found for 3(b). " + " ".join(got.feedback)]
        return got
    cand, formula = got
    points = [float(n) for n in sorted({3, 8, *map(int, ctx.rng.integers(4, 60, size=TRIALS - 2))})]
    ok, why = _value_check(formula, "n", points, lambda n: 2.0 * n)
    read = f"steps = {show(formula.tree, formula)}"
    lines = [f"read: {read}", "Step count: right for every n tried." if ok else f"Step count: wrong: {why}.",
             "The explanation is graded by a TA."]
    return Verdict(int(ok), 1, lines, read=read)
