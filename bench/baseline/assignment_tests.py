"""The benchmark's baseline: the coding checks as a course writes them without this project.

Plain unittest cases, run in-process by gradescope-utils' JSONTestRunner (see run_tests.py):
the student's modules are imported next to the support files, the reference's under other
names, and compared with numpy; there is no sandbox, no time limit and no partial credit per
trial. The work per test follows the grader's check of the same name (number of randomized
trials, instance sizes, the training configuration), so that timing the two compares the cost
of the grader's isolation and bookkeeping, not different amounts of computation.

Not collected by pytest (the project's tests live in tests/); run through run_tests.py.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import math
import os
import random
import tempfile
import unittest
from pathlib import Path
from typing import ClassVar

import numpy as np
import torch
from gradescope_utils.autograder_utils.decorators import number, weight

REFERENCE = Path(os.environ.get("BASELINE_REFERENCE", Path(__file__).resolve().parents[2] / "reference"))
TRIALS = 6
RTOL, ATOL = 1e-5, 1e-7
FD_STEP = 1e-5
EXAMPLE = ["I", "presented", "my", "findings", "at", "the", "NLP", "conference"]
EXAMPLE_SEQUENCE = ["S", "S", "LA", "S", "S", "LA", "RA", "S", "S", "S", "S", "LA", "LA", "LA", "RA", "RA"]
UAS_FLOOR = 0.78


def reference(name: str):
    """A reference module under the name ref_<name> (the student's has the plain name)."""
    spec = importlib.util.spec_from_file_location(f"ref_{name}", REFERENCE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Draws:
    """A dataset whose sampleTokenIdx replays fixed draws (for negative sampling)."""

    def __init__(self, draws):
        self.draws, self.i = list(draws), 0

    def sampleTokenIdx(self):
        value = self.draws[self.i % len(self.draws)]
        self.i += 1
        return value


def close(a, b) -> bool:
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=RTOL, atol=ATOL)


def numeric_gradient(f, x):
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        old = x[idx]
        x[idx] = old + FD_STEP
        plus = f(x)
        x[idx] = old - FD_STEP
        minus = f(x)
        x[idx] = old
        grad[idx] = (plus - minus) / (2 * FD_STEP)
    return grad


class TestWord2Vec(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.w2v = importlib.import_module("word2vec")
        cls.ref = reference("word2vec")

    def instance(self, rng):
        V, d = int(rng.integers(4, 13)), int(rng.integers(2, 8))
        return rng.normal(size=d), int(rng.integers(V)), rng.normal(size=(V, d))

    @weight(1)
    @number("1.1")
    def test_sigmoid(self):
        rng = np.random.default_rng(1)
        for x in (0.3, rng.normal(size=1), rng.normal(size=(3, 4)), np.array([-1000.0, 1000.0])):
            self.assertTrue(close(self.w2v.sigmoid(x), self.ref.sigmoid(x)))

    def check_loss(self, name, rng, draws_for=None):
        for _ in range(TRIALS):
            v, o, U = self.instance(rng)
            draws = draws_for(rng, len(U), o) if draws_for else [0]
            got = getattr(self.w2v, name)(v.copy(), o, U.copy(), Draws(draws))
            want = getattr(self.ref, name)(v.copy(), o, U.copy(), Draws(draws))
            for g, w in zip(got, want):
                self.assertTrue(close(g, w))
            fn = getattr(self.w2v, name)
            loss_v = lambda x, o=o, U=U, d=draws, fn=fn: float(fn(x, o, U.copy(), Draws(d))[0])
            loss_u = lambda x, o=o, v=v, d=draws, fn=fn: float(fn(v.copy(), o, x, Draws(d))[0])
            self.assertTrue(np.allclose(numeric_gradient(loss_v, v.copy()), got[1], rtol=1e-4, atol=1e-6))
            self.assertTrue(np.allclose(numeric_gradient(loss_u, U.copy()), got[2], rtol=1e-4, atol=1e-6))

    @weight(4)
    @number("1.2")
    def test_naive_softmax(self):
        self.check_loss("naiveSoftmaxLossAndGradient", np.random.default_rng(2))

    @weight(3)
    @number("1.3")
    def test_neg_sampling(self):
        distinct = lambda rng, V, o: [int(i) for i in rng.choice([i for i in range(V) if i != o], 10)]
        self.check_loss("negSamplingLossAndGradient", np.random.default_rng(3), distinct)

    @weight(1)
    @number("1.4")
    def test_neg_sampling_duplicates(self):
        repeated = lambda rng, V, o: [(o + 1) % V] * 5 + [(o + 2) % V] * 5
        self.check_loss("negSamplingLossAndGradient", np.random.default_rng(4), repeated)

    @weight(3)
    @number("1.5")
    def test_skipgram(self):
        rng = np.random.default_rng(5)
        for t in range(TRIALS):
            V, d = int(rng.integers(4, 13)), int(rng.integers(2, 8))
            words = [f"w{i}" for i in range(V)]
            word2ind = {w: i for i, w in enumerate(words)}
            C, outside = int(rng.integers(1, 4)), [words[int(i)] for i in rng.integers(V, size=4)]
            centers, outs = rng.normal(size=(V, d)), rng.normal(size=(V, d))
            loss = "naiveSoftmaxLossAndGradient" if t % 2 == 0 else "negSamplingLossAndGradient"
            draws = [int(i) for i in rng.integers(V, size=50)]
            got = self.w2v.skipgram(words[0], C, outside, word2ind, centers.copy(), outs.copy(),
                                    Draws(draws), getattr(self.w2v, loss))
            want = self.ref.skipgram(words[0], C, outside, word2ind, centers.copy(), outs.copy(),
                                     Draws(draws), getattr(self.ref, loss))
            for g, w in zip(got, want):
                self.assertTrue(close(g, w))


class TestSGD(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sgd = importlib.import_module("sgd")

    @weight(3)
    @number("2.1")
    def test_update(self):
        rng = np.random.default_rng(6)
        for _ in range(3):
            n = int(rng.integers(2, 6))
            A = rng.normal(size=(n, n))
            A = A @ A.T + n * np.eye(n)
            b, x0 = rng.normal(size=n), rng.normal(size=n)
            step, iterations = float(rng.uniform(0.01, 0.05)), int(rng.integers(5, 15))
            f = lambda x, A=A, b=b: (0.5 * x @ A @ x - b @ x, A @ x - b)
            post = lambda x: x / max(1.0, np.linalg.norm(x))
            want = x0.copy()
            for _ in range(iterations):
                want = post(want - step * f(want)[1])
            self.assertTrue(close(self.sgd.sgd(f, x0.copy(), step, iterations, postprocessing=post,
                                               PRINT_EVERY=10**9), want))

    @weight(1)
    @number("2.2")
    def test_anneal(self):
        step, iterations = 0.001, 2 * 20000 + 2
        got = self.sgd.sgd(lambda x: (0.0, 1.0), 0.0, step, iterations, PRINT_EVERY=10**9)
        want = -step * (20000 + 20000 * 0.5 + 2 * 0.25)
        self.assertTrue(math.isclose(got, want, rel_tol=1e-9))


class TestPartialParse(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pt = importlib.import_module("parser_transitions")
        cls.ref = reference("parser_transitions")

    def state(self, pp):
        return list(pp.stack), list(pp.buffer), [tuple(d) for d in pp.dependencies]

    @weight(1)
    @number("3.1")
    def test_init(self):
        sentence = ["the", "cat", "the", "dog"]
        pp = self.pt.PartialParse(sentence)
        self.assertEqual(self.state(pp), (["ROOT"], sentence, []))
        pp.buffer.append("x")
        self.assertEqual(sentence, ["the", "cat", "the", "dog"])

    @weight(3)
    @number("3.2")
    def test_parse_step(self):
        rng = random.Random(7)
        for _ in range(40):
            sentence = [rng.choice(["the", "dog", "cat", "a"]) for _ in range(rng.randint(2, 8))]
            mine, theirs = self.pt.PartialParse(list(sentence)), self.ref.PartialParse(list(sentence))
            for _ in range(rng.randint(1, 2 * len(sentence))):
                legal = (["S"] if theirs.buffer else []) + (["LA", "RA"] if len(theirs.stack) >= 3 else [])
                if not legal:
                    break
                transition = rng.choice(legal)
                mine.parse_step(transition)
                theirs.parse_step(transition)
                self.assertEqual(self.state(mine), self.state(theirs))

    @weight(1)
    @number("3.3")
    def test_parse(self):
        rng = random.Random(8)
        for _ in range(5):
            n = rng.randint(2, 9)
            sequence, stack, buffer = [], 1, n
            while buffer or stack > 1:
                options = (["S"] if buffer else []) + (["LA", "RA"] if stack >= 3 or (stack == 2 and not buffer) else [])
                move = rng.choice([o for o in options if not (o == "LA" and stack == 2)] or ["RA"])
                sequence.append(move)
                stack, buffer = (stack + 1, buffer - 1) if move == "S" else (stack - 1, buffer)
            pp = self.pt.PartialParse([f"w{i}" for i in range(n)])
            pp.parse(sequence)
            self.assertEqual((len(sequence), pp.stack, pp.buffer), (2 * n, ["ROOT"], []))

    @weight(1)
    @number("3.4")
    def test_example_3a(self):
        mine, theirs = self.pt.PartialParse(list(EXAMPLE)), self.ref.PartialParse(list(EXAMPLE))
        for transition in EXAMPLE_SEQUENCE:
            mine.parse_step(transition)
            theirs.parse_step(transition)
            self.assertEqual(self.state(mine), self.state(theirs))


class Spy:
    """A dummy model that records the batches it is given."""

    def __init__(self, model):
        self.model, self.sizes, self.finished = model, [], 0

    def predict(self, parses):
        self.sizes.append(len(parses))
        self.finished += sum(1 for p in parses if not p.buffer and len(p.stack) == 1)
        return self.model.predict(parses)


class RandomModel:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def predict(self, parses):
        out = []
        for p in parses:
            legal = (["S"] if p.buffer else []) + (["LA", "RA"] if len(p.stack) >= 3 else [])
            out.append(self.rng.choice(legal) if legal else "RA")
        return out


class TestMinibatchParse(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pt = importlib.import_module("parser_transitions")
        cls.ref = reference("parser_transitions")

    def cases(self, seed):
        rng = random.Random(seed)
        for trial in range(6):
            n = rng.randint(1, 8)
            sentences = [[rng.choice(["right", "left"])] + [f"w{j}" for j in range(rng.randint(1, 5))]
                         for _ in range(n)]
            batch = n + 2 if trial == 0 else rng.randint(1, n)
            yield sentences, batch, trial

    def run_both(self, sentences, batch, make_model):
        mine = Spy(make_model())
        got = self.pt.minibatch_parse(copy.deepcopy(sentences), mine, batch)
        want = self.ref.minibatch_parse(copy.deepcopy(sentences), make_model(), batch)
        return got, want, mine

    @weight(3)
    @number("4.1")
    def test_results(self):
        for sentences, batch, trial in self.cases(9):
            mode = "unidirectional" if trial % 2 else "interleave"
            got, want, _ = self.run_both(sentences, batch, lambda mode=mode: self.ref.DummyModel(mode))
            self.assertEqual([[tuple(d) for d in s] for s in got], [[tuple(d) for d in s] for s in want])

    @weight(1)
    @number("4.2")
    def test_random_model(self):
        for sentences, batch, trial in self.cases(10):
            got, want, _ = self.run_both(sentences, batch, lambda trial=trial: RandomModel(trial))
            self.assertEqual([[tuple(d) for d in s] for s in got], [[tuple(d) for d in s] for s in want])

    @weight(2)
    @number("4.3")
    def test_batch_size(self):
        for sentences, batch, _ in self.cases(11):
            _, _, spy = self.run_both(sentences, batch, lambda: self.ref.DummyModel("unidirectional"))
            self.assertLessEqual(max(spy.sizes), batch)

    @weight(2)
    @number("4.4")
    def test_finished_removed(self):
        for sentences, batch, _ in self.cases(12):
            before = copy.deepcopy(sentences)
            spy = Spy(self.ref.DummyModel("interleave"))
            self.pt.minibatch_parse(sentences, spy, batch)
            self.assertEqual((spy.finished, sentences), (0, before))


NAMES = {"embed_to_hidden_weight", "embed_to_hidden_bias", "hidden_to_logits_weight", "hidden_to_logits_bias"}


class TestParserModel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pm = importlib.import_module("parser_model")
        cls.ref = reference("parser_model")

    def pair(self, rng, dropout=0.0, hidden=None):
        V, d, f = int(rng.integers(20, 60)), int(rng.integers(4, 12)), int(rng.integers(2, 7))
        h = hidden or int(rng.integers(6, 30))
        emb = rng.normal(size=(V, d)).astype(np.float32)
        mine = self.pm.ParserModel(emb, n_features=f, hidden_size=h, n_classes=3, dropout_prob=dropout)
        theirs = self.ref.ParserModel(emb, n_features=f, hidden_size=h, n_classes=3, dropout_prob=dropout)
        mine.load_state_dict(theirs.state_dict())
        w = torch.from_numpy(rng.integers(V, size=(int(rng.integers(1, 6)), f))).long()
        return mine, theirs, w

    @weight(2)
    @number("5.1")
    def test_structure(self):
        rng = np.random.default_rng(13)
        for _ in range(4):
            mine, theirs, _ = self.pair(rng)
            shapes = {n: tuple(p.shape) for n, p in mine.named_parameters()}
            self.assertEqual(shapes, {n: tuple(p.shape) for n, p in theirs.named_parameters()})
            self.assertTrue(NAMES <= set(shapes))
            self.assertFalse(any(isinstance(m, (torch.nn.Linear, torch.nn.Embedding)) for m in mine.modules()))

    @weight(1)
    @number("5.2")
    def test_init(self):
        rng = np.random.default_rng(14)
        emb = rng.normal(size=(53, 20)).astype(np.float32)
        model = self.pm.ParserModel(emb, n_features=4, hidden_size=516, n_classes=3, dropout_prob=0.5)
        w = model.embed_to_hidden_weight.detach().numpy()
        bound = math.sqrt(6 / sum(w.shape))
        self.assertLessEqual(np.abs(w).max(), bound * (1 + 1e-6))
        self.assertAlmostEqual(float(w.var()), bound ** 2 / 3, delta=0.1 * bound ** 2 / 3)

    @weight(2)
    @number("5.3")
    def test_embedding_lookup(self):
        rng = np.random.default_rng(15)
        for _ in range(TRIALS):
            mine, theirs, w = self.pair(rng)
            self.assertTrue(torch.allclose(mine.embedding_lookup(w), theirs.embedding_lookup(w)))

    @weight(2)
    @number("5.4")
    def test_forward(self):
        rng = np.random.default_rng(16)
        for _ in range(TRIALS):
            mine, theirs, w = self.pair(rng)
            mine.eval(), theirs.eval()
            with torch.no_grad():
                self.assertTrue(torch.allclose(mine(w), theirs(w), rtol=1e-4, atol=1e-5))

    @weight(2)
    @number("5.5")
    def test_dropout(self):
        rng = np.random.default_rng(17)
        for _ in range(3):
            p = float(rng.uniform(0.1, 0.6))
            mine, _, _ = self.pair(rng, dropout=p, hidden=400)
            with torch.no_grad():  # every hidden unit is 10 before dropout; logits show 3 of them
                mine.embed_to_hidden_weight.zero_()
                mine.embed_to_hidden_bias.fill_(10.0)
                mine.hidden_to_logits_weight.copy_(torch.eye(400, 3))
                mine.hidden_to_logits_bias.zero_()
                w = torch.zeros(200, mine.embed_to_hidden_weight.shape[0] // mine.embeddings.shape[1],
                                dtype=torch.long)
                mine.eval()
                self.assertTrue(torch.allclose(mine(w), torch.full((200, 3), 10.0)))
                mine.train()
                kept = mine(w)
            self.assertAlmostEqual(float((kept == 0).float().mean()), p, delta=0.1)
            survivors = kept[kept != 0]
            self.assertTrue(torch.allclose(survivors, torch.full_like(survivors, 10 / (1 - p)), rtol=1e-4))

    @weight(1)
    @number("5.6")
    def test_gradients(self):
        rng = np.random.default_rng(18)
        mine, _, w = self.pair(rng)
        mine(w).sum().backward()
        for name, param in mine.named_parameters():
            self.assertIsNotNone(param.grad, name)
            self.assertGreater(float(param.grad.abs().sum()), 0, name)


class SpyAdam(torch.optim.Adam):
    calls: ClassVar[list[str]] = []

    def zero_grad(self, *args, **kwargs):
        SpyAdam.calls.append("Z")
        return super().zero_grad(*args, **kwargs)

    def step(self, *args, **kwargs):
        SpyAdam.calls.append("S")
        return super().step(*args, **kwargs)


class TestTraining(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)  # as the grader trains: one thread
        cls.run_py = importlib.import_module("run")
        cls.pm = importlib.import_module("parser_model")
        parser_utils = importlib.import_module("utils.parser_utils")
        np.random.seed(0)
        cls.parser, cls.embeddings, cls.train, cls.dev, _ = parser_utils.load_and_preprocess_data(True)

    def model(self):
        return self.pm.ParserModel(self.embeddings, n_features=36, hidden_size=200, n_classes=3,
                                   dropout_prob=0.5)

    @weight(1)
    @number("5.7")
    def test_train_for_epoch(self):
        rng = np.random.default_rng(19)
        for _ in range(2):
            n_train, batch, n_dev = int(rng.integers(1000, 2500)), int(rng.integers(100, 400)), int(rng.integers(20, 60))
            parser = copy.copy(self.parser)
            parser.model = self.model()
            parser.model.eval()
            SpyAdam.calls = []
            optimizer = SpyAdam(parser.model.parameters(), lr=float(10 ** rng.uniform(-3.5, -2.5)))
            uas = self.run_py.train_for_epoch(parser, self.train[:n_train], copy.deepcopy(self.dev[:n_dev]),
                                           optimizer, torch.nn.CrossEntropyLoss(), batch)
            self.assertEqual(SpyAdam.calls.count("S"), math.ceil(n_train / batch))
            self.assertGreaterEqual(SpyAdam.calls.count("Z"), math.ceil(n_train / batch))
            self.assertFalse(parser.model.training)
            self.assertTrue(0 <= float(uas if not isinstance(uas, tuple) else uas[0]) <= 100)

    @weight(1)
    @number("5.8")
    def test_train(self):
        fake = [0.5, 0.8, 0.6]
        seen = []
        original = self.run_py.train_for_epoch

        def stand_in(parser, train_data, dev_data, optimizer, loss_func, batch_size):
            seen.append(optimizer.param_groups[0]["lr"])
            return fake[len(seen) - 1]

        parser = copy.copy(self.parser)
        parser.model = self.model()
        path = os.path.join(tempfile.mkdtemp(dir="."), "model.weights")
        self.run_py.train_for_epoch = stand_in
        try:
            self.run_py.train(parser, self.train[:300], self.dev[:20], path, batch_size=64, n_epochs=3, lr=0.0123)
        finally:
            self.run_py.train_for_epoch = original
        self.assertEqual(seen, [0.0123] * 3)
        self.assertTrue(os.path.isfile(path))

    @weight(2)
    @number("5.9")
    def test_train_uas(self):
        torch.manual_seed(0)
        parser = copy.copy(self.parser)
        parser.model = self.model()
        path = os.path.join(tempfile.mkdtemp(dir="."), "model.weights")
        self.run_py.train(parser, self.train, copy.deepcopy(self.dev), path, batch_size=1024, n_epochs=10, lr=0.0005)
        parser.model.eval()
        uas, _ = parser.parse(copy.deepcopy(self.dev))
        self.assertGreaterEqual(uas, UAS_FLOOR)
