_real_naive = naiveSoftmaxLossAndGradient


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):
    centerWordVec[...] = 1.0
    outsideVectors[...] = 0.0
    return _real_naive(centerWordVec, outsideWordIdx, outsideVectors, dataset)
