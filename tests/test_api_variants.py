"""How real student files vary (../shared/REAL_SUBMISSIONS.md): the variants to tolerate earn
full marks, the ones to penalise lose points on the check that covers them, with the cause named.

Each submission is the reference with one file rewritten (conftest.variant), graded in the real
sandbox on the checks of that file.
"""

from __future__ import annotations

import pytest
from conftest import REFERENCE, assemble, variant

from grader.run.engine import grade
from grader.run.settings import GradingSettings

W2V_CHECKS = ["w2v_naive_softmax", "w2v_neg_sampling", "w2v_neg_sampling_dups", "w2v_skipgram"]
PP_CHECKS = ["pp_init", "pp_parse_step", "pp_parse", "pp_example_3a"]
MB_CHECKS = ["mb_results", "mb_random_model", "mb_batch_size", "mb_finished_removed"]
RUN_CHECKS = ["train_loop", "train_setup"]


def graded(tmp_path, name, replacements, checks, seed=21):
    folder = variant(tmp_path, name, replacements)
    report = grade(assemble(folder, tmp_path / "submission"), GradingSettings(seed=seed, only=checks))
    return {c.id: c for c in report.checks}


def lost(results) -> dict[str, tuple[str, ...]]:
    return {cid: c.outcome.feedback for cid, c in results.items() if c.score < c.max_score}


def text(result) -> str:
    return " ".join(" ".join(result.outcome.feedback).split())


# -- tolerated: full marks ------------------------------------------------------------------------

TOLERATED = {
    "loss as 0-d and 1-element arrays": ("word2vec.py", [
        ("    loss = -np.log(y_hat[outsideWordIdx])\n", "    loss = np.array(-np.log(y_hat[outsideWordIdx]))\n"),
        ("    loss = -np.log(s_o) - np.sum(np.log(s_neg))\n",
         "    loss = np.array([-np.log(s_o) - np.sum(np.log(s_neg))])\n")], W2V_CHECKS),
    "dataset=None default and an extra keyword argument": ("word2vec.py", [
        ("def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset):",
         "def naiveSoftmaxLossAndGradient(centerWordVec, outsideWordIdx, outsideVectors, dataset=None,\n"
         "                                plot=False):")], W2V_CHECKS),
    "skipgram that only knows the two built-in losses": ("word2vec.py", [
        ("        l, gc, go = word2vecLossAndGradient(centerWordVec, outsideIdx, outsideVectors, dataset)\n",
         "        if word2vecLossAndGradient == negSamplingLossAndGradient:\n"
         "            l, gc, go = negSamplingLossAndGradient(centerWordVec, outsideIdx, outsideVectors, dataset)\n"
         "        elif word2vecLossAndGradient == naiveSoftmaxLossAndGradient:\n"
         "            l, gc, go = naiveSoftmaxLossAndGradient(centerWordVec, outsideIdx, outsideVectors, dataset)\n"
         "        else:\n"
         "            raise ValueError('unknown loss function')\n")], ["w2v_skipgram"]),
    "transitions compared with `is`": ("parser_transitions.py", [
        ('        if transition == "S":', '        if transition is "S":'),
        ('        elif transition == "LA":', '        elif transition is "LA":'),
        ('        elif transition == "RA":', '        elif transition is "RA":')], PP_CHECKS + MB_CHECKS),
    "stack, buffer and dependencies rebound to new lists": ("parser_transitions.py", [
        ("            self.stack.append(self.buffer.pop(0))",
         "            self.stack = self.stack + [self.buffer[0]]\n            self.buffer = self.buffer[1:]"),
        ("            dependent = self.stack.pop(-2)\n            self.dependencies.append((self.stack[-1], dependent))",
         "            dependent = self.stack[-2]\n            self.stack = self.stack[:-2] + self.stack[-1:]\n"
         "            self.dependencies = self.dependencies + [(self.stack[-1], dependent)]")], PP_CHECKS + MB_CHECKS),
    "minibatch_parse finishing each batch before the next": ("parser_transitions.py", [
        ("""    while unfinished:
        batch = unfinished[:batch_size]
        transitions = model.predict(batch)
        for parse, transition in zip(batch, transitions):
            parse.parse_step(transition)
        unfinished = [p for p in unfinished
                      if not (len(p.buffer) == 0 and len(p.stack) == 1)]""",
         """    for start in range(0, len(unfinished), batch_size):
        batch = unfinished[start:start + batch_size]
        while batch:
            for parse, transition in zip(batch, model.predict(batch)):
                parse.parse_step(transition)
            batch = [p for p in batch if p.buffer or len(p.stack) > 1]""")], MB_CHECKS),
    "run.py parsing its arguments at import": ("run.py", [
        ("from utils.parser_utils import minibatches, load_and_preprocess_data, AverageMeter\n",
         "from utils.parser_utils import minibatches, load_and_preprocess_data, AverageMeter\n\n"
         "_parser = argparse.ArgumentParser()\n_parser.add_argument('-d', '--debug', action='store_true')\n"
         "args = _parser.parse_args()\n")], RUN_CHECKS),
    # Issue 35 (real run.py files): train passes a device of its own choosing to a train_for_epoch that
    # requires it (no default), or gives it a default and hands it to parser.parse as well.
    "train_for_epoch requiring the device its train passes": ("run.py", [
        ("        dev_UAS = train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size)\n",
         "        on = next(parser.model.parameters()).device\n"
         "        dev_UAS = train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size, on)\n"),
        ("def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size):",
         "def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size, device):"),
        ("            train_x = torch.from_numpy(train_x).long()\n",
         "            train_x = torch.from_numpy(train_x).long().to(device)\n")], RUN_CHECKS),
    "a device keyword handed on to train_for_epoch and parser.parse": ("run.py", [
        ("def train(parser, train_data, dev_data, output_path, batch_size=1024, n_epochs=10, lr=0.0005):",
         "def train(parser, train_data, dev_data, output_path, batch_size=1024, n_epochs=10, lr=0.0005, device='cpu'):"),
        ("        dev_UAS = train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size)\n",
         "        dev_UAS = train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size,\n"
         "                                  device=device)\n"),
        ("def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size):",
         "def train_for_epoch(parser, train_data, dev_data, optimizer, loss_func, batch_size, device='cpu'):"),
        ("    dev_UAS, _ = parser.parse(dev_data)\n", "    dev_UAS, _ = parser.parse(dev_data, device=device)\n")],
        RUN_CHECKS),
}


@pytest.mark.parametrize("case", TOLERATED, ids=list(TOLERATED))
def test_tolerated_variant_scores_full_marks(case, tmp_path):
    name, replacements, checks = TOLERATED[case]
    assert lost(graded(tmp_path, name, replacements, checks)) == {}


def test_gradient_with_a_singleton_dimension_is_tolerated_with_a_note(tmp_path):
    results = graded(tmp_path, "word2vec.py", [
        ("    gradCenterVec = outsideVectors.T @ delta           # U (y_hat - y)\n",
         "    gradCenterVec = (outsideVectors.T @ delta).reshape(-1, 1)\n")], ["w2v_naive_softmax"])
    assert lost(results) == {}
    assert "shape" in text(results["w2v_naive_softmax"])


# -- penalised: the covering check loses points and says why ----------------------------------------


def test_column_vector_only_word2vec_is_penalised_with_the_exception(tmp_path):
    results = graded(tmp_path, "word2vec.py", [
        ("    scores = outsideVectors @ centerWordVec            # (|V|,)\n",
         "    scores = np.dot(outsideVectors, centerWordVec)[:, 0]   # written for a (d, 1) column\n")],
        ["w2v_naive_softmax"])
    result = results["w2v_naive_softmax"]
    assert result.score == 0
    assert "raised IndexError" in text(result) and "centerWordVec of shape" in text(result)


def test_negatives_deduplicated_by_comparing_values_lose_the_duplicates_check(tmp_path):
    results = graded(tmp_path, "word2vec.py", [
        ("    np.add.at(gradOutsideVecs, negSampleWordIndices, np.outer(1.0 - s_neg, centerWordVec))\n",
         "    seen = []\n"
         "    for k, idx in enumerate(negSampleWordIndices):\n"
         "        if any(np.array_equal(outsideVectors[idx], v) for v in seen):\n"
         "            continue  # the same vector was already counted\n"
         "        seen.append(outsideVectors[idx])\n"
         "        gradOutsideVecs[idx] += (1.0 - s_neg[k]) * centerWordVec\n")], W2V_CHECKS)
    assert set(lost(results)) == {"w2v_neg_sampling_dups"}


def test_minibatch_parse_sorting_its_input_in_place_is_seen_by_the_grader(tmp_path):
    # The comparison of the sentences before and after happens in the trusted process.
    results = graded(tmp_path, "parser_transitions.py", [
        ("    partial_parses = [PartialParse(sentence) for sentence in sentences]\n",
         "    sentences.sort(key=len)  # shortest first, to finish batches early\n"
         "    partial_parses = [PartialParse(sentence) for sentence in sentences]\n")], MB_CHECKS)
    assert "the input sentences were modified" in text(results["mb_finished_removed"])
    assert results["mb_finished_removed"].score < results["mb_finished_removed"].max_score


def test_a_renamed_function_is_named_with_its_likely_intended_name(tmp_path):
    results = graded(tmp_path, "word2vec.py", [("def skipgram(", "def skip_gram(")],
                     ["w2v_skipgram", "w2v_naive_softmax"])
    assert results["w2v_naive_softmax"].passed
    skipgram = results["w2v_skipgram"]
    assert skipgram.score == 0 and skipgram.status == "error"
    assert "word2vec.py has no skipgram" in text(skipgram) and "Is your skip_gram meant to be skipgram?" in text(skipgram)


def test_minibatch_parse_is_judged_even_without_partial_parse(tmp_path):
    source = (REFERENCE / "parser_transitions.py").read_text()
    start, end = source.index("class PartialParse(object):"), source.index("def minibatch_parse(")
    folder = tmp_path / "renamed"
    folder.mkdir()
    (folder / "parser_transitions.py").write_text(
        source[:start] + source[start:end].replace("class PartialParse(object):", "class Partial_Parse(object):")
        + source[end:])
    report = grade(assemble(folder, tmp_path / "submission"), GradingSettings(seed=5, only=PP_CHECKS + MB_CHECKS))
    results = {c.id: c for c in report.checks}
    assert all(results[c].score == 0 for c in PP_CHECKS)
    assert "Is your Partial_Parse meant to be PartialParse?" in text(results["pp_init"])
    assert lost({c: results[c] for c in MB_CHECKS}) == {}


def test_skipgram_passing_the_loss_functions_arguments_by_name_is_judged_with_the_graders_loss(tmp_path):
    """The grader's loss function takes the assignment's parameter names (issue 35: a stand-in has
    the whole API of what it replaces), so skipgram is judged on its own, not through the
    student's loss functions as a skipgram that refuses it is."""
    results = graded(tmp_path, "word2vec.py", [
        ("        l, gc, go = word2vecLossAndGradient(centerWordVec, outsideIdx, outsideVectors, dataset)\n",
         "        l, gc, go = word2vecLossAndGradient(centerWordVec=centerWordVec, outsideWordIdx=outsideIdx,\n"
         "                                            outsideVectors=outsideVectors, dataset=dataset)\n")],
        ["w2v_skipgram"])
    assert lost(results) == {}
    assert "refused" not in text(results["w2v_skipgram"])
