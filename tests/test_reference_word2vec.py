"""The reference word2vec.py and sgd.py: gradients agree with finite differences."""

from __future__ import annotations

import ast
import random
import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import REFERENCE, TEMPLATE, run_script

from a2.course_env import COURSE_SUPPORT_MODULES

SEEDS = range(8)


def central_diff(f, x, h=1e-6):
    """Numerical gradient of scalar f at x by central differences."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    for ix in np.ndindex(x.shape):
        old = x[ix]
        x[ix] = old + h
        fp = f(x)
        x[ix] = old - h
        fm = f(x)
        x[ix] = old
        grad[ix] = (fp - fm) / (2 * h)
    return grad


class SeededDataset:
    """sampleTokenIdx from a private RNG whose state can be rewound."""

    def __init__(self, vocab_size, seed):
        self.vocab_size = vocab_size
        self.seed = seed
        self.rng = random.Random(seed)

    def rewind(self):
        self.rng = random.Random(self.seed)

    def sampleTokenIdx(self):
        return self.rng.randint(0, self.vocab_size - 1)


def test_sigmoid_values_and_extremes(ref):
    x = np.array([-1000.0, -5.0, 0.0, 3.0, 1000.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        s = ref.word2vec.sigmoid(x)
    np.testing.assert_allclose(s, [0.0, 1 / (1 + np.exp(5)), 0.5, 1 / (1 + np.exp(-3)), 1.0])
    assert ref.word2vec.sigmoid(0.0) == 0.5
    assert ref.word2vec.sigmoid(np.zeros((2, 3))).shape == (2, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_naive_softmax_gradients_match_finite_differences(ref, seed):
    rng = np.random.default_rng(seed)
    V, d = rng.integers(3, 12), rng.integers(2, 8)
    vc = rng.normal(size=d)
    U = rng.normal(size=(V, d))
    o = int(rng.integers(V))
    f = ref.word2vec.naiveSoftmaxLossAndGradient
    loss, gc, go = f(vc, o, U, None)
    assert gc.shape == (d,) and go.shape == (V, d)
    np.testing.assert_allclose(gc, central_diff(lambda v: f(v, o, U, None)[0], vc), atol=1e-6)
    np.testing.assert_allclose(go, central_diff(lambda u: f(vc, o, u, None)[0], U), atol=1e-6)
    scores = U @ vc
    assert loss == pytest.approx(-scores[o] + np.log(np.sum(np.exp(scores))))


@pytest.mark.parametrize("seed", SEEDS)
def test_neg_sampling_gradients_match_finite_differences(ref, seed):
    rng = np.random.default_rng(seed)
    V, d, K = int(rng.integers(3, 8)), int(rng.integers(2, 6)), int(rng.integers(5, 15))
    vc, U, o = rng.normal(size=d), rng.normal(size=(V, d)), int(rng.integers(V))
    ds = SeededDataset(V, seed)
    f = ref.word2vec.negSamplingLossAndGradient

    def loss_at(v, u):
        ds.rewind()
        return f(v, o, u, ds, K)[0]

    ds.rewind()
    loss, gc, go = f(vc, o, U, ds, K)
    np.testing.assert_allclose(gc, central_diff(lambda v: loss_at(v, U), vc), atol=1e-6)
    np.testing.assert_allclose(go, central_diff(lambda u: loss_at(vc, u), U), atol=1e-6)


def test_neg_sampling_counts_duplicate_negatives_twice(ref):
    """With 3 words and K=10, negatives repeat; each draw must count."""
    rng = np.random.default_rng(1)
    vc, U, o, K = rng.normal(size=4), rng.normal(size=(3, 4)), 0, 10
    ds = SeededDataset(3, 7)
    negs = ref.word2vec.getNegativeSamples(o, ds, K)
    assert len(set(negs)) < len(negs) and o not in negs
    ds.rewind()
    loss, _, go = ref.word2vec.negSamplingLossAndGradient(vc, o, U, ds, K)
    sig = lambda z: 1 / (1 + np.exp(-z))
    expected = -np.log(sig(U[o] @ vc)) - sum(np.log(sig(-U[k] @ vc)) for k in negs)
    assert loss == pytest.approx(expected)
    for k in set(negs):
        count = negs.count(k)
        np.testing.assert_allclose(go[k], count * (1 - sig(-U[k] @ vc)) * vc)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_skipgram_sums_over_window(ref, seed):
    rng = np.random.default_rng(seed)
    words = ["a", "b", "c", "d", "e", "f"]
    word2ind = {w: i for i, w in enumerate(words)}
    centers, outsides = rng.normal(size=(6, 3)), rng.normal(size=(6, 3))
    window = [words[i] for i in rng.integers(0, 6, size=5)]
    f = ref.word2vec.naiveSoftmaxLossAndGradient
    loss, gc, go = ref.word2vec.skipgram("c", 3, window, word2ind, centers, outsides, None, f)
    exp_loss, exp_gc, exp_go = 0.0, np.zeros(3), np.zeros((6, 3))
    for w in window:
        part_loss, a, b = f(centers[2], word2ind[w], outsides, None)
        exp_loss, exp_gc, exp_go = exp_loss + part_loss, exp_gc + a, exp_go + b
    assert loss == pytest.approx(exp_loss)
    np.testing.assert_allclose(gc[2], exp_gc)
    assert np.all(np.delete(gc, 2, axis=0) == 0)
    np.testing.assert_allclose(go, exp_go)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_sgd_minimises_random_quadratic(ref, seed, capsys):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(4, 4))
    A = A @ A.T + np.eye(4)
    b = rng.normal(size=4)
    f = lambda x: (0.5 * x @ A @ x - b @ x, A @ x - b)
    step = 0.5 / np.linalg.eigvalsh(A).max()
    x = ref.sgd.sgd(f, np.zeros(4), step, 2000, PRINT_EVERY=1000)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), atol=1e-6)


def test_sgd_applies_postprocessing_and_anneals(ref, monkeypatch, capsys):
    steps = []

    def f(x):
        return 0.0, np.ones_like(x)

    monkeypatch.setattr(ref.sgd, "ANNEAL_EVERY", 3)
    x = ref.sgd.sgd(f, np.zeros(1), 1.0, 7, postprocessing=lambda v: (steps.append(v[0]), v)[1],
                    PRINT_EVERY=100)
    # Steps of 1, 1, 1, then 0.5 x3, then 0.25: the running sum of -step.
    np.testing.assert_allclose(steps, [-1, -2, -3, -3.5, -4, -4.5, -4.75])
    assert x[0] == pytest.approx(-4.75)


def test_word2vec_self_tests_pass():
    result = run_script(REFERENCE, "word2vec.py", "all")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Gradient check passed") == 6
    assert result.stdout.count("All 3 tests passed!") == 2  # the course starter's 3 + 3 fixed cases
    assert result.stdout.count("The third test passed!") == 2


def test_sgd_sanity_check_passes():
    result = run_script(REFERENCE, "sgd.py")
    assert result.returncode == 0, result.stderr
    assert "ALL TESTS PASSED" in result.stdout


# -- a drop-in for the course's starter (issue 35) ---------------------------------------------------

#: A test of the course's shape (its word2vec sanity checks, written anew here): it imports
#: word2vec from the folder it runs in, builds the course's small dummy data itself (a dataset
#: object given two functions, seeded vectors of five words) and calls word2vec's functions on it.
COURSE_SHAPED_TEST = '''
import random
import sys

import numpy as np

import word2vec
from utils.gradcheck import gradcheck_naive, grad_tests_softmax, grad_tests_negsamp
from utils.utils import normalizeRows


def dummy_objects():
    def draw_index():
        return random.randint(0, 4)

    def random_context(C):
        tokens = ["a", "b", "c", "d", "e"]
        return tokens[random.randint(0, 4)], [tokens[random.randint(0, 4)] for _ in range(2 * C)]

    dataset = type("dummy", (), {})()
    dataset.sampleTokenIdx = draw_index
    dataset.getRandomContext = random_context
    random.seed(31415)
    np.random.seed(9265)
    vectors = normalizeRows(np.random.randn(10, 3))
    tokens = dict((w, i) for i, w in enumerate("abcde"))
    return dataset, vectors, tokens


def check_sigmoid():
    assert word2vec.sigmoid(0) == 0.5
    assert np.allclose(word2vec.sigmoid(np.array([1.0, 2.0])), [0.73105858, 0.88079708])


def check_losses():
    dataset, vectors, tokens = dummy_objects()
    for loss in (word2vec.naiveSoftmaxLossAndGradient, word2vec.negSamplingLossAndGradient):
        gradcheck_naive(lambda v: loss(v, 1, vectors, dataset)[:2], np.random.randn(3), loss.__name__)
        center = np.random.randn(3)
        gradcheck_naive(lambda U: loss(center, 1, U, dataset)[::2], vectors, loss.__name__)


def check_skipgram():
    dataset, vectors, tokens = dummy_objects()
    for loss in (word2vec.naiveSoftmaxLossAndGradient, word2vec.negSamplingLossAndGradient):
        gradcheck_naive(lambda v: word2vec.word2vec_sgd_wrapper(word2vec.skipgram, tokens, v, dataset, 5, loss),
                        vectors, "skipgram")
    grad_tests_softmax(word2vec.skipgram, tokens, vectors, dataset)
    grad_tests_negsamp(word2vec.skipgram, tokens, vectors, dataset, word2vec.negSamplingLossAndGradient)


check_sigmoid()
check_losses()
check_skipgram()
print("COURSE-SHAPED TESTS PASSED")
'''


def _course_folder(tree: Path, dest: Path) -> Path:
    """``tree``'s student files in a folder whose utils/ holds only the course starter's modules."""
    (dest / "utils").mkdir(parents=True)
    for path in tree.glob("*.py"):
        shutil.copyfile(path, dest / path.name)
    shutil.copyfile(tree / "utils" / "__init__.py", dest / "utils" / "__init__.py")
    for module in COURSE_SUPPORT_MODULES:
        name = module.split(".", 1)[1] + ".py"
        shutil.copyfile(tree / "utils" / name, dest / "utils" / name)
    return dest


def test_the_reference_runs_a_course_shaped_word2vec_test_with_the_courses_utils_only(tmp_path):
    folder = _course_folder(REFERENCE, tmp_path / "course")
    (folder / "course_sanity.py").write_text(COURSE_SHAPED_TEST)
    result = run_script(folder, "course_sanity.py")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "COURSE-SHAPED TESTS PASSED" in result.stdout
    assert result.stdout.count("Gradient check passed") == 6
    # and its own self-tests in that folder too
    result = run_script(folder, "word2vec.py", "all")
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize("tree", [REFERENCE, TEMPLATE], ids=["reference", "template"])
def test_the_trees_import_no_support_module_the_courses_utils_lacks(tree):
    imported = set()
    for path in tree.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "utils":
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(a.name for a in node.names if a.name.split(".")[0] == "utils")
    assert imported and imported <= set(COURSE_SUPPORT_MODULES), imported - set(COURSE_SUPPORT_MODULES)
    shipped = {f"utils.{p.stem}" for p in (tree / "utils").glob("*.py") if p.stem != "__init__"}
    assert shipped == set(COURSE_SUPPORT_MODULES)
