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


#: The fixed skipgram calls of the self-tests, as in the course's starter: (center word, window
#: size, outside words), with the dummy data's first five vectors as center vectors, the rest outside.
_CASES = (("c", 3, ["a", "b", "e", "d", "b", "c"]), ("c", 1, ["a", "b"]), ("a", 2, ["a", "b", "c", "a"]))
_ORDINALS = ("first", "second", "third")


def _run_skipgram_case(skipgram, case, dummy_tokens, dummy_vectors, dataset, lossfn):
    """One fixed skipgram call on the dummy data; lossfn None means skipgram's default."""
    center_word, window_size, outside_words = case
    center = dummy_vectors[:5, :]
    outside = dummy_vectors[5:, :]
    if lossfn is None:
        return skipgram(center_word, window_size, outside_words, dummy_tokens, center, outside, dataset)
    return skipgram(center_word, window_size, outside_words, dummy_tokens, center, outside, dataset, lossfn)


def _rows(*nonzero):
    """Five rows of three: zero but for the (row, values) pairs given."""
    rows = [[0.0, 0.0, 0.0] for _ in range(5)]
    for row, values in nonzero:
        rows[row] = list(values)
    return rows


# Expected outputs of each case on word2vec.getDummyObjects(), from the reference.
_EXPECTED_SOFTMAX = (
    {"loss": 11.16610900153398,
     "center": _rows((2, (-1.2694733941, -1.3687318947, 2.4515895675))),
     "outside": [[-0.4104595644, 0.1883485056, 1.4327226365], [0.3820283118, -0.1753021926, -1.3334824125],
                 [0.0700935533, -0.0321639868, -0.2446638579], [0.0947215379, -0.0434650856, -0.3306286498],
                 [-0.1363838387, 0.0625827595, 0.4760522837]]},
    {"loss": 3.1741069859376743,
     "center": _rows((2, (-0.5220491372, -1.0408381351, 0.2912116052))),
     "outside": [[0.0453377752, -0.0208042471, -0.1582529986], [0.2184215856, -0.1002276054, -0.7624077429],
                 [-0.0677142972, 0.0310722122, 0.2363589861], [-0.059504969, 0.0273051793, 0.2077040555],
                 [-0.1365400946, 0.062654461, 0.4765976999]]},
    {"loss": 6.374637069609205,
     "center": _rows((0, (-0.1857311448, -1.8287106366, -0.0533502962))),
     "outside": [[0.7591188852, 0.0171279441, -0.1981261633], [0.6120497282, 0.0138096334, -0.1597418623],
                 [0.1893248743, 0.0042717234, -0.0494128281], [-0.6314007584, -0.0142462493, 0.1647923826],
                 [-0.9290927293, -0.0209630516, 0.2424884711]]},
)
_EXPECTED_NEGSAMP = (
    {"loss": 49.52459367807973,
     "center": _rows((2, (-14.2938815548, -6.5446948913, 3.3011849362))),
     "outside": [[-2.6209185306, 1.2026667943, 9.1484025056], [-0.3542496172, 0.1625553204, 1.2365199635],
                 [-1.2064377741, 0.553600821, 4.2111108094], [-1.4122361273, 0.6480359753, 4.9294567438],
                 [-1.8228912432, 0.836474214, 6.3628619591]]},
    {"loss": 16.10699130040637,
     "center": _rows((2, (-5.1093398973, -4.6992621592, 0.6406416249))),
     "outside": [[-0.112650885, 0.0516923656, 0.3932116268], [0.0730758879, -0.0335324974, -0.2550737949],
                 [-0.5691054689, 0.2611467094, 1.9864813945], [-0.3160261073, 0.1450156123, 1.1030995425],
                 [-1.612405914, 0.7398883365, 5.6281559809]]},
    {"loss": 37.85826908977472,
     "center": _rows((0, (-9.4356911849, -5.216300964, -1.6028032588))),
     "outside": [[-3.4801504727, -0.0785223816, 0.9083015512], [-2.6301920369, -0.0593448314, 0.6864667278],
                 [-3.7271381863, -0.0840951474, 0.9727640868], [-4.8392115874, -0.1091867786, 1.2630095814],
                 [-6.2690928585, -0.1414490856, 1.6362013117]]},
)


def _run_cases(skipgram, dummy_tokens, dummy_vectors, dataset, lossfn, expected):
    for case, want, ordinal in zip(_CASES, expected, _ORDINALS):
        loss, grad_center, grad_outside = _run_skipgram_case(
            skipgram, case, dummy_tokens, dummy_vectors, dataset, lossfn)
        _compare("loss", loss, want["loss"])
        _compare("gradCenterVecs", grad_center, want["center"])
        _compare("gradOutsideVectors", grad_outside, want["outside"])
        print("The %s test passed!" % ordinal)
    print("All %d tests passed!" % len(_CASES))


def grad_tests_softmax(skipgram, dummy_tokens, dummy_vectors, dataset):
    """Self-tests of skipgram with naive-softmax loss on the fixed dummy data (three cases)."""
    print("======Skip-Gram with naiveSoftmaxLossAndGradient Test Cases======")
    _run_cases(skipgram, dummy_tokens, dummy_vectors, dataset, None, _EXPECTED_SOFTMAX)


def grad_tests_negsamp(skipgram, dummy_tokens, dummy_vectors, dataset, negSamplingLossAndGradient):
    """Self-tests of skipgram with negative-sampling loss on the fixed dummy data (three cases,
    drawing their negatives in turn after one seeding)."""
    print("======Skip-Gram with negSamplingLossAndGradient======")
    random.seed(31415)
    np.random.seed(9265)
    _run_cases(skipgram, dummy_tokens, dummy_vectors, dataset, negSamplingLossAndGradient, _EXPECTED_NEGSAMP)
