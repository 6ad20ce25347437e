"""The small dummy vocabulary and dataset that word2vec.py's self-tests use."""

import random

import numpy as np

from utils.utils import normalizeRows

DUMMY_WORDS = ["a", "b", "c", "d", "e"]


class DummyDataset:
    """A five-word corpus: uniform token sampling and random contexts.

    ``sampleTokenIdx()`` draws a token index uniformly from 0..4 with the ``random`` module;
    ``getRandomContext(C)`` returns a center word and 2*C outside words.
    """

    def __init__(self, words=DUMMY_WORDS):
        self.words = list(words)

    def sampleTokenIdx(self):
        return random.randint(0, len(self.words) - 1)

    def getRandomContext(self, C):
        center = self.words[random.randint(0, len(self.words) - 1)]
        outside = [self.words[random.randint(0, len(self.words) - 1)] for _ in range(2 * C)]
        return center, outside


def getDummyObjects():
    """Seed the RNGs and return (dataset, dummy_vectors, dummy_tokens).

    dummy_vectors is (10, 3): rows 0-4 are center vectors, rows 5-9 outside vectors.
    """
    random.seed(31415)
    np.random.seed(9265)
    dataset = DummyDataset()
    dummy_vectors = normalizeRows(np.random.randn(10, 3))
    dummy_tokens = {word: i for i, word in enumerate(DUMMY_WORDS)}
    return dataset, dummy_vectors, dummy_tokens
