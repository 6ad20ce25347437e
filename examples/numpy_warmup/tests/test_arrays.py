"""The array functions' tests: a unittest class with gradescope-utils' decorators, as Gradescope
courses write them (run by JSONTestRunner there; here each test is one check of the grader)."""

import unittest

import numpy as np
from gradescope_utils.autograder_utils.decorators import (
    hide_errors,
    leaderboard,
    number,
    partial_credit,
    tags,
    visibility,
    weight,
)

from arrays import normalize_rows, one_hot, pairwise_distances


class TestArrays(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(0)

    @weight(2)
    @number("1.1")
    @tags("rows", "norms")
    def test_normalize_rows(self):
        """normalize_rows: every row has length 1"""
        x = self.rng.normal(size=(5, 3))
        got = normalize_rows(x)
        np.testing.assert_allclose(np.linalg.norm(got, axis=1), np.ones(5), rtol=1e-6)
        np.testing.assert_allclose(got * np.linalg.norm(x, axis=1, keepdims=True), x, rtol=1e-6)

    @number("1.2")
    @weight(2)
    def test_one_hot(self):
        """one_hot: ones at the labels"""
        np.testing.assert_array_equal(one_hot(np.array([2, 0, 1]), 3),
                                      [[0, 0, 1], [1, 0, 0], [0, 1, 0]])

    @partial_credit(4)
    @number("1.3")
    def test_pairwise_distances(self, set_score=None):
        """pairwise_distances: the share of the entries that are right"""
        a, b = self.rng.normal(size=(4, 3)), self.rng.normal(size=(6, 3))
        expected = np.array([[np.linalg.norm(p - q) for q in b] for p in a])
        got = np.asarray(pairwise_distances(a, b))
        right = np.isclose(got, expected, rtol=1e-6) if got.shape == expected.shape else np.zeros(1, bool)
        set_score(4 * right.mean())
        self.assertTrue(right.all(), f"{(~right).sum()} of {right.size} distances are wrong")

    @weight(2)
    @visibility("after_due_date")
    @number("1.4")
    def test_one_hot_many_classes(self):
        """one_hot: 1000 labels of 50 classes"""
        labels = self.rng.integers(0, 50, size=1000)
        got = one_hot(labels, 50)
        self.assertEqual(got.shape, (1000, 50))
        np.testing.assert_array_equal(got.argmax(axis=1), labels)
        np.testing.assert_array_equal(got.sum(axis=1), np.ones(1000))

    @leaderboard("distance error", "asc")
    @partial_credit(2)
    @number("1.5")
    def test_distances_to_self(self, set_score=None, set_leaderboard_value=None):
        """pairwise_distances: a point is at distance 0 from itself"""
        a = self.rng.normal(size=(8, 4))
        error = float(np.abs(np.diag(pairwise_distances(a, a))).max())
        set_leaderboard_value(error)
        set_score(2 if error < 1e-9 else 1 if error < 1e-3 else 0)

    @partial_credit(2)
    @leaderboard("rows normalized")
    @number("1.6")
    def test_normalize_keeps_direction(self, set_score=None, set_leaderboard_value=None):
        """normalize_rows: each row keeps its direction"""
        x = self.rng.normal(size=(10, 4))
        cosine = np.sum(normalize_rows(x) * x, axis=1) / np.linalg.norm(x, axis=1)
        kept = int(np.isclose(cosine, 1.0).sum())
        set_leaderboard_value(kept)
        set_score(2 * kept / 10)

    @visibility("hidden")
    @weight(0)
    @hide_errors("normalize_rows changed its argument")
    @number("1.7")
    def test_secret_input_unchanged(self):
        """normalize_rows: the argument is left unchanged"""
        x = self.rng.normal(size=(3, 3))
        before = x.copy()
        normalize_rows(x)
        np.testing.assert_array_equal(x, before)


if __name__ == "__main__":
    unittest.main()
