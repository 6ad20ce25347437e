"""A formula the reader accepts but cannot evaluate is the student's reading problem, never an
internal grader error (issue 34: ``\\max(U, y)`` raised a shape error in grader/reading/evaluate.py
and the student was told "Internal grader error ... not your fault").

The fuzz builds formulas from every construct the reader accepts (functions with wrong arities
and arguments of every shape, ``\\max``, ``\\min``, ``\\det``, ``\\operatorname``, matrices,
sets, intervals, nested functions, sums, cases, indicators, transposes and inverses) with a fixed
seed; each must either parse-fail, evaluate, or raise :class:`EvalError` (a message for the
student). Then a sample goes through the written checkers end to end: no reply is an internal error.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from a2.written.process import INTERNAL, InProcess
from grader.reading.evaluate import Env, EvalError, evaluate
from grader.reading.mathparse import FormulaError, clear_parse_cache, parse_formula

D, V = 4, 9
RNG = np.random.default_rng(34)
U = RNG.normal(size=(D, V))
ENV = dict(arrays={"U": U, "v_c": RNG.normal(size=(D, 1)), "yhat": RNG.dirichlet(np.ones(V)).reshape(-1, 1),
                   "y": np.eye(V)[:, [2]], "u_o": U[:, [2]], "p": 0.3, "n": 7.0, "x": 0.4, "W": RNG.normal(size=(3, D))},
           indices={"o": 2, "w": 5}, families={"u": lambda k: U[:, [k % V]]}, sum_range=V,
           dims={D: "d", V: "|V|"}, convention="U's columns are the outside vectors")

ATOMS = ["U", "y", r"\hat{y}", r"\hat y_o", "v_c", r"\mathbf{u}_o", "u_w", "u_{12}", "U_{1 2}", "U_{x}", "p", "n", "x",
         "o", "w", "1", "0", "2.5", "W", r"\mathbf{W}", r"\pi", "e", r"\infty", r"\theta", "I", r"\Omega"]
UNARY = [r"\exp({})", r"\log({})", r"\ln {}", r"\sigma({})", r"\tanh({})", r"\sqrt{{{}}}", r"\left|{}\right|",
         r"\det({})", r"\det {}", r"\operatorname{{softmax}}({})", r"\operatorname{{diag}}({})", r"\operatorname{{ReLU}}({})",
         r"\mathrm{{softmax}}({})", r"\text{{softmax}}({})", r"\max({})", r"\min({})", r"\max {}", r"\max_{{w}} {}",
         r"\sin({})", r"\operatorname{{tr}}({})", r"\lVert {} \rVert", r"\|{}\|_2", r"{}^T", r"{}^\top", r"{}^{{-1}}",
         r"{}^{{2}}", r"({})_o", r"({})_{{w o}}", r"\frac{{1}}{{{}}}", r"\nabla {}", r"\frac{{\partial {}}}{{\partial v_c}}",
         r"\sum_{{w}} {}", r"\sum_{{w=1}}^{{|V|}} {}", r"\sum_{{w \in V}} \sum_{{o}} \sum_{{x}} {}", r"\overline{{{}}}",
         r"\vec{{{}}}", r"\bar {}", r"{}!", r"\lfloor {} \rfloor", r"\mathbb{{1}}[{} = o]", r"\delta_{{w o}} {}"]
NARY = [r"\max({}, {})", r"\min({}, {})", r"\max\{{{}, {}\}}", r"\max({}, {}, {})", r"\min({}, {}, {})",
        r"\operatorname{{softmax}}({}, {})", r"\exp({}, {})", r"\log_{{{}}} {}", r"\frac{{{}}}{{{}}}",
        r"{} \cdot {}", r"{} \odot {}", r"{} \circ {}", r"{} \otimes {}", r"{} \times {}", r"{} {}", r"{} - {}", r"{} + {}",
        r"{}^{{{}}}", r"\left({} \right) \left({}\right)", r"[{}, {}]", r"({}, {}]", r"[{}, {})", r"\{{{}, {}\}}",
        r"\{{{} \mid {} > 0\}}", r"\langle {}, {} \rangle", r"\begin{{bmatrix}} {} & {} \end{{bmatrix}}",
        r"\begin{{pmatrix}} {} \\ {} \end{{pmatrix}}", r"\begin{{bmatrix}} {} & 1 \\ 0 & {} \end{{bmatrix}}",
        r"\begin{{cases}} {} & w = o \\ {} & \text{{otherwise}} \end{{cases}}", r"\binom{{{}}}{{{}}}", r"{} \mod {}",
        r"{} = {}", r"{} \leq {}", r"{} \in {}", r"\sqrt[{}]{{{}}}", r"{} \, {}^T", r"\det\begin{{vmatrix}} {} & {} \end{{vmatrix}}"]
FIXED = [r"\max(U, y)", r"\min(U, \hat{y})", r"\max(v_c, U^T)", r"\max()", r"\min{}", r"\det(U)", r"\det(v_c)",
         r"\operatorname{softmax}(U)", r"\operatorname{softmax}(U^T v_c)", r"\max(U^T v_c, y, 0)", r"\max(\max(U, y), v_c)",
         r"\exp(\log(U)) - y", r"\begin{bmatrix} U & y \end{bmatrix}", r"\{U, y\}", r"[U, y]", r"(U, y]", r"U^{U}",
         r"(\hat y - y)_{U}", r"\sum_{w} U", r"\sum_{w} u_w \max(y, U)", r"\max(u_w, u_o) + \min(v_c, U)",
         r"\log(\max(U^\top v_c, y))", r"\sigma(\max(U, v_c))", r"\max(1, 2, 3, U)", r"\max(U)", r"\max(y)", r"|U - y|",
         r"\mathbb{1}[U = y]", r"\begin{cases} U & U = y \\ y & \text{otherwise} \end{cases}", r"\delta_{U y}",
         r"U_{o w x}", r"u_{o w}", r"\hat{y}_{o w}", r"(U)_{1}", r"(v_c)_{o}", r"\frac{U}{y}", r"\frac{y}{v_c^T}", r"y^{v_c}",
         r"10^{10^{10}}", r"(-1)^{0.5}", r"0^{-1}", r"\log(0) - \log(0)", r"\max(\infty, -\infty)", r"\tanh(U)^{-1}"]


def fuzz_formulas(count: int, seed: int = 34) -> list[str]:
    """``count`` formulas built at random from the constructs above (nested up to three deep), after the fixed ones."""
    rng = random.Random(seed)

    def build(depth: int) -> str:
        roll = rng.random()
        if depth == 0 or roll < 0.25:
            return rng.choice(ATOMS)
        if roll < 0.6:
            return rng.choice(UNARY).format(build(depth - 1))
        template = rng.choice(NARY)
        return template.format(*(build(depth - 1) for _ in range(template.count("{}"))))

    return FIXED + [build(3) for _ in range(count)]


def test_the_evaluator_gives_a_value_or_a_message_for_every_formula_it_is_given():
    """No exception but EvalError out of evaluate(), whatever the formula (parsing may refuse it)."""
    clear_parse_cache()
    internal: list[tuple[str, str]] = []
    evaluated = refused = 0
    for latex in fuzz_formulas(300):
        try:
            formula = parse_formula(latex)
        except FormulaError:
            continue
        env = Env(**{**ENV, "indices": dict(ENV["indices"])})
        try:
            evaluate(formula, env)
            evaluated += 1
        except EvalError as exc:
            assert str(exc).strip()
            refused += 1
        except Exception as exc:  # noqa: BLE001 - what the fuzz looks for
            internal.append((latex, f"{type(exc).__name__}: {exc}"[:200]))
    assert internal == [], f"{len(internal)} formulas raised out of the evaluator, e.g. {internal[:5]}"
    assert evaluated > 20 and refused > 50, (evaluated, refused)


QUESTIONS = {"1b_i": "1(b)(i)", "1d": "1(d)", "1e": "1(e)", "3e_i": "3(e)(i)", "3e_ii": "3(e)(ii)", "2b_i": "2(b)(i)"}
CHECKERS = {"1b_i": "grad_center", "1d": "grad_outside_cases", "1e": "grad_outside_matrix", "3e_i": "relu_jacobian",
            "3e_ii": "softmax_ce_grad", "2b_i": "dropout_gamma"}


@pytest.mark.parametrize("question", sorted(QUESTIONS))
def test_no_written_checker_answers_internal_error_to_a_fuzzed_formula(question):
    """Each formula as the final answer of a question, through locate and the question's checker
    (the reader's own requests): no reply is an internal error."""
    reader = InProcess()
    internal: list[tuple[str, str]] = []
    for latex in fuzz_formulas(60, seed=zlib.crc32(question.encode()))[::2]:
        text = f"### {QUESTIONS[question]}\n\n**Answer:** $${latex}$$\n"
        located = reader.call("locate", {"files": [["answers.md", text]], "questions": [question]})
        assert located.ok, located.error
        section = located.value["sections"].get(question)
        if section is None:
            continue
        reply = reader.call("check", {"checker": CHECKERS[question], "question": question, "section": section, "seed": 3})
        if not reply.ok and reply.error is not None and reply.error.type == INTERNAL:
            internal.append((latex, reply.error.message))
    assert internal == [], f"{len(internal)} internal errors, e.g. {internal[:5]}"
