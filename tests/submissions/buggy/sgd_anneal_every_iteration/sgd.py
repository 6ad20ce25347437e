#!/usr/bin/env python
"""Part 1 (coding): stochastic gradient descent, with optional checkpoints.

Run the sanity check from this folder:  python sgd.py
"""

import glob
import os.path as op
import pickle
import random

import numpy as np

# Save parameters every few iterations (only when useSaved is True).
SAVE_PARAMS_EVERY = 5000
# The step size is halved every ANNEAL_EVERY iterations.
ANNEAL_EVERY = 20000


def load_saved_params():
    """Return (iteration, params, random state) of the latest saved checkpoint, or (0, None, None)."""
    st = 0
    for f in glob.glob("saved_params_*.npy"):
        it = int(op.splitext(op.basename(f))[0].split("_")[2])
        if it > st:
            st = it

    if st > 0:
        params_file = "saved_params_%d.npy" % st
        state_file = "saved_state_%d.pickle" % st
        params = np.load(params_file)
        with open(state_file, "rb") as f:
            state = pickle.load(f)
        return st, params, state
    return st, None, None


def save_params(iter, params):
    """Write the parameters and the random state of iteration ``iter`` to the current folder."""
    params_file = "saved_params_%d.npy" % iter
    np.save(params_file, params)
    with open("saved_state_%d.pickle" % iter, "wb") as f:
        pickle.dump(random.getstate(), f)


def sgd(f, x0, step, iterations, postprocessing=None, useSaved=False, PRINT_EVERY=10):
    """Stochastic gradient descent.

    f              -- the function to optimise: takes x, returns (loss, gradient at x)
    x0             -- the starting point
    step           -- the initial step size
    iterations     -- the total number of iterations
    postprocessing -- optional function applied to x after every update (e.g. normalisation)
    useSaved       -- resume from the latest checkpoint in the current folder
    PRINT_EVERY    -- print an exponential moving average of the loss this often

    Each iteration computes ``loss, grad = f(x)``, moves x by ``-step * grad``, then applies
    postprocessing. The step is halved every ANNEAL_EVERY iterations. Returns the final x.
    """
    if useSaved:
        start_iter, oldx, state = load_saved_params()
        if start_iter > 0:
            x0 = oldx
            step *= 0.5 ** (start_iter / ANNEAL_EVERY)
        if state:
            random.setstate(state)
    else:
        start_iter = 0

    x = x0

    if not postprocessing:
        postprocessing = lambda x: x

    exploss = None

    for iter in range(start_iter + 1, iterations + 1):
        loss = None
        ### BEGIN SOLUTION
        loss, grad = f(x)
        x = x - step * grad
        ### END SOLUTION

        x = postprocessing(x)
        if iter % PRINT_EVERY == 0:
            if not exploss:
                exploss = loss
            else:
                exploss = .95 * exploss + .05 * loss
            print("iter %d: %f" % (iter, exploss))

        if iter % SAVE_PARAMS_EVERY == 0 and useSaved:
            save_params(iter, x)

        step *= 0.5

    return x


def sanity_check():
    """Minimise x^2 from several starting points; each result must be close to 0."""
    quad = lambda x: (np.sum(x ** 2), x * 2)

    print("Running sanity checks...")
    t1 = sgd(quad, 0.5, 0.01, 1000, PRINT_EVERY=100)
    print("test 1 result:", t1)
    assert abs(t1) <= 1e-6

    t2 = sgd(quad, 0.0, 0.01, 1000, PRINT_EVERY=100)
    print("test 2 result:", t2)
    assert abs(t2) <= 1e-6

    t3 = sgd(quad, -1.5, 0.01, 1000, PRINT_EVERY=100)
    print("test 3 result:", t3)
    assert abs(t3) <= 1e-6

    print("-" * 40)
    print("ALL TESTS PASSED")
    print("-" * 40)


if __name__ == "__main__":
    sanity_check()
