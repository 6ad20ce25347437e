# ruff: noqa: E501 - the tables of one-line code edits read best unwrapped
"""The declared bug shapes: each entry names a function with exactly its bug, and correct code
(the reference and tests/submissions/alternative/) never matches any entry over 20 seeds.

Functions are the reference's with one edit (as a student's bug would be), imported here and
called on the inputs a check draws; the case is built as the check builds it.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import warnings
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np
import pytest
from conftest import REFERENCE

from a2 import solution_math
from a2.bug_shapes import BugShape, all_matches, check_ids_unique, diagnose
from a2.checks import partial_parse as tr_check
from a2.checks import sgd as sgd_check
from a2.checks import skipgram as skipgram_check
from a2.checks import word2vec as w2v_check
from a2.checks.helpers import word2vec_shapes as shapes
from a2.checks.minibatch import RAISED
from a2.untrusted.probes_word2vec import _scripted_loss_function

ALTERNATIVE = Path(__file__).parent / "submissions" / "alternative"
SEEDS = range(20)
_counter = [0]


def _load(path: Path, name: str) -> ModuleType:
    """Import one student file under a unique name, with the reference's utils importable."""
    _counter[0] += 1
    sys.path.insert(0, str(REFERENCE))
    try:
        spec = importlib.util.spec_from_file_location(f"_cat_{name}_{_counter[0]}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        with warnings.catch_warnings():  # the alternative compares transitions with `is`, as real files do
            warnings.simplefilter("ignore", SyntaxWarning)
            spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REFERENCE))
    return module


def _variant(tmp_path: Path, file: str, replacements: list[tuple[str, str]]) -> ModuleType:
    text = (REFERENCE / file).read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    folder = tmp_path / f"v{_counter[0]}"
    folder.mkdir()
    (folder / file).write_text(text)
    return _load(folder / file, file[:-3])


@pytest.fixture(scope="module")
def ref_modules() -> dict[str, ModuleType]:
    return {f: _load(REFERENCE / f"{f}.py", f) for f in ("word2vec", "sgd", "parser_transitions")}


@pytest.fixture(scope="module")
def alt_modules() -> dict[str, ModuleType]:
    return {f: _load(ALTERNATIVE / f"{f}.py", f"alt_{f}") for f in ("word2vec", "sgd", "parser_transitions")}


def test_ids_unique_and_credit_declared():
    catalogues: list[tuple[BugShape[Any], ...]] = [
        shapes.SIGMOID, shapes.SKIPGRAM, *shapes.LOSS_SHAPES.values(), sgd_check.SGD_UPDATE,
        sgd_check.ANNEAL, tr_check.PARSE_STEP, RAISED]
    for catalogue in catalogues:
        check_ids_unique(catalogue)
    with pytest.raises(ValueError):
        BugShape("x", lambda case: True, "m", credit=2.0)


# ---------------------------------------------------------------------------------------------
# word2vec: loss functions
# ---------------------------------------------------------------------------------------------

def _loss_case(module: ModuleType, function: str, rng: np.random.Generator, ref: ModuleType,
               *, duplicates: bool = False) -> shapes.LossCase:
    if function == w2v_check.NAIVE:
        inst = w2v_check._instance(rng)
        draws, k = None, None
    else:
        k = int(rng.integers(6, 12)) if duplicates else int(rng.integers(2, 6))
        inst = w2v_check._instance(rng, v_range=(3, 5) if duplicates else (k + 2, 14))
        draws = w2v_check._draws(rng, inst["outside"].shape[0], inst["outside_idx"], k, duplicates=duplicates)

    def run(mod: ModuleType) -> tuple:
        fn = getattr(mod, function)
        ds = w2v_check._Replay(draws or [])
        args = (inst["center"].copy(), inst["outside_idx"], inst["outside"].copy(), ds)
        return fn(*args) if k is None else fn(*args, K=k)

    expected = run(ref)
    loss, gc, go = run(module)
    return w2v_check._loss_case(function, inst, draws, k, expected,
                                {"loss": loss, "grad_center": gc, "grad_outside": go})


NEG, NAIVE = w2v_check.NEG, w2v_check.NAIVE
LOSS_BUGS: dict[str, tuple[str, list[tuple[str, str]], bool]] = {
    "naive_loss_no_log": (NAIVE, [("loss = -np.log(y_hat[outsideWordIdx])", "loss = -y_hat[outsideWordIdx]")], False),
    "naive_loss_no_normalizer": (NAIVE, [("loss = -np.log(y_hat[outsideWordIdx])", "loss = -scores[outsideWordIdx]")], False),
    "naive_gc_missing_y": (NAIVE, [("gradCenterVec = outsideVectors.T @ delta", "gradCenterVec = outsideVectors.T @ y_hat")], False),
    "naive_go_missing_y": (NAIVE, [("gradOutsideVecs = np.outer(delta, centerWordVec)", "gradOutsideVecs = np.outer(y_hat, centerWordVec)")], False),
    "neg_loss_no_log": (NEG, [("loss = -np.log(s_o) - np.sum(np.log(s_neg))", "loss = -s_o - np.sum(s_neg)")], False),
    "neg_loss_sign_outside": (NEG, [("loss = -np.log(s_o)", "loss = -np.log(1 - s_o)")], False),
    "neg_loss_sign_negatives": (NEG, [("- np.sum(np.log(s_neg))", "- np.sum(np.log(1 - s_neg))")], False),
    "neg_loss_sign_both": (NEG, [("loss = -np.log(s_o) - np.sum(np.log(s_neg))", "loss = -np.log(1 - s_o) - np.sum(np.log(1 - s_neg))")], False),
    "neg_loss_negatives_subtracted": (NEG, [("- np.sum(np.log(s_neg))", "+ np.sum(np.log(s_neg))")], False),
    "neg_loss_distinct_once": (NEG, [("- np.sum(np.log(s_neg))", "- np.sum(np.log(sigmoid(-(outsideVectors[sorted(set(negSampleWordIndices))] @ centerWordVec))))")], True),
    "neg_gc_distinct_once": (NEG, [("(1.0 - s_neg) @ u_neg", "(1.0 - sigmoid(-(outsideVectors[sorted(set(negSampleWordIndices))] @ centerWordVec))) @ outsideVectors[sorted(set(negSampleWordIndices))]")], True),
    "neg_go_repeats_lost": (NEG, [("np.add.at(gradOutsideVecs, negSampleWordIndices, np.outer(1.0 - s_neg, centerWordVec))", "gradOutsideVecs[negSampleWordIndices] += np.outer(1.0 - s_neg, centerWordVec)")], True),
    "neg_gc_o_missing_minus_one": (NEG, [("gradCenterVec = (s_o - 1.0) * u_o", "gradCenterVec = s_o * u_o")], False),
    "neg_gc_o_sign": (NEG, [("gradCenterVec = (s_o - 1.0) * u_o", "gradCenterVec = (1.0 - s_o) * u_o")], False),
    "neg_gc_neg_sigma": (NEG, [("+ (1.0 - s_neg) @ u_neg", "+ s_neg @ u_neg")], False),
    "neg_gc_neg_sign": (NEG, [("+ (1.0 - s_neg) @ u_neg", "- (1.0 - s_neg) @ u_neg")], False),
    "neg_gc_neg_missing": (NEG, [("gradCenterVec = (s_o - 1.0) * u_o + (1.0 - s_neg) @ u_neg", "gradCenterVec = (s_o - 1.0) * u_o")], False),
    "neg_gc_o_missing": (NEG, [("gradCenterVec = (s_o - 1.0) * u_o + ", "gradCenterVec = ")], False),
    "neg_go_o_missing_minus_one": (NEG, [("gradOutsideVecs[outsideWordIdx] += (s_o - 1.0) * centerWordVec", "gradOutsideVecs[outsideWordIdx] += s_o * centerWordVec")], False),
    "neg_go_o_sign": (NEG, [("gradOutsideVecs[outsideWordIdx] += (s_o - 1.0) * centerWordVec", "gradOutsideVecs[outsideWordIdx] += (1.0 - s_o) * centerWordVec")], False),
    "neg_go_neg_sigma": (NEG, [("np.outer(1.0 - s_neg, centerWordVec))", "np.outer(s_neg, centerWordVec))")], False),
    "neg_go_neg_sign": (NEG, [("np.outer(1.0 - s_neg, centerWordVec))", "np.outer(s_neg - 1.0, centerWordVec))")], False),
    "neg_go_neg_missing": (NEG, [("    np.add.at(gradOutsideVecs, negSampleWordIndices, np.outer(1.0 - s_neg, centerWordVec))\n", "")], False),
    "neg_go_o_missing": (NEG, [("    gradOutsideVecs[outsideWordIdx] += (s_o - 1.0) * centerWordVec\n", "")], False),
}


def test_every_loss_shape_has_a_bug():
    declared = {s.id for catalogue in shapes.LOSS_SHAPES.values() for s in catalogue}
    assert declared == set(LOSS_BUGS)


@pytest.mark.parametrize("shape_id", sorted(LOSS_BUGS))
def test_loss_shape_names_its_bug(shape_id: str, tmp_path: Path, ref_modules):
    function, replacements, duplicates = LOSS_BUGS[shape_id]
    module = _variant(tmp_path, "word2vec.py", replacements)
    catalogue = shapes.LOSS_SHAPES[function]
    hits = 0
    for seed in range(5):
        case = _loss_case(module, function, np.random.default_rng(seed), ref_modules["word2vec"],
                          duplicates=duplicates)
        hits += shape_id in {s.id for s in all_matches(catalogue, case)}
    assert hits >= 4, shape_id
    message = next(s.message for s in catalogue if s.id == shape_id)
    assert "def " not in message and "return " not in message


def test_sigmoid_shapes(ref_modules):
    for shape_id, bug in (("sigmoid_negated", lambda x: 1 / (1 + np.exp(x))),
                          ("sigmoid_derivative", lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2)):
        x = np.random.default_rng(0).normal(0, 3, 7)
        case = shapes.SigmoidCase(x, ref_modules["word2vec"].sigmoid(x), bug(x))
        shape = diagnose(shapes.SIGMOID, case)
        assert shape is not None and shape.id == shape_id


# ---------------------------------------------------------------------------------------------
# skipgram with the scripted loss function
# ---------------------------------------------------------------------------------------------

def _skipgram_case(module: ModuleType, rng: np.random.Generator) -> shapes.SkipgramCase:
    V, d = int(rng.integers(5, 12)), int(rng.integers(2, 6))
    word2ind = {f"w{i}": i for i in range(V)}
    center = f"w{int(rng.integers(V))}"
    outside = [f"w{int(i)}" for i in rng.integers(0, V, size=int(rng.integers(2, 7)))]
    centers, outsides = rng.normal(0, 1, (V, d)), rng.normal(0, 1, (V, d))
    table = skipgram_check._table(rng, V, d)
    calls: list[dict[str, Any]] = []
    dataset = object()
    fn = _scripted_loss_function(table, dataset, calls)
    loss, gc, go = module.skipgram(center, 2, outside, word2ind, centers.copy(), outsides.copy(), dataset, fn)
    ci, idx = word2ind[center], [word2ind[w] for w in outside]
    parts = [solution_math.scripted_output(table, centers[ci], o, outsides) for o in idx]
    exp_gc, exp_go = np.zeros((V, d)), np.zeros((V, d))
    for p in parts:
        exp_gc[ci] += p[1]
        exp_go += p[2]
    expected = {"loss": np.asarray(sum(p[0] for p in parts)), "grad_center": exp_gc, "grad_outside": exp_go}
    got = {"loss": np.asarray(loss, dtype=float), "grad_center": np.asarray(gc, dtype=float),
           "grad_outside": np.asarray(go, dtype=float)}
    return shapes.SkipgramCase(ci, idx, centers, outsides, parts, expected, got, calls)


SKIPGRAM_BUGS: dict[str, list[tuple[str, str]]] = {
    "skipgram_ignores_loss_function": [("l, gc, go = word2vecLossAndGradient(", "l, gc, go = naiveSoftmaxLossAndGradient(")],
    "skipgram_center_from_outside_vectors": [("centerWordVec = centerWordVectors[centerIdx]", "centerWordVec = outsideVectors[centerIdx]")],
    "skipgram_wrong_center_vector": [("centerWordVec = centerWordVectors[centerIdx]", "centerWordVec = centerWordVectors[0] * 0.5")],
    "skipgram_wrong_outside_matrix": [("(centerWordVec, outsideIdx, outsideVectors, dataset)", "(centerWordVec, outsideIdx, centerWordVectors, dataset)")],
    "skipgram_wrong_outside_words": [("outsideIdx = word2Ind[outsideWord]", "outsideIdx = centerIdx")],
    "skipgram_center_grad_wrong_row": [("gradCenterVecs[centerIdx] += gc", "gradCenterVecs[outsideIdx] += gc")],
    "skipgram_outside_grad_overwritten": [("gradOutsideVectors += go", "gradOutsideVectors = go")],
    "skipgram_center_grad_overwritten": [("gradCenterVecs[centerIdx] += gc", "gradCenterVecs[centerIdx] = gc")],
    "skipgram_loss_overwritten": [("loss += l", "loss = l")],
    "skipgram_loss_averaged": [("    return loss, gradCenterVecs, gradOutsideVectors\n",
                                "    return loss / len(outsideWords), gradCenterVecs, gradOutsideVectors\n")],
    "skipgram_center_grad_averaged": [("    return loss, gradCenterVecs, gradOutsideVectors\n",
                                       "    return loss, gradCenterVecs / len(outsideWords), gradOutsideVectors\n")],
    "skipgram_outside_grad_averaged": [("    return loss, gradCenterVecs, gradOutsideVectors\n",
                                        "    return loss, gradCenterVecs, gradOutsideVectors / len(outsideWords)\n")],
}


def test_every_skipgram_shape_has_a_bug():
    assert {s.id for s in shapes.SKIPGRAM} == set(SKIPGRAM_BUGS)


@pytest.mark.parametrize("shape_id", sorted(SKIPGRAM_BUGS))
def test_skipgram_shape_names_its_bug(shape_id: str, tmp_path: Path):
    module = _variant(tmp_path, "word2vec.py", SKIPGRAM_BUGS[shape_id])
    hits = 0
    for seed in range(5):
        case = _skipgram_case(module, np.random.default_rng(seed))
        matched = all_matches(shapes.SKIPGRAM, case)
        hits += bool(matched) and shape_id in {s.id for s in matched[:1]} | (
            {s.id for s in matched} if not any(m in shapes.SKIPGRAM[:5] for m in matched) else set())
    assert hits >= 3, shape_id


# ---------------------------------------------------------------------------------------------
# sgd
# ---------------------------------------------------------------------------------------------

def _sgd_case(module: ModuleType, rng: np.random.Generator, *, scale: bool) -> sgd_check.PathCase:
    n = int(rng.integers(1, 6))
    m = rng.normal(0, 1, (n, n))
    a, b = m @ m.T + np.eye(n), rng.normal(0, 1, n)
    step = float(rng.uniform(0.05, 0.5) / np.linalg.eigvalsh(a).max())
    iterations = int(rng.integers(5, 40))
    s = float(rng.uniform(0.8, 0.99)) if scale else None
    x0 = rng.normal(0, 2, n)
    points: list[np.ndarray] = []
    post_calls = [0]

    def f(x):
        points.append(np.array(x, dtype=float))
        return float(0.5 * x @ a @ x - b @ x), a @ x - b

    def post(x):
        post_calls[0] += 1
        return x * s

    x = module.sgd(f, x0.copy(), step, iterations, postprocessing=post if scale else None, PRINT_EVERY=10**9)
    return sgd_check.PathCase(x0, step, iterations, a, b, s, np.array(points), np.asarray(x, dtype=float),
                              post_calls[0], functools.partial(solution_math.sgd_path, x0, step, iterations, a, b, s))


SGD_BUGS: dict[str, tuple[list[tuple[str, str]], bool]] = {
    "sgd_anneals_every_iteration": ([("        if iter % ANNEAL_EVERY == 0:\n            step *= 0.5", "        step *= 0.5")], False),
    "sgd_uphill": ([("x = x - step * grad", "x = x + step * grad")], False),
    "sgd_postprocessing_discarded": ([("        x = postprocessing(x)", "        postprocessing(x)")], True),
    "sgd_postprocessing_never_called": ([("        x = postprocessing(x)", "        pass")], True),
    "sgd_postprocessing_first": ([("        x = postprocessing(x)\n", ""), ("        loss = None\n", "        loss = None\n        x = postprocessing(x)\n")], True),
}


@pytest.mark.parametrize("shape_id", sorted(SGD_BUGS))
def test_sgd_shape_names_its_bug(shape_id: str, tmp_path: Path):
    replacements, scale = SGD_BUGS[shape_id]
    module = _variant(tmp_path, "sgd.py", replacements)
    for seed in range(3):
        shape = diagnose(sgd_check.SGD_UPDATE, _sgd_case(module, np.random.default_rng(seed), scale=scale))
        assert shape is not None and shape.id == shape_id


def _steps(module: ModuleType) -> sgd_check.StepCase:
    points: list[float] = []

    def f(x):
        points.append(float(np.asarray(x).reshape(-1)[0]))
        return 0.0, np.ones_like(x)

    x = module.sgd(f, np.zeros(1), 1e-3, 2 * sgd_check.ANNEAL_EVERY + 2, PRINT_EVERY=10**9)
    got = {"first_points": np.array(points[:50]), "x": x,
           "points_at": {str(i): np.array([points[i]]) for i in (19999, 20000, 20001, 39999, 40000)}}
    case = sgd_check._steps(got)
    assert case is not None
    return case


ANNEAL_BUGS: dict[str, list[tuple[str, str]]] = {
    "sgd_anneals_every_iteration": [("        if iter % ANNEAL_EVERY == 0:\n            step *= 0.5", "        step *= 0.5")],
    "sgd_never_anneals": [("        if iter % ANNEAL_EVERY == 0:\n            step *= 0.5", "        pass")],
    "sgd_anneals_one_early": [("        if iter % ANNEAL_EVERY == 0:\n            step *= 0.5", "        if (iter + 1) % ANNEAL_EVERY == 0:\n            step *= 0.5")],
    "sgd_anneals_one_late": [("        if iter % ANNEAL_EVERY == 0:\n            step *= 0.5", "        if (iter - 1) % ANNEAL_EVERY == 0 and iter > 1:\n            step *= 0.5")],
    "sgd_anneal_wrong_factor": [("        if iter % ANNEAL_EVERY == 0:\n            step *= 0.5", "        if iter % ANNEAL_EVERY == 0:\n            step *= 0.1")],
}


@pytest.mark.parametrize("shape_id", sorted(ANNEAL_BUGS))
def test_anneal_shape_names_its_bug(shape_id: str, tmp_path: Path):
    shape = diagnose(sgd_check.ANNEAL, _steps(_variant(tmp_path, "sgd.py", ANNEAL_BUGS[shape_id])))
    assert shape is not None and shape.id == shape_id


# ---------------------------------------------------------------------------------------------
# PartialParse.parse_step
# ---------------------------------------------------------------------------------------------

def _step_cases(module: ModuleType, ref: ModuleType, rng: np.random.Generator, count: int = 30):
    """The check's own configurations (half of the arcs with a repeated word), each stepped by
    the student's class, as the pp_apply probe does."""
    ctx = SimpleNamespace(rng=rng, ref=SimpleNamespace(parser_transitions=ref))
    out = []
    for case in tr_check._configurations(ctx, count):  # type: ignore[arg-type]
        t = sys.intern(case["transition"])
        student = module.PartialParse([sys.intern(w) for w in case["sentence"]])
        student.stack = [sys.intern(w) for w in case["stack"]]
        student.buffer = [sys.intern(w) for w in case["buffer"]]
        student.dependencies = [tuple(d) for d in case["dependencies"]]
        try:
            student.parse_step(t)
            got = {"stack": list(student.stack), "buffer": list(student.buffer),
                   "dependencies": [list(d) for d in student.dependencies]}
        except Exception:  # a bug may raise on some configurations
            continue
        out.append(tr_check.StepCase(case["stack"], case["buffer"], case["dependencies"], t,
                                     case["expected"], got))
    return out


STEP_BUGS: dict[str, list[tuple[str, str]]] = {
    "shift_takes_last_word": [("self.stack.append(self.buffer.pop(0))", "self.stack.append(self.buffer.pop())")],
    "shift_keeps_word_in_buffer": [("self.stack.append(self.buffer.pop(0))", "self.stack.append(self.buffer[0])")],
    "la_arc_reversed": [("            dependent = self.stack.pop(-2)\n            self.dependencies.append((self.stack[-1], dependent))",
                         "            dependent = self.stack.pop(-2)\n            self.dependencies.append((dependent, self.stack[-1]))")],
    "la_removes_head": [("            dependent = self.stack.pop(-2)\n            self.dependencies.append((self.stack[-1], dependent))",
                         "            head = self.stack.pop()\n            self.dependencies.append((head, self.stack[-1]))")],
    "la_remove_by_value": [("            dependent = self.stack.pop(-2)", "            dependent = self.stack[-2]\n            self.stack.remove(dependent)")],
    "la_keeps_dependent": [("            dependent = self.stack.pop(-2)", "            dependent = self.stack[-2]")],
    "la_does_right_arc": [("            dependent = self.stack.pop(-2)\n            self.dependencies.append((self.stack[-1], dependent))",
                           "            dependent = self.stack.pop()\n            self.dependencies.append((self.stack[-1], dependent))")],
    "ra_arc_reversed": [("            dependent = self.stack.pop()\n            self.dependencies.append((self.stack[-1], dependent))",
                         "            dependent = self.stack.pop()\n            self.dependencies.append((dependent, self.stack[-1]))")],
    "ra_removes_head": [("            dependent = self.stack.pop()\n            self.dependencies.append((self.stack[-1], dependent))",
                         "            head = self.stack.pop(-2)\n            self.dependencies.append((head, self.stack[-1]))")],
    "ra_remove_by_value": [("            dependent = self.stack.pop()\n            self.dependencies.append((self.stack[-1], dependent))",
                            "            self.dependencies.append((self.stack[-2], self.stack[-1]))\n            self.stack.remove(self.stack[-1])")],
    "ra_keeps_dependent": [("            dependent = self.stack.pop()\n            self.dependencies.append((self.stack[-1], dependent))",
                            "            dependent = self.stack[-1]\n            self.dependencies.append((self.stack[-2], dependent))")],
    "ra_does_left_arc": [("            dependent = self.stack.pop()\n            self.dependencies.append((self.stack[-1], dependent))",
                          "            dependent = self.stack.pop(-2)\n            self.dependencies.append((self.stack[-1], dependent))")],
}


def test_every_step_shape_has_a_bug():
    assert {s.id for s in tr_check.PARSE_STEP} == set(STEP_BUGS)


@pytest.mark.parametrize("shape_id", sorted(STEP_BUGS))
def test_step_shape_names_its_bug(shape_id: str, tmp_path: Path, ref_modules):
    module = _variant(tmp_path, "parser_transitions.py", STEP_BUGS[shape_id])
    cases = _step_cases(module, ref_modules["parser_transitions"], np.random.default_rng(0), 60)
    named = [diagnose(tr_check.PARSE_STEP, c) for c in cases if c.got != c.expected]
    assert named and all(s is not None and s.id == shape_id for s in named), \
        {s.id if s else None for s in named}


def test_remove_by_value_hint_only_when_list_remove_gives_the_result(ref_modules, tmp_path: Path):
    """Code that pops by position but has another bug never gets the remove-by-value hint."""
    module = _variant(tmp_path, "parser_transitions.py", STEP_BUGS["la_removes_head"])
    cases = _step_cases(module, ref_modules["parser_transitions"], np.random.default_rng(1), 80)
    assert not any(s.id.endswith("remove_by_value") for c in cases
                   for s in all_matches(tr_check.PARSE_STEP, c))


# ---------------------------------------------------------------------------------------------
# Correct code never matches a bug shape
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["reference", "alternative"])
def test_correct_code_matches_no_shape(which: str, ref_modules, alt_modules):
    mods = ref_modules if which == "reference" else alt_modules
    ref = ref_modules
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        for function in (NAIVE, NEG):
            for dup in (False, True) if function == NEG else (False,):
                case = _loss_case(mods["word2vec"], function, rng, ref["word2vec"], duplicates=dup)
                assert all_matches(shapes.LOSS_SHAPES[function], case) == [], (seed, function)
        x = rng.normal(0, 4, 6)
        case_s = shapes.SigmoidCase(x, ref["word2vec"].sigmoid(x), mods["word2vec"].sigmoid(x))
        assert all_matches(shapes.SIGMOID, case_s) == []
        assert all_matches(shapes.SKIPGRAM, _skipgram_case(mods["word2vec"], rng)) == [], seed
        for scale in (False, True):
            assert all_matches(sgd_check.SGD_UPDATE, _sgd_case(mods["sgd"], rng, scale=scale)) == [], seed
        for c in _step_cases(mods["parser_transitions"], ref["parser_transitions"], rng, 20):
            assert all_matches(tr_check.PARSE_STEP, c) == [], (seed, c)
    assert all_matches(sgd_check.ANNEAL, _steps(mods["sgd"])) == []


def test_factor_hint_needs_one_factor_in_every_trial():
    from grader.run.check_api import Trials
    from grader.run.compare import compare

    trials = Trials()
    for got, exp in ((2.0, 1.0), (3.0, 2.0)):  # ratios 2 and 1.5: no single factor
        v = compare("loss", got, exp, factor_hint=False)
        assert "factor" not in v.message
        trials.factor("loss", v, 1)
        trials.record(False, v.message)
    assert not any("factor" in line for line in trials.outcome().feedback)
    trials = Trials()
    for got, exp in ((2.0, 1.0), (3.0, 1.5)):
        v = compare("loss", got, exp, factor_hint=False)
        trials.factor("loss", v, 1)
        trials.record(False, v.message)
    assert any("2 times the expected value" in line for line in trials.outcome().feedback)
    one = Trials()
    v = compare("loss", 2.0, 1.0, factor_hint=False)
    one.factor("loss", v, 1)
    one.record(False, v.message)
    assert not any("factor" in line for line in one.outcome().feedback)  # one number proves nothing
    assert "factor" not in compare("loss", 2.0, 1.0).message


# ---------------------------------------------------------------------------------------------
# minibatch_parse: the delete-by-index hint only when deleting by index gives the results
# ---------------------------------------------------------------------------------------------

BUGGY = Path(__file__).parent / "submissions" / "buggy"


def _mb_runs(module: ModuleType, ref_module: ModuleType, runs: int = 12):
    """(what the worker's probe reports, the expected results, what deleting by index and what
    popping while enumerating give) for random sentences, legal scripts and batch sizes, 20 seeds."""
    from a2.checks.helpers.parsing_inputs import legal_sequence, sentence
    from a2.checks.minibatch import _deleted_by_index
    from a2.untrusted import probes_parser

    saved = sys.modules.get("parser_transitions")
    sys.modules["parser_transitions"] = module
    try:
        for seed in SEEDS:
            rng = np.random.default_rng(seed)
            for _ in range(runs):
                n = int(rng.integers(2, 9))
                sentences: list[list[str]] = []
                while len(sentences) < n:
                    s = ["right", *sentence(rng, 0, 6)]
                    if s not in sentences:
                        sentences.append(s)
                scripts = [legal_sequence(len(s), rng) for s in sentences]
                batch_size = int(rng.integers(1, n + 3))
                got = probes_parser.mb_parse(sentences=sentences, scripts=scripts, batch_size=batch_size)
                expected = [[[str(h), str(d)] for h, d in ref_module.PartialParse(list(s)).parse(t)]
                            for s, t in zip(sentences, scripts)]
                got["index_deletion"] = _deleted_by_index(scripts, expected, batch_size)
                got["index_skipping"] = _deleted_by_index(scripts, expected, batch_size, skipping=True)
                yield got, expected
    finally:
        if saved is None:
            del sys.modules["parser_transitions"]
        else:
            sys.modules["parser_transitions"] = saved


def _same(got: dict, variant: str) -> bool:
    run = got[variant]
    return run is not None and {k: got[k] for k in run} == run


def test_deleting_by_index_is_computed_as_the_code_gives_it(ref_modules):
    module = _load(BUGGY / "mb_delete_by_index" / "parser_transitions.py", "mb_delete_by_index")
    short = 0
    for got, expected in _mb_runs(module, ref_modules["parser_transitions"]):
        if "raised" in got:
            assert got["index_deletion"] is None and got["raised"].startswith("IndexError"), got["raised"]
            continue
        assert _same(got, "index_deletion")
        short += got["dependencies"] != expected
    assert short > 10     # the runs where the hint is shown


MB_LOOP = """        for parse, transition in zip(batch, transitions):
            parse.parse_step(transition)
        unfinished = [p for p in unfinished
                      if not (len(p.buffer) == 0 and len(p.stack) == 1)]"""
SKIPPING = """        for parse, transition in zip(batch, transitions):
            parse.parse_step(transition)
        for i, p in enumerate(unfinished):
            if len(p.buffer) == 0 and len(p.stack) == 1:
                unfinished.pop(i)"""
SWEEP = """        for start in range(batch_size, len(partial_parses), batch_size):
            part = partial_parses[start:start + batch_size]
            for parse, transition in zip(part, model.predict(part)):
                parse.parse_step(transition)
        for parse, transition in zip(batch, transitions):
            parse.parse_step(transition)
        unfinished = [p for p in unfinished
                      if not (len(p.buffer) == 0 and len(p.stack) == 1)]"""


def test_popping_while_enumerating_is_computed_as_the_code_gives_it(ref_modules, tmp_path: Path):
    """Popping finished parses by index while enumerating the unfinished list skips the next one:
    the trusted process computes the same run, so 4.4's hint about it is shown on such runs."""
    module = _variant(tmp_path, "parser_transitions.py", [(MB_LOOP, SKIPPING)])
    partly = 0
    for got, _ in _mb_runs(module, ref_modules["parser_transitions"]):
        assert _same(got, "index_skipping")
        partly += bool(got["finished_given"])
    assert partly > 10


@pytest.mark.parametrize("which", ["reference", "alternative", "mb_filters_batch_only", "mb_never_removes", "sweep"])
def test_index_hints_never_for_code_that_does_not_delete_by_index(which: str, ref_modules, alt_modules, tmp_path: Path):
    """Correct code, and wrong code that removes no parse by index (a sweep over the minibatches of
    every parse, finished or not, gives predict finished parses in minibatches of varying sizes),
    never gets a run that deleting by index would give."""
    from a2.checks.minibatch import _is_run

    module = (ref_modules["parser_transitions"] if which == "reference" else
              alt_modules["parser_transitions"] if which == "alternative" else
              _variant(tmp_path, "parser_transitions.py", [(MB_LOOP, SWEEP)]) if which == "sweep" else
              _load(BUGGY / which / "parser_transitions.py", which))
    wrong = given = 0
    for got, expected in _mb_runs(module, ref_modules["parser_transitions"]):
        assert "raised" not in got
        assert got["dependencies"] == expected or not _same(got, "index_deletion")
        if got["finished_given"]:
            given += 1
            assert not any(_is_run(got, v, ("finished_given", "batch_sizes")) for v in ("index_deletion", "index_skipping"))
        wrong += got["dependencies"] != expected
    assert (wrong > 0) == (which in ("mb_filters_batch_only", "sweep"))
    assert (given > 0) == (which in ("mb_filters_batch_only", "mb_never_removes", "sweep"))
