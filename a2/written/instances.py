"""Random instances of the formula questions: sizes, vectors and indices, and the true answer.

Each instance is drawn from the run's random generator with the assignment's shapes (U is d×|V|,
vectors are columns, x is a row in 3(e)(i)); the true value is a central difference of the real
loss (:mod:`grader.reading.numeric`), never a formula of ours. Instances are chosen to cover each
case: w = o and w ≠ o, z_i > 0 and z_i < 0, i = c and i ≠ c.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from grader.reading.evaluate import Env, is_scalar
from grader.reading.notation import PlainNames
from grader.reading.numeric import central_difference_batch, close, difference, softmax


@dataclass
class Instance:
    env: Env
    expected: float | np.ndarray
    describe: str
    case: str = ""        # the question's case this instance is in ("i = c"), where it has cases


@dataclass
class MathQuestion:
    """One formula to judge: how to draw instances and how to talk about the result."""

    what: str                                     # "∂J/∂v_c"
    make: Callable[[np.random.Generator, int], Instance]
    shape_words: str                              # "a d-vector, like v_c"
    vector_orientation_free: bool = True          # a row where a column is expected is tolerated
    full_gradient: Callable[[Instance], np.ndarray] | None = None   # a vector answer to a per-entry question
    trials: int = 4                               # random instances an answer must be right at


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


def _losses(scores: np.ndarray, o: int) -> np.ndarray:
    """The naive-softmax loss -log softmax(s)_o of each row of ``scores`` (n×|V|)."""
    m = scores.max(axis=1, keepdims=True)
    return -(scores[:, o] - m[:, 0] - np.log(np.exp(scores - m).sum(axis=1)))


def _w2v_env(d: int, vocab: int, U: np.ndarray, v: np.ndarray, o: int, w: int | None = None) -> Env:
    yhat = softmax((U.T @ v).reshape(-1)).reshape(-1, 1)
    y = np.zeros((vocab, 1))
    y[o] = 1.0
    arrays = {"U": U, "v_c": v, "y": y, "yhat": yhat, "u_o": U[:, o:o + 1]}
    indices = {"o": o}
    if w is not None:
        arrays["u_w"] = U[:, w:w + 1]
        indices["w"] = w
    return Env(arrays, indices, families={"u": lambda k: U[:, k:k + 1], "varsigma": lambda k: np.eye(vocab)[:, k:k + 1]},
               sum_range=vocab,
               dims={d: "d", vocab: "|V|"}, convention=_CONVENTION_W2V, allowed=_ALLOWED_W2V)


def make_center(rng: np.random.Generator, k: int) -> Instance:
    d, vocab, U, v, o = _w2v_point(rng)
    expected = central_difference_batch(lambda vs: _losses((U.T @ vs)[:, :, 0], o), v)
    return Instance(_w2v_env(d, vocab, U, v, o), expected, f"d = {d}, |V| = {vocab}, o = {o + 1}")


def make_outside(case_equal: bool) -> Callable[[np.random.Generator, int], Instance]:
    def make(rng: np.random.Generator, k: int) -> Instance:
        d, vocab, U, v, o = _w2v_point(rng)
        w = o if case_equal else int((o + rng.integers(1, vocab)) % vocab)

        def loss_of_column(cols: np.ndarray) -> np.ndarray:     # U with column w replaced by each of cols
            scores = np.repeat((U.T @ v).T, len(cols), axis=0)
            scores[:, w] = (cols[:, :, 0] @ v)[:, 0]
            return _losses(scores, o)

        expected = central_difference_batch(loss_of_column, U[:, w:w + 1])
        return Instance(_w2v_env(d, vocab, U, v, o, w), expected,
                        f"d = {d}, |V| = {vocab}, o = {o + 1}, w = {w + 1}")
    return make


def make_matrix(rng: np.random.Generator, k: int) -> Instance:
    d, vocab, U, v, o = _w2v_point(rng)
    expected = central_difference_batch(lambda Us: _losses((Us.transpose(0, 2, 1) @ v)[:, :, 0], o), U)
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

    def h_i(xs: np.ndarray) -> np.ndarray:
        return np.maximum(xs @ W + b, 0.0)[:, 0, i]

    expected = float(central_difference_batch(h_i, x)[0, j])
    # a sum runs over x's entries: z_i written out as Σ_k x_k W_ki + b_i is z_i
    env = Env({"x": x, "W": W, "b_1": b, "b": b, "z": z, "h": h}, {"i": i, "j": j}, sum_range=n_in,
              dims={n_in: "D_x", hidden: "D_h"}, implied={(1, hidden): "i"},
              convention="here x is a row vector (1×D_x), W is D_x×D_h and h = ReLU(xW + b_1)",
              allowed="x_j, the entries of W (W_ab: row a, column b), b_1, z_i = (xW + b_1)_i, h_i, and indicators "
                      "such as 1{z_i > 0}")
    case = f"z_i {'>' if sign > 0 else '<'} 0"
    return Instance(env, expected, f"D_x = {n_in}, D_h = {hidden}, i = {i + 1}, j = {j + 1}, {case}", case)


def make_softmax_ce(rng: np.random.Generator, k: int) -> Instance:
    logits = rng.normal(size=(3, 1)) * 1.5
    c = int(rng.integers(3))
    i = c if k % 2 == 0 else int((c + rng.integers(1, 3)) % 3)
    y = np.zeros((3, 1))
    y[c] = 1.0

    grad = central_difference_batch(lambda ls: _losses(ls[:, :, 0], c), logits)
    env = Env({"l": logits, "yhat": softmax(logits.reshape(-1)).reshape(-1, 1), "y": y, "theta": logits},
              {"i": i, "c": c}, sum_range=3, dims={3: "3"},
              convention="l, y and ŷ are 3-vectors and ∂CE/∂l_i is a number",
              allowed="ŷ_i, y_i, ŷ_c, y_c, l_i, and indicators such as 1{i = c} or δ_ic")
    inst = Instance(env, float(grad[i, 0]), f"c = {c + 1}, i = {i + 1}", "i = c" if i == c else "i ≠ c")
    inst.env.arrays["__full_gradient__"] = grad
    return inst


PROBE_SEED = 20240
"""Seed of the instances at which a formula is looked at apart from judging (whether it can be
evaluated at all, what the catalogue's predicates see)."""
_PROBES: dict[int, tuple[MathQuestion, list[Instance]]] = {}


def probe_instances(question: MathQuestion) -> list[Instance]:
    """The fixed instances (seeds PROBE_SEED + k) at which a question's formulas are looked at
    apart from judging: the same for every formula, so drawn once a process (a few dozen kept)."""
    kept = _PROBES.get(id(question))
    if kept is None or kept[0] is not question:
        if len(_PROBES) >= 64:
            _PROBES.clear()
        kept = _PROBES[id(question)] = (question, [question.make(np.random.default_rng(PROBE_SEED + k), k)
                                                   for k in range(question.trials)])
    return kept[1]



CENTER = MathQuestion("∂J/∂v_c", make_center, "a d-vector, like v_c")
OUTSIDE_EQ = MathQuestion("∂J/∂u_w (w = o)", make_outside(True), "a d-vector, like u_w")
OUTSIDE_NEQ = MathQuestion("∂J/∂u_w (w ≠ o)", make_outside(False), "a d-vector, like u_w")
MATRIX = MathQuestion("∂J/∂U", make_matrix, "d×|V|, the shape of U", vector_orientation_free=False)
RELU = MathQuestion("∂h_i/∂x_j", make_relu, "a number", trials=16)
"""16 instances: a condition on another entry than z_i ((xW)_j + b_i, Σ_k x_k W_kj + b_i) has z_i's sign
at 4 random instances one time in eight, at 16 about one in three thousand."""
SOFTMAX_CE = MathQuestion("∂CE/∂l_i", make_softmax_ce, "a number",
                          full_gradient=lambda inst: inst.env.arrays["__full_gradient__"])


# ---------------------------------------------------------------------------------------------
# Comparing an answer's value with the true one

def _shape(value: np.ndarray | float, env: Env) -> str:
    if is_scalar(value):
        return "a number"
    rows, cols = np.shape(value)
    return f"{env.dims.get(rows, rows)}×{env.dims.get(cols, cols)}"


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


# ---------------------------------------------------------------------------------------------
# The questions' names as plain text spells them

SPELLINGS: tuple[tuple[str, str], ...] = (("pdrop", "p_drop"), ("pdropout", "p_drop"), ("yhat", "yhat"))
"""This assignment's own plain-text spellings (lower case) -> the ASCII the notation tables read."""


_NAMES: dict[int, PlainNames] = {}


def plain_names(question: MathQuestion) -> PlainNames:
    """``question``'s names (its arrays, families and indices at an instance) as plain text may spell them."""
    if id(question) not in _NAMES:
        env = question.make(np.random.default_rng(0), 0).env
        names = tuple(sorted({n for n in (*env.arrays, *env.families) if not n.startswith("__")}))
        _NAMES[id(question)] = PlainNames(names, "".join(sorted(env.indices)), SPELLINGS)
    return _NAMES[id(question)]


def one_variable(var: str) -> PlainNames:
    """The names of an answer in one variable (γ(p_drop): ``p``; 3(b)'s steps: ``n``)."""
    return PlainNames((var,), "", SPELLINGS)


# ---------------------------------------------------------------------------------------------
# Conventions a writeup may state: the word2vec answers read under them

@dataclass(frozen=True)
class Convention:
    """Another way to lay out word2vec's arrays: U's rows are the outside vectors (U is |V|×d),
    and/or every vector is a row."""

    u_rows: bool
    vector_rows: bool

    @property
    def statement(self) -> str:
        return ("under the convention your writeup states ("
                + ", ".join(s for s, on in (("U's rows are the outside vectors, U is |V|×d", self.u_rows),
                                            ("vectors are rows", self.vector_rows)) if on) + ")")


CONVENTIONS = (Convention(True, False), Convention(True, True), Convention(False, True))
"""The layouts tried when a writeup states one other than the assignment's (columns of U, column vectors)."""
ROW_WORDS = ("row vector", "row-vector", "rows of u", "u's rows", "each row of u", "rows of the matrix u")
"""Words that name a row layout (lowercase); they count only in a sentence that states the
writeup's own convention (:func:`stated_convention`)."""
_U_SHAPE = re.compile(r"(?<![A-Za-z])(?:\\(?:mathbf|bm|boldsymbol)\s*\{\s*U\s*\}|\\bU|U)\$?\s*(?:\\in|∈|is|:|has\s+shape)"
                      r"\s*[^\n]{0,24}?\|\s*V\s*\|\s*(?:\\times|×|x|\*|,)\s*d(?![A-Za-z])")
"""U's shape stated as |V|×d (``U \\in \\mathbb{R}^{|V| \\times d}``, ``U is |V| x d``)."""
_DECLARES = re.compile(
    r"\b(?:we|i|let)\b[^.\n]{0,40}?\b(?:write|treat|use|take|assum|consider|denot|represent|follow|adopt|work|keep|lay)\w*"
    r"|\bconvention\b|\bassum(?:e|ing)\b|\b(?:all|every|each)\s+(?:the\s+)?(?:word\s+)?vectors?\b"
    r"|\bvectors\s+(?:are|as)\b|\b(?:using|with)\s+row|\bare\s+(?:the\s+)?(?:outside|context|word)\s+vectors", re.I)
"""A sentence that states how the writeup lays its arrays out ("we write every vector as a row
vector", "the rows of U are the outside vectors", "row-vector convention")."""
ABOUT_AN_ANSWER = ("gradient", "derivative", "∂", "\\partial", "\\frac", "result", "answer", "output")
"""Words of a sentence about an answer ("the gradient is a row vector"), which states no convention."""


def stated_convention(text: str) -> bool:
    """Whether ``text`` states a layout other than the assignment's: U's shape |V|×d, or a sentence
    that declares row vectors (or U's rows as the word vectors) as the writeup's own convention.
    A row vector merely mentioned (the handout's "x is a row vector", "the gradient is a row
    vector") is no convention."""
    if _U_SHAPE.search(text):
        return True
    for sentence in text.replace("\n\n", ". ").replace("? ", ". ").replace("! ", ". ").split(". "):
        low = sentence.lower()
        if any(words in low for words in ROW_WORDS) and _DECLARES.search(sentence) \
                and not any(words in low for words in ABOUT_AN_ANSWER):
            return True
    return False


_ROW_HINT = re.compile(r"\brows?\b[^.\n]{0,60}?(?<![A-Za-z])(?:U|u_\{?[wo]|outside|vectors?)(?![A-Za-z])"
                       r"|(?<![A-Za-z])(?:U|u_\{?[wo]|outside\w*|vectors)(?![A-Za-z])[^.\n]{0,60}?\brows\b"
                       r"|\|\s*V\s*\|\s*(?:\\times|×|x|\*)\s*d(?![A-Za-z])", re.I)
"""Words that may state a row layout of word2vec's arrays without the form :func:`stated_convention`
reads ("U here is a |V| × d matrix whose rows are the u_w, and all vectors are rows")."""


def row_layout_hint(text: str) -> str:
    """The sentence of ``text`` that may state a row layout, when no convention is stated outright
    (an answer right only under it is then flagged, never credited: which arrays it lays out is
    not read)."""
    if stated_convention(text):
        return ""
    for sentence in text.replace("\n\n", ". ").split(". "):
        if _ROW_HINT.search(sentence) and not any(w in sentence.lower() for w in ABOUT_AN_ANSWER):
            return " ".join(sentence.split())[:160]
    return ""


def _laid(family: Callable, lay: Callable) -> Callable:
    return lambda *index: lay(family(*index), False)


def under(question: MathQuestion, convention: Convention) -> MathQuestion:
    """``question`` with its arrays laid out by ``convention``: a matrix answer is expected in U's
    layout there, a vector in either orientation."""
    def lay(value, is_u: bool):
        if not isinstance(value, np.ndarray) or value.ndim != 2:
            return value
        return value.T if (convention.u_rows if is_u else convention.vector_rows and 1 in value.shape) else value

    def make(rng: np.random.Generator, k: int) -> Instance:
        inst = question.make(rng, k)
        env = inst.env
        arrays = {name: lay(value, name == "U") for name, value in env.arrays.items()}
        families = {name: _laid(fam, lay) for name, fam in env.families.items()}
        expected = inst.expected
        if isinstance(expected, np.ndarray) and expected.ndim == 2 and 1 not in expected.shape and convention.u_rows:
            expected = expected.T
        return Instance(Env(arrays, env.indices, families, env.sum_range, env.dims, convention.statement, env.allowed),
                        expected, inst.describe, inst.case)
    return replace(question, make=make)


@dataclass(frozen=True)
class ColumnLayer:
    """3(e)(i)'s layer written the other way round, as the writeup declares: h = ReLU(Wx + b_1)
    with W D_h×D_x (the transpose of the handout's) and x, b_1, z, h columns."""

    statement: str = ("under the convention your writeup states (h = ReLU(Wx + b_1): W is D_h×D_x, "
                      "the transpose of the handout's, and x is a column)")


COLUMN_LAYER = ColumnLayer()
_DECLARES_WX = re.compile(r"ReLU\s*\}?\s*(?:\\left|\\[bB]ig)?\s*\(\s*(?:\\(?:mathbf|bm|boldsymbol)\s*\{\s*W\s*\}|W)"
                          r"\s*(?:\\(?:mathbf|bm|boldsymbol)\s*\{\s*x\s*\}|x)(?![A-Za-z])", re.I)
"""A declaration of the layer as ReLU(Wx ...) (``h = \\mathrm{ReLU}(Wx + b_1)``), not the handout's xW."""


def declares_column_layer(text: str) -> bool:
    """Whether ``text`` declares 3(e)(i)'s layer as h = ReLU(Wx + b_1) (W is D_h×D_x)."""
    return bool(_DECLARES_WX.search(text))


def column_layer(question: MathQuestion) -> MathQuestion:
    """``question`` (3(e)(i)) with its layer laid out as h = ReLU(Wx + b_1): W, x, b_1, z, h transposed."""
    def make(rng: np.random.Generator, k: int) -> Instance:
        inst = question.make(rng, k)
        env = inst.env
        arrays = {name: value.T if isinstance(value, np.ndarray) and value.ndim == 2 else value
                  for name, value in env.arrays.items()}
        implied = {(shape[1], shape[0]): index for shape, index in env.implied.items()}
        return Instance(Env(arrays, env.indices, env.families, env.sum_range, env.dims, COLUMN_LAYER.statement,
                            env.allowed, implied), inst.expected, inst.describe, inst.case)
    return replace(question, make=make)
