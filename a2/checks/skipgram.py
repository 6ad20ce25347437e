"""The check of word2vec.py's skipgram.

skipgram takes its loss function as an argument, so it is judged first with a loss function whose
outputs are known here (random but reproducible, see ``solution_math.scripted_output``), not
with the student's own: a skipgram that does nothing cannot pass on the back of the student's
losses. Only a skipgram that refuses that function (some accept only the two built-in losses) is
judged against the student's own loss functions, and earns nothing when their outputs are
degenerate. A wrong answer is tested against the declared bug shapes and named when one fits.
"""

from __future__ import annotations

import numpy as np

from a2.bug_shapes import diagnose
from a2.checks.helpers import word2vec_shapes as shapes
from a2.checks.word2vec import FILES, NAIVE, NEG, TRIALS, readable
from grader.run.check_api import CheckContext, Trials, check
from grader.run.compare import compare
from grader.run.results import Outcome


def _table(rng: np.random.Generator, V: int, d: int) -> dict[str, np.ndarray]:
    """The scripted loss function's random tables (see solution_math.scripted_output)."""
    return {"loss": rng.normal(0, 1, V), "a": rng.normal(0, 1, d), "b": rng.normal(0, 1, (V, d)),
            "gc": rng.normal(0, 1, (V, d)), "m": rng.normal(0, 1, (d, d)),
            "go": rng.normal(0, 1, (V, V, d)), "c": rng.normal(0, 1, V)}


@check("w2v_skipgram", files=FILES, names=("word2vec.skipgram",))
def check_skipgram(ctx: CheckContext) -> Outcome:
    """skipgram with the grader's loss function (known outputs); only a skipgram that refuses it is
    judged with the student's own loss functions, and never on degenerate outputs."""
    trials = Trials()
    rng = ctx.rng
    for t in range(TRIALS):
        function = NAIVE if t % 2 == 0 else NEG
        V, d = int(rng.integers(5, 12)), int(rng.integers(2, 6))
        words = [f"w{i}" for i in range(V)]
        word2ind = {w: i for i, w in enumerate(words)}
        C = int(rng.integers(1, 4))
        center_word = words[int(rng.integers(V))]
        outside_words = [words[int(i)] for i in rng.integers(0, V, size=int(rng.integers(2, 2 * C + 2)))]
        centers, outsides = rng.normal(0, 1, (V, d)), rng.normal(0, 1, (V, d))
        table = _table(rng, V, d)
        draws = [int(x) for x in rng.integers(0, V, size=40 * len(outside_words))]
        what = (f"skipgram('{center_word}', {C}, {len(outside_words)} outside words, |V|={V}, d={d}, "
                f"word2vecLossAndGradient=<the grader's loss function>)")
        got, err = ctx.try_call("w2v_skipgram_scripted", what, center_word=center_word, window_size=C,
                                outside_words=outside_words, word2ind=word2ind, center_vectors=centers,
                                outside_vectors=outsides, table=table)
        if err:
            trials.note("skipgram refused the grader's own loss function, so it was judged with your loss "
                        f"functions instead ({err.splitlines()[0]})")
            _skipgram_own(ctx, trials, t, function, center_word, C, outside_words, word2ind, centers,
                          outsides, draws)
            continue
        ci = word2ind[center_word]
        idx = [word2ind[w] for w in outside_words]
        parts = [ctx.ref.grader_math.scripted_output(table, centers[ci], o, outsides) for o in idx]
        exp_loss = sum(p[0] for p in parts)
        exp_gc = np.zeros((V, d))
        exp_go = np.zeros((V, d))
        for p in parts:
            exp_gc[ci] += p[1]
            exp_go += p[2]
        verdicts = [compare("loss", got["loss"], exp_loss, factor_hint=False),
                    compare("gradCenterVecs", got["grad_center"], exp_gc, factor_hint=False),
                    compare("gradOutsideVectors", got["grad_outside"], exp_go, factor_hint=False)]
        for v, name, size in zip(verdicts, ("loss", "gradCenterVecs", "gradOutsideVectors"), (1, V * d, V * d)):
            trials.factor(name, v, size)
        bad = [v.message for v in verdicts if not v.ok]
        if bad:
            expected = {"loss": np.asarray(exp_loss), "grad_center": exp_gc, "grad_outside": exp_go}
            case = shapes.SkipgramCase(ci, idx, centers, outsides, parts, expected,
                                       {k: readable(got.get(k), expected[k].shape) for k in expected},
                                       [c for c in got.get("calls", []) if isinstance(c, dict)])
            named = _skipgram_named(case)
            if named:
                bad.append(named)
            else:
                gc = case.got["grad_center"]
                if gc is not None and np.allclose(gc.sum(0), exp_gc[ci]) and not np.allclose(gc[ci], exp_gc[ci]):
                    bad.append(f"the center gradient is right but sits in the wrong row: it belongs "
                               f"in row word2Ind[currentCenterWord] = {ci}")
        trials.record(not bad, f"trial {t + 1}: {what}: " + "; ".join(bad) +
                      " (expected: the sum of the given loss function's outputs over the outside words)")
    return trials.outcome()


def _skipgram_named(case: shapes.SkipgramCase) -> str:
    """Every matching skipgram shape's message, calls first (a wrong argument explains the values)."""
    first = diagnose(shapes.SKIPGRAM, case)
    if first is None:
        return ""
    if first.id.startswith("skipgram_") and first in shapes.SKIPGRAM[:5]:
        return first.message
    messages = [s.message for s in shapes.SKIPGRAM[5:] if s.test(case)]
    return ". ".join(dict.fromkeys(messages))


def _degenerate(parts: list[dict]) -> bool:
    """Loss outputs that cannot tell a right sum from a wrong one: gradients all zero, or every
    outside word giving the same outputs."""
    grads = [np.asarray(p[k], dtype=float) for p in parts for k in ("grad_center", "grad_outside")]
    if all(np.allclose(g, 0) for g in grads):
        return True
    first = parts[0]
    return all(np.allclose(np.asarray(p[k], dtype=float), np.asarray(first[k], dtype=float))
               for p in parts[1:] for k in ("loss", "grad_center", "grad_outside"))


def _skipgram_own(ctx: CheckContext, trials: Trials, t: int, function: str, center_word: str, C: int,
                  outside_words: list[str], word2ind: dict[str, int], centers: np.ndarray,
                  outsides: np.ndarray, draws: list[int]) -> None:
    """The fallback: skipgram with the student's own loss function, judged against that function's
    outputs; nothing is awarded when those outputs are degenerate."""
    V, d = centers.shape
    what = (f"skipgram('{center_word}', {C}, {len(outside_words)} outside words, |V|={V}, d={d}, "
            f"word2vecLossAndGradient={function})")
    got, err = ctx.try_call("w2v_skipgram", what, function=function, center_word=center_word,
                            window_size=C, outside_words=outside_words, word2ind=word2ind,
                            center_vectors=centers, outside_vectors=outsides,
                            draws=draws if function == NEG else None)
    if err:
        trials.record(False, err)
        return
    if "parts_error" in got:
        trials.record(False, f"trial {t + 1}: skipgram refused the grader's loss function and your "
                             f"{function} cannot be used instead: {got['parts_error']}")
        return
    parts = got["parts"]
    if len(set(outside_words)) < 2:  # one word repeated: equal outputs are right, and show nothing
        trials.skip(f"trial {t + 1}: its window repeats one outside word, so your {function}'s outputs "
                    "cannot show that skipgram sums them; it was not counted")
        return
    if _degenerate(parts):
        trials.record(False, f"trial {t + 1}: {what}: skipgram refused the grader's loss function, and your "
                             f"{function}'s outputs are degenerate (all zeros, or the same for every outside "
                             "word), so they cannot show that skipgram sums them: nothing awarded")
        return
    ci = word2ind[center_word]
    exp_loss = sum(float(np.asarray(p["loss"], dtype=float).reshape(())) for p in parts)
    exp_gc = np.zeros((V, d))
    exp_go = np.zeros((V, d))
    for p in parts:
        exp_gc[ci] += np.asarray(p["grad_center"], dtype=float)
        exp_go += np.asarray(p["grad_outside"], dtype=float)
    verdicts = [compare("loss", got["loss"], exp_loss, factor_hint=False),
                compare("gradCenterVecs", got["grad_center"], exp_gc, factor_hint=False),
                compare("gradOutsideVectors", got["grad_outside"], exp_go, factor_hint=False)]
    bad = [v.message for v in verdicts if not v.ok]
    trials.record(not bad, f"trial {t + 1}: {what}: " + "; ".join(bad) +
                  " (expected: the sum of your own loss function's outputs over the window)")
