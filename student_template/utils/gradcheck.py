"""Gradient checking by central differences, and the public self-tests of word2vec.py."""

import random

import numpy as np

# Step of the central difference and the largest relative error accepted.
H = 1e-4
TOLERANCE = 1e-5


def gradcheck_naive(f, x, gradientText=""):
    """Check the gradient that ``f`` returns against central differences.

    Arguments:
    f -- a function taking one array and returning (loss, gradient)
    x -- the point (numpy array) at which to check; it is restored after each probe
    gradientText -- a label printed with any failure

    The ``random`` and ``np.random`` states are restored before every evaluation of ``f``,
    so functions that sample (negative sampling) see the same draws each time.
    Raises AssertionError if the gradient is wrong.
    """
    rndstate = random.getstate()
    nprndstate = np.random.get_state()

    def evaluate(point):
        random.setstate(rndstate)
        np.random.set_state(nprndstate)
        return f(point)

    fx, grad = evaluate(x)
    grad = np.asarray(grad)
    it = np.nditer(x, flags=["multi_index"], op_flags=["readwrite"])
    while not it.finished:
        ix = it.multi_index
        original = x[ix]
        x[ix] = original + H
        fplus = evaluate(x)[0]
        x[ix] = original - H
        fminus = evaluate(x)[0]
        x[ix] = original
        numgrad = (fplus - fminus) / (2 * H)

        reldiff = abs(numgrad - grad[ix]) / max(1, abs(numgrad), abs(grad[ix]))
        if reldiff > TOLERANCE:
            print("Gradient check failed for %s." % gradientText)
            print("First gradient error found at index %s in the vector of gradients" % str(ix))
            print("Your gradient: %f \t Numerical gradient: %f" % (grad[ix], numgrad))
            raise AssertionError("gradient check failed for %s at index %s" % (gradientText, ix))
        it.iternext()

    print("Gradient check passed for %s (%d entries, relative error <= %g)."
          % (gradientText or "f", np.size(x), TOLERANCE))


def _compare(name, got, expected, atol=1e-5):
    got = np.asarray(got, dtype=float)
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        raise AssertionError("%s has shape %s, expected %s" % (name, got.shape, expected.shape))
    if not np.allclose(got, expected, atol=atol):
        diff = np.max(np.abs(got - expected))
        raise AssertionError("%s differs from the expected value (largest difference %.3g)"
                             % (name, diff))


def _run_skipgram_case(skipgram, dummy_tokens, dummy_vectors, dataset, lossfn):
    """One fixed skipgram call on the dummy data; lossfn None means skipgram's default."""
    center = dummy_vectors[:5, :]
    outside = dummy_vectors[5:, :]
    window = ["a", "b", "e", "d", "b", "c"]
    if lossfn is None:
        return skipgram("c", 3, window, dummy_tokens, center, outside, dataset)
    return skipgram("c", 3, window, dummy_tokens, center, outside, dataset, lossfn)


# Expected outputs of _run_skipgram_case on word2vec.getDummyObjects(), from the reference.
_EXPECTED_SOFTMAX = {
    "loss": 11.16610900153398,
    "center": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-1.2694733941, -1.3687318947, 2.4515895675],
               [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    "outside": [[-0.4104595644, 0.1883485056, 1.4327226365],
                [0.3820283118, -0.1753021926, -1.3334824125],
                [0.0700935533, -0.0321639868, -0.2446638579],
                [0.0947215379, -0.0434650856, -0.3306286498],
                [-0.1363838387, 0.0625827595, 0.4760522837]],
}
_EXPECTED_NEGSAMP = {
    "loss": 49.52459367807973,
    "center": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-14.2938815548, -6.5446948913, 3.3011849362],
               [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    "outside": [[-2.6209185306, 1.2026667943, 9.1484025056],
                [-0.3542496172, 0.1625553204, 1.2365199635],
                [-1.2064377741, 0.553600821, 4.2111108094],
                [-1.4122361273, 0.6480359753, 4.9294567438],
                [-1.8228912432, 0.836474214, 6.3628619591]],
}


def grad_tests_softmax(skipgram, dummy_tokens, dummy_vectors, dataset):
    """Self-test of skipgram with naive-softmax loss on the fixed dummy data."""
    print("======Skip-Gram with naiveSoftmaxLossAndGradient Test Cases======")
    loss, grad_center, grad_outside = _run_skipgram_case(
        skipgram, dummy_tokens, dummy_vectors, dataset, None)
    _compare("loss", loss, _EXPECTED_SOFTMAX["loss"])
    _compare("gradCenterVecs", grad_center, _EXPECTED_SOFTMAX["center"])
    _compare("gradOutsideVectors", grad_outside, _EXPECTED_SOFTMAX["outside"])
    print("The first test passed!")
    print("All 1 tests passed!")


def grad_tests_negsamp(skipgram, dummy_tokens, dummy_vectors, dataset, negSamplingLossAndGradient):
    """Self-test of skipgram with negative-sampling loss on the fixed dummy data."""
    print("======Skip-Gram with negSamplingLossAndGradient======")
    random.seed(31415)
    np.random.seed(9265)
    loss, grad_center, grad_outside = _run_skipgram_case(
        skipgram, dummy_tokens, dummy_vectors, dataset, negSamplingLossAndGradient)
    _compare("loss", loss, _EXPECTED_NEGSAMP["loss"])
    _compare("gradCenterVecs", grad_center, _EXPECTED_NEGSAMP["center"])
    _compare("gradOutsideVectors", grad_outside, _EXPECTED_NEGSAMP["outside"])
    print("The first test passed!")
    print("All 1 tests passed!")
