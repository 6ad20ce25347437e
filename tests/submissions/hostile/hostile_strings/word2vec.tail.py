import sys as _sys

for _name in ("__main__", "untrusted.worker", "grader.untrusted.worker"):  # wherever the worker's module is
    _worker = _sys.modules.get(_name)
    if _worker is not None and hasattr(_worker, "_text"):  # lift the worker's own caps
        _worker._text = lambda value, limit=0: str(value)
        _worker.MAX_MESSAGE_CHARS = 10**9

_Hostile = type("Bad[/][bold red]\x1b[31mError" + "E" * 100_000, (Exception,), {})


def sigmoid(x):
    raise _Hostile("[/] \x1b]0;owned\x07 \x1b[2J \ud800 [link=file:///etc]x[/link] " + "A" * 20_000_000)


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):
    return "[/]\x1b[2J" + "L" * 5_000_000, centerWordVec, outsideVectors
