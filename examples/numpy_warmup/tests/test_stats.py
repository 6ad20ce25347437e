"""The statistics functions' tests: plain pytest functions (one with gradescope-utils' @weight and
@visibility, which work on functions too; the rest get their points from rubric.yaml)."""

import numpy as np
import pytest
from gradescope_utils.autograder_utils.decorators import visibility, weight

from stats import moving_average, zscore


@weight(3)
def test_zscore_mean_and_std():
    """zscore: mean 0 and standard deviation 1"""
    x = np.random.default_rng(1).normal(5, 2, size=100)
    z = zscore(x)
    assert abs(z.mean()) < 1e-9
    assert abs(z.std() - 1) < 1e-9


@visibility("after_published")
@weight(1)
def test_zscore_constant():
    """zscore: a constant array gives zeros"""
    assert np.array_equal(zscore(np.full(4, 7.0)), np.zeros(4))


def test_moving_average():
    np.testing.assert_allclose(moving_average(np.arange(6.0), 3), [1, 2, 3, 4])


@pytest.mark.parametrize("k", [1, 4])
def test_moving_average_length(k):
    """moving_average: one mean a window"""
    assert len(moving_average(np.ones(10), k)) == 10 - k + 1
