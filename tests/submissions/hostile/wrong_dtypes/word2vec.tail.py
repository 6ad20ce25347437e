_real_sigmoid = sigmoid


def sigmoid(x):
    return np.asarray(_real_sigmoid(x), dtype=object)


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):
    return ("0.5", centerWordVec.astype(str), outsideVectors.astype(complex))


def skipgram(currentCenterWord, windowSize, outsideWords, word2Ind, centerWordVectors,
             outsideVectors, dataset, word2vecLossAndGradient=naiveSoftmaxLossAndGradient):
    record = np.zeros(centerWordVectors.shape[0], dtype=[("a", float), ("b", int)])
    return 0.0, record, record
