#!/usr/bin/env python
"""Part 1 (coding): word2vec skip-gram with naive-softmax and negative-sampling losses.

Run the self-tests from this folder:  python word2vec.py all
(or one of: sigmoid, naiveSoftmaxLossAndGradient, negSamplingLossAndGradient, skipgram)
"""

import argparse
import random

import numpy as np

from utils.gradcheck import gradcheck_naive, grad_tests_softmax, grad_tests_negsamp
from utils.utils import normalizeRows, softmax


def sigmoid(x):
    """Logistic function 1 / (1 + exp(-x)), element-wise.

    x: a Python number or a numpy array of any shape.
    Returns a float for a scalar input, otherwise an array of x's shape. Must not overflow
    for large |x|.
    """
    ### BEGIN SOLUTION
    x = np.asarray(x, dtype=float)
    # Evaluate each branch only where it cannot overflow.
    s = np.empty_like(x)
    pos = x >= 0
    s[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    ex = np.exp(x[~pos])
    s[~pos] = ex / (1.0 + ex)
    if s.ndim == 0:
        return float(s)
    ### END SOLUTION
    return s


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):
    """Loss and gradients of one (center, outside) pair under the full softmax.

    centerWordVec   -- v_c, shape (d,)
    outsideWordIdx  -- o, the index of the observed outside word
    outsideVectors  -- shape (|V|, d); row w is u_w (so this array is U transposed)
    dataset         -- unused here; present so both loss functions share one signature

    Returns (loss, gradCenterVec, gradOutsideVecs):
    loss            -- -log softmax(outsideVectors @ v_c)[o], a float
    gradCenterVec   -- dJ/dv_c, shape (d,)
    gradOutsideVecs -- dJ/dU laid out like outsideVectors, shape (|V|, d)
    """
    ### BEGIN SOLUTION
    scores = outsideVectors @ centerWordVec            # (|V|,)
    y_hat = softmax(scores)                            # (|V|,)
    loss = -np.log(y_hat[outsideWordIdx])

    delta = y_hat.copy()                               # y_hat - y
    delta[outsideWordIdx] -= 1.0
    gradCenterVec = outsideVectors.T @ delta           # U (y_hat - y)
    gradOutsideVecs = np.outer(delta, centerWordVec)   # (v_c (y_hat - y)^T)^T
    ### END SOLUTION
    return loss, gradCenterVec, gradOutsideVecs


def getNegativeSamples(outsideWordIdx, dataset, K):
    """Samples K indexes which are not the outsideWordIdx (repeats allowed)."""
    negSampleWordIndices = [None] * K
    for k in range(K):
        newidx = dataset.sampleTokenIdx()
        while newidx == outsideWordIdx:
            newidx = dataset.sampleTokenIdx()
        negSampleWordIndices[k] = newidx
    return negSampleWordIndices


def negSamplingLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset, K=10):
    """Loss and gradients of one (center, outside) pair under negative sampling.

    The K negatives come from getNegativeSamples (the call below is fixed so the grader can
    reproduce the draws). The loss is -log sigma(u_o . v_c) - sum_k log sigma(-u_k . v_c);
    a word drawn twice appears twice in the sum, and its gradient row accumulates both.

    Arguments and return values have the same meaning and shapes as in
    naiveSoftmaxLossAndGradient.
    """
    # Provided: keep this call as it is, so the grader can replay your random draws.
    negSampleWordIndices = getNegativeSamples(outsideWordIdx, dataset, K)
    indices = [outsideWordIdx] + negSampleWordIndices

    ### BEGIN SOLUTION
    u_o = outsideVectors[outsideWordIdx]               # (d,)
    u_neg = outsideVectors[negSampleWordIndices]       # (K, d), one row per draw
    s_o = sigmoid(u_o @ centerWordVec)                 # scalar
    s_neg = sigmoid(-(u_neg @ centerWordVec))          # (K,)

    loss = -s_o - np.sum(s_neg)
    gradCenterVec = (s_o - 1.0) * u_o + (1.0 - s_neg) @ u_neg

    gradOutsideVecs = np.zeros_like(outsideVectors)
    gradOutsideVecs[outsideWordIdx] += (s_o - 1.0) * centerWordVec
    # np.add.at accumulates once per occurrence, so repeated negatives count each time.
    np.add.at(gradOutsideVecs, negSampleWordIndices, np.outer(1.0 - s_neg, centerWordVec))
    ### END SOLUTION
    return loss, gradCenterVec, gradOutsideVecs


def skipgram(currentCenterWord, windowSize, outsideWords, word2Ind,
             centerWordVectors, outsideVectors, dataset,
             word2vecLossAndGradient=naiveSoftmaxLossAndGradient):
    """Skip-gram loss and gradients of one window, summed over its outside words.

    currentCenterWord       -- the center word (a string)
    windowSize              -- the context size C (unused by the sum itself)
    outsideWords            -- up to 2C outside words (strings), repeats allowed
    word2Ind                -- dict from word to row index
    centerWordVectors       -- shape (|V|, d), row w is v_w
    outsideVectors          -- shape (|V|, d), row w is u_w
    dataset                 -- passed on to the loss function
    word2vecLossAndGradient -- naiveSoftmaxLossAndGradient or negSamplingLossAndGradient

    Returns (loss, gradCenterVecs, gradOutsideVectors): the summed loss and the gradients
    with respect to centerWordVectors and outsideVectors, both shape (|V|, d).
    """
    loss = 0.0
    gradCenterVecs = np.zeros(centerWordVectors.shape)
    gradOutsideVectors = np.zeros(outsideVectors.shape)

    ### BEGIN SOLUTION
    centerIdx = word2Ind[currentCenterWord]
    centerWordVec = centerWordVectors[centerIdx]
    for outsideWord in outsideWords:
        outsideIdx = word2Ind[outsideWord]
        l, gc, go = word2vecLossAndGradient(centerWordVec, outsideIdx, outsideVectors, dataset)
        loss += l
        gradCenterVecs[centerIdx] += gc
        gradOutsideVectors += go
    ### END SOLUTION

    return loss, gradCenterVecs, gradOutsideVectors


# ---------------------------------------------------------------------------
# Self-tests and the SGD wrapper: provided, keep them unchanged.
# ---------------------------------------------------------------------------

def word2vec_sgd_wrapper(word2vecModel, word2Ind, wordVectors, dataset,
                         windowSize, word2vecLossAndGradient=naiveSoftmaxLossAndGradient):
    """Average loss and gradient of ``word2vecModel`` over a batch of 50 random contexts.

    ``wordVectors`` stacks the center vectors (first half of the rows) on the outside vectors
    (second half); the returned gradient has the same layout.
    """
    batchsize = 50
    loss = 0.0
    grad = np.zeros(wordVectors.shape)
    N = wordVectors.shape[0]
    centerWordVectors = wordVectors[:int(N / 2), :]
    outsideVectors = wordVectors[int(N / 2):, :]
    for _ in range(batchsize):
        windowSize1 = random.randint(1, windowSize)
        centerWord, context = dataset.getRandomContext(windowSize1)

        c, gin, gout = word2vecModel(
            centerWord, windowSize1, context, word2Ind, centerWordVectors,
            outsideVectors, dataset, word2vecLossAndGradient
        )
        loss += c / batchsize
        grad[:int(N / 2), :] += gin / batchsize
        grad[int(N / 2):, :] += gout / batchsize

    return loss, grad


def getDummyObjects():
    """Seed the RNGs; return the self-tests' (dataset, dummy_vectors, dummy_tokens).

    The dataset is a five-word corpus: ``sampleTokenIdx()`` draws a token index uniformly from
    0..4 with the ``random`` module; ``getRandomContext(C)`` returns a center word and 2*C
    outside words. dummy_vectors is (10, 3): rows 0-4 are center vectors, rows 5-9 outside vectors.
    """
    words = ["a", "b", "c", "d", "e"]

    def sampleTokenIdx():
        return random.randint(0, len(words) - 1)

    def getRandomContext(C):
        center = words[random.randint(0, len(words) - 1)]
        return center, [words[random.randint(0, len(words) - 1)] for _ in range(2 * C)]

    dataset = type("DummyDataset", (), {})()
    dataset.sampleTokenIdx = sampleTokenIdx
    dataset.getRandomContext = getRandomContext

    random.seed(31415)
    np.random.seed(9265)
    dummy_vectors = normalizeRows(np.random.randn(10, 3))
    dummy_tokens = {word: i for i, word in enumerate(words)}
    return dataset, dummy_vectors, dummy_tokens


def test_sigmoid():
    """Test sigmoid function."""
    print("=== Sanity check for sigmoid ===")
    assert sigmoid(0) == 0.5
    assert np.allclose(sigmoid(np.array([0])), np.array([0.5]))
    assert np.allclose(sigmoid(np.array([1, 2, 3])), np.array([0.73105858, 0.88079708, 0.95257413]))
    assert np.allclose(sigmoid(np.array([-1000.0, 1000.0])), np.array([0.0, 1.0]))
    print("Tests for sigmoid passed!")


def test_naiveSoftmaxLossAndGradient():
    """Test naiveSoftmaxLossAndGradient."""
    dataset, dummy_vectors, dummy_tokens = getDummyObjects()

    print("==== Gradient check for naiveSoftmaxLossAndGradient ====")

    def temp(vec):
        loss, gradCenterVec, gradOutsideVecs = naiveSoftmaxLossAndGradient(vec, 1, dummy_vectors, dataset)
        return loss, gradCenterVec
    gradcheck_naive(temp, np.random.randn(3), "naiveSoftmaxLossAndGradient gradCenterVec")

    centerVec = np.random.randn(3)

    def temp(vec):
        loss, gradCenterVec, gradOutsideVecs = naiveSoftmaxLossAndGradient(centerVec, 1, vec, dataset)
        return loss, gradOutsideVecs
    gradcheck_naive(temp, dummy_vectors, "naiveSoftmaxLossAndGradient gradOutsideVecs")


def test_negSamplingLossAndGradient():
    """Test negSamplingLossAndGradient."""
    dataset, dummy_vectors, dummy_tokens = getDummyObjects()

    print("==== Gradient check for negSamplingLossAndGradient ====")

    def temp(vec):
        loss, gradCenterVec, gradOutsideVecs = negSamplingLossAndGradient(vec, 1, dummy_vectors, dataset)
        return loss, gradCenterVec
    gradcheck_naive(temp, np.random.randn(3), "negSamplingLossAndGradient gradCenterVec")

    centerVec = np.random.randn(3)

    def temp(vec):
        loss, gradCenterVec, gradOutsideVecs = negSamplingLossAndGradient(centerVec, 1, vec, dataset)
        return loss, gradOutsideVecs
    gradcheck_naive(temp, dummy_vectors, "negSamplingLossAndGradient gradOutsideVecs")


def test_skipgram():
    """Test skip-gram with naiveSoftmaxLossAndGradient and negSamplingLossAndGradient."""
    dataset, dummy_vectors, dummy_tokens = getDummyObjects()

    print("==== Gradient check for skip-gram with naiveSoftmaxLossAndGradient ====")
    gradcheck_naive(lambda vec: word2vec_sgd_wrapper(
        skipgram, dummy_tokens, vec, dataset, 5, naiveSoftmaxLossAndGradient),
        dummy_vectors, "naiveSoftmaxLossAndGradient Gradient")
    grad_tests_softmax(skipgram, dummy_tokens, dummy_vectors, dataset)

    print("==== Gradient check for skip-gram with negSamplingLossAndGradient ====")
    gradcheck_naive(lambda vec: word2vec_sgd_wrapper(
        skipgram, dummy_tokens, vec, dataset, 5, negSamplingLossAndGradient),
        dummy_vectors, "negSamplingLossAndGradient Gradient")
    grad_tests_negsamp(skipgram, dummy_tokens, dummy_vectors, dataset, negSamplingLossAndGradient)


def test_word2vec():
    """Run every word2vec self-test."""
    test_sigmoid()
    test_naiveSoftmaxLossAndGradient()
    test_negSamplingLossAndGradient()
    test_skipgram()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Test your implementations.")
    parser.add_argument("function", nargs="?", type=str, default="all",
                        help="Name of the function you would like to test: sigmoid, "
                             "naiveSoftmaxLossAndGradient, negSamplingLossAndGradient, "
                             "skipgram, or all")
    args = parser.parse_args()
    if args.function == "sigmoid":
        test_sigmoid()
    elif args.function == "naiveSoftmaxLossAndGradient":
        test_naiveSoftmaxLossAndGradient()
    elif args.function == "negSamplingLossAndGradient":
        test_negSamplingLossAndGradient()
    elif args.function == "skipgram":
        test_skipgram()
    elif args.function == "all":
        test_word2vec()
    else:
        parser.error("unknown function %r" % args.function)
