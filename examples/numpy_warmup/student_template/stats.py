"""Statistics warm-up: standard scores and moving averages with numpy."""

import numpy as np


def zscore(x):
    """(x - mean) / standard deviation of the 1-D array x; all zeros when x is constant."""
    ### YOUR CODE HERE
    raise NotImplementedError("stats.py: zscore is not implemented yet")
    ### END YOUR CODE


def moving_average(x, k):
    """The means of the len(x) - k + 1 windows of k consecutive entries of x."""
    ### YOUR CODE HERE
    raise NotImplementedError("stats.py: moving_average is not implemented yet")
    ### END YOUR CODE
