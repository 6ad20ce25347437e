def sigmoid(x, y):
    return 1 / (1 + np.exp(-x))


def naiveSoftmaxLossAndGradient(centerWordVec):
    return 0.0, centerWordVec, centerWordVec
