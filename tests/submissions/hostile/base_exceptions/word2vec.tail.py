class Nasty(BaseException):
    def __str__(self):
        raise Nasty()

    def __repr__(self):
        raise Nasty()


def sigmoid(x):
    raise KeyboardInterrupt


def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):
    raise SystemExit(3)


def negSamplingLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset, K=10):
    raise Nasty()
