"""Numerical helpers used by word2vec.py: a stable softmax and row normalisation."""

import numpy as np


def normalizeRows(x):
    """Scale every row of a 2-D array to unit L2 norm (rows of zeros stay zero)."""
    x = np.asarray(x, dtype=float)
    norms = np.sqrt(np.sum(x * x, axis=1, keepdims=True))
    return x / np.where(norms == 0, 1.0, norms)


def softmax(x):
    """Numerically stable softmax.

    For a 1-D array, the softmax of the whole vector; for a 2-D array, the softmax of
    each row. The input is not modified; the result has the input's shape.
    """
    orig_shape = np.shape(x)
    x = np.asarray(x, dtype=float)
    if x.ndim > 1:
        shifted = x - np.max(x, axis=1, keepdims=True)
        e = np.exp(shifted)
        out = e / np.sum(e, axis=1, keepdims=True)
    else:
        shifted = x - np.max(x)
        e = np.exp(shifted)
        out = e / np.sum(e)
    assert out.shape == orig_shape
    return out
