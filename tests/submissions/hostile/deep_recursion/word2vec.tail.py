def sigmoid(x):
    return sigmoid(x) + 0
