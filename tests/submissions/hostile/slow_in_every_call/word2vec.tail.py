import time as _time

_honest_naive_softmax = naiveSoftmaxLossAndGradient


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):
    _time.sleep(1.5)
    return _honest_naive_softmax(centerWordVec, outsideWordIdx, outsideVectors, dataset)
