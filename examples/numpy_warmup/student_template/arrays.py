"""Array warm-up: rows, labels and distances with numpy."""

import numpy as np


def normalize_rows(x):
    """Each row of the 2-D array x divided by its Euclidean length (a new array; x is unchanged)."""
    ### YOUR CODE HERE
    raise NotImplementedError("arrays.py: normalize_rows is not implemented yet")
    ### END YOUR CODE


def one_hot(labels, n):
    """A (len(labels), n) float array whose row i is 1 at column labels[i] and 0 elsewhere."""
    ### YOUR CODE HERE
    raise NotImplementedError("arrays.py: one_hot is not implemented yet")
    ### END YOUR CODE


def pairwise_distances(a, b):
    """The (len(a), len(b)) array of Euclidean distances between the rows of a and the rows of b."""
    ### YOUR CODE HERE
    raise NotImplementedError("arrays.py: pairwise_distances is not implemented yet")
    ### END YOUR CODE
