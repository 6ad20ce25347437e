"""Statistics warm-up: standard scores and moving averages with numpy."""

import numpy as np


def zscore(x):
    """(x - mean) / standard deviation of the 1-D array x; all zeros when x is constant."""
    std = x.std()
    return np.zeros_like(x, dtype=float) if std == 0 else (x - x.mean()) / std


def moving_average(x, k):
    """The means of the len(x) - k + 1 windows of k consecutive entries of x."""
    return np.convolve(x, np.ones(k) / k, mode="valid")
